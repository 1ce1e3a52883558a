/**
 * WordPress type coercion of typed args (rest-conventions §4.3): every type,
 * each accepted spelling, and a rejected spelling with its exact message.
 */
import { expect } from "chai";
import { englishList, isNumeric, isWpBoolean, isWpInteger, wpParseList } from "../../lib/routes";
import { call, ns, obj, startTestApp, type TestApp } from "./helpers";

describe("routes: type coercion", () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp();
  });
  after(() => app.close());

  /** GET /types?<query> → the converted params. */
  async function viaQuery(query: string): Promise<Record<string, unknown>> {
    const res = await call(app, ns(`/types?${query}`));
    expect(res.status, res.text).to.equal(200);
    return obj(obj(res.body).params);
  }
  async function viaJson(json: Record<string, unknown>): Promise<Record<string, unknown>> {
    const res = await call(app, ns("/types"), { method: "POST", json });
    expect(res.status, res.text).to.equal(200);
    return obj(obj(res.body).params);
  }
  async function viaForm(form: string): Promise<Record<string, unknown>> {
    const res = await call(app, ns("/types"), { method: "POST", form });
    expect(res.status, res.text).to.equal(200);
    return obj(obj(res.body).params);
  }
  /** Expects a 400 whose only invalid parameter is `name` with `message` and, when given, detail `code`. */
  async function rejected(res: Promise<{ status: number; body: unknown; text: string }>, name: string, message: string, code?: string): Promise<void> {
    const r = await res;
    expect(r.status, r.text).to.equal(400);
    const body = obj(r.body);
    expect(body.code).to.equal("rest_invalid_param");
    expect(body.message).to.equal(`Invalid parameter(s): ${name}`);
    const data = obj(body.data);
    expect(data.status).to.equal(400);
    expect(data.params).to.deep.equal({ [name]: message });
    if (code !== undefined) expect(obj(obj(data.details)[name]).code).to.equal(code);
  }
  const q = (query: string) => call(app, ns(`/types?${query}`));
  const j = (json: Record<string, unknown>) => call(app, ns("/types"), { method: "POST", json });

  describe("integer", () => {
    it("accepts integral numbers and numeric strings", async () => {
      expect((await viaQuery("int=5")).int).to.equal(5);
      expect((await viaQuery("int=-2")).int).to.equal(-2);
      expect((await viaQuery("int=5.0")).int).to.equal(5);
      expect((await viaQuery("int=1e3")).int).to.equal(1000);
      expect((await viaJson({ int: 5 })).int).to.equal(5);
      expect((await viaJson({ int: "7" })).int).to.equal(7);
      expect((await viaForm("int=8")).int).to.equal(8);
    });
    it("rejects 5.5, abc, the empty string and booleans", async () => {
      await rejected(q("int=5.5"), "int", "int is not of type integer.", "rest_invalid_type");
      await rejected(q("int=abc"), "int", "int is not of type integer.", "rest_invalid_type");
      await rejected(q("int="), "int", "int is not of type integer.", "rest_invalid_type");
      await rejected(j({ int: true }), "int", "int is not of type integer.", "rest_invalid_type");
      await rejected(j({ int: 5.5 }), "int", "int is not of type integer.", "rest_invalid_type");
    });
    it("puts the full error, with {param} data, under details", async () => {
      const res = await q("int=abc");
      expect(obj(res.body).data).to.deep.equal({
        status: 400,
        params: { int: "int is not of type integer." },
        details: { int: { code: "rest_invalid_type", message: "int is not of type integer.", data: { param: "int" } } },
      });
    });
  });

  describe("number", () => {
    it("accepts numbers and numeric strings", async () => {
      expect((await viaQuery("num=1.5")).num).to.equal(1.5);
      expect((await viaQuery("num=-3")).num).to.equal(-3);
      expect((await viaQuery("num=1e3")).num).to.equal(1000);
      expect((await viaJson({ num: 2.5 })).num).to.equal(2.5);
    });
    it("rejects non-numeric strings", async () => {
      await rejected(q("num=abc"), "num", "num is not of type number.", "rest_invalid_type");
      await rejected(q("num="), "num", "num is not of type number.", "rest_invalid_type");
      await rejected(j({ num: "1,5" }), "num", "num is not of type number.", "rest_invalid_type");
    });
  });

  describe("boolean", () => {
    it("accepts true/false, 1/0 and their case-insensitive strings", async () => {
      for (const [spelling, expected] of [
        ["true", true], ["TRUE", true], ["True", true], ["1", true],
        ["false", false], ["FALSE", false], ["False", false], ["0", false],
      ] as const) {
        expect((await viaQuery(`bool=${spelling}`)).bool, spelling).to.equal(expected);
      }
      expect((await viaJson({ bool: true })).bool).to.equal(true);
      expect((await viaJson({ bool: false })).bool).to.equal(false);
      expect((await viaJson({ bool: 1 })).bool).to.equal(true);
      expect((await viaJson({ bool: 0 })).bool).to.equal(false);
      expect((await viaForm("bool=0")).bool).to.equal(false);
    });
    it("rejects other spellings", async () => {
      await rejected(q("bool=yes"), "bool", "bool is not of type boolean.", "rest_invalid_type");
      await rejected(q("bool="), "bool", "bool is not of type boolean.", "rest_invalid_type");
      await rejected(j({ bool: 2 }), "bool", "bool is not of type boolean.", "rest_invalid_type");
    });
  });

  describe("string", () => {
    it("accepts strings, the empty one included", async () => {
      expect((await viaQuery("str=abc")).str).to.equal("abc");
      expect((await viaQuery("str=")).str).to.equal("");
      expect((await viaJson({ str: "5" })).str).to.equal("5");
    });
    it("rejects JSON numbers and booleans", async () => {
      await rejected(j({ str: 5 }), "str", "str is not of type string.", "rest_invalid_type");
      await rejected(j({ str: true }), "str", "str is not of type string.", "rest_invalid_type");
      await rejected(j({ str: ["a"] }), "str", "str is not of type string.", "rest_invalid_type");
    });
    it("with enum: exact match only, English list in the message", async () => {
      expect((await viaQuery("color=green")).color).to.equal("green");
      await rejected(q("color=RED"), "color", "color is not one of red, green, and blue.", "rest_not_in_enum");
      const res = await q("color=RED");
      expect(obj(obj(obj(res.body).data).details).color).to.deep.equal({
        code: "rest_not_in_enum",
        message: "color is not one of red, green, and blue.",
        data: null,
      });
    });
    it("with a WordPress format", async () => {
      expect((await viaQuery("when=2024-05-01T10:00:00")).when).to.equal("2024-05-01T10:00:00");
      expect((await viaQuery("when=2024-05-01 10:00:00")).when).to.equal("2024-05-01 10:00:00");
      await rejected(q("when=2024-13-01T10:00:00"), "when", "Invalid date.", "rest_invalid_date");
    });
  });

  describe("array", () => {
    it("from JSON arrays, comma-separated strings and bracket keys", async () => {
      expect((await viaJson({ list: [1, "2"] })).list).to.deep.equal([1, 2]);
      expect((await viaQuery("list=1,2,%203")).list).to.deep.equal([1, 2, 3]);
      expect((await viaQuery("list=4")).list).to.deep.equal([4]);
      expect((await viaQuery("list[]=1&list[]=2")).list).to.deep.equal([1, 2]);
      expect((await viaQuery("list[0]=4&list[1]=5")).list).to.deep.equal([4, 5]);
      expect((await viaForm("list%5B%5D=6&list%5B%5D=7")).list).to.deep.equal([6, 7]);
      expect((await viaQuery("list=")).list).to.deep.equal([]);
    });
    it("rejects a bad item (bracketed name) and a non-list object", async () => {
      await rejected(q("list=1,x"), "list", "list[1] is not of type integer.", "rest_invalid_type");
      await rejected(j({ list: { a: 1 } }), "list", "list is not of type array.", "rest_invalid_type");
    });
  });

  describe("object", () => {
    it("from JSON objects and bracket keys, properties converted", async () => {
      expect((await viaJson({ obj: { a: "1", b: "x" } })).obj).to.deep.equal({ a: 1, b: "x" });
      expect((await viaQuery("obj[a]=2&obj[b]=y")).obj).to.deep.equal({ a: 2, b: "y" });
      expect((await viaForm("obj%5Ba%5D=3")).obj).to.deep.equal({ a: 3 });
    });
    it("rejects scalars and bad properties", async () => {
      await rejected(q("obj=5"), "obj", "obj is not of type object.", "rest_invalid_type");
      await rejected(q("obj[a]=x"), "obj", "obj[a] is not of type integer.", "rest_invalid_type");
    });
  });

  describe("type lists, bounds, untyped args, global args", () => {
    it("picks the best type of a list", async () => {
      expect((await viaQuery("nullable=5")).nullable).to.equal(5);
      // JSON null is "not sent".
      expect(await viaJson({ nullable: null })).to.not.have.property("nullable");
      await rejected(q("nullable=x"), "nullable", "nullable is not of type integer,null.", "rest_invalid_type");
    });
    it("reports bounds with WordPress's messages", async () => {
      expect((await viaQuery("small=10")).small).to.equal(10);
      await rejected(q("small=0"), "small", "small must be between 1 (inclusive) and 10 (inclusive)", "rest_out_of_bounds");
      await rejected(q("positive=0"), "positive", "positive must be greater than or equal to 1", "rest_out_of_bounds");
    });
    it("leaves untyped (documentation-typed) args as sent", async () => {
      expect((await viaQuery("loose=abc")).loose).to.equal("abc");
    });
    it("validates global args like any arg", async () => {
      const res = await call(app, ns("/items?lang=EN"));
      expect(res.status).to.equal(400);
      expect(obj(res.body).data).to.deep.equal({
        status: 400,
        params: { lang: "lang is not one of en, fr, and nl." },
        details: { lang: { code: "rest_not_in_enum", message: "lang is not one of en, fr, and nl.", data: null } },
      });
      expect((await call(app, ns("/items?lang=fr"))).status).to.equal(200);
    });
    it("reports several invalid params in declaration order", async () => {
      const res = await q("color=x&int=x");
      expect(obj(res.body).message).to.equal("Invalid parameter(s): int, color");
      expect(Object.keys(obj(obj(obj(res.body).data).params))).to.deep.equal(["int", "color"]);
    });
  });

  describe("the rules as functions", () => {
    it("isWpInteger / isNumeric / isWpBoolean / wpParseList / englishList", () => {
      expect(["5", "-2", "5.0", 5, " 5"].map(isWpInteger)).to.deep.equal([true, true, true, true, true]);
      expect(["5.5", "abc", "", true, "0x10", null].map(isWpInteger)).to.deep.equal([false, false, false, false, false, false]);
      expect(["1.5", ".5", "1e3", "-3"].every(isNumeric)).to.equal(true);
      expect(["", "abc", "Infinity", "1,5"].some(isNumeric)).to.equal(false);
      expect([true, false, 0, 1, "TRUE", "0"].every(isWpBoolean)).to.equal(true);
      expect(["yes", 2, "", null].some(isWpBoolean)).to.equal(false);
      expect(wpParseList("3, 5,,7 8")).to.deep.equal(["3", "5", "7", "8"]);
      expect([englishList(["a"]), englishList(["a", "b"]), englishList(["a", "b", "c"])]).to.deep.equal(["a", "a and b", "a, b, and c"]);
    });
  });
});
