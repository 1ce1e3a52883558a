/**
 * Keys of kept answers (lib/cache/answer-key.ts): one key per answer, not
 * per spelling of its URL.
 */
import { expect } from "chai";
import { answerKey, declaredOrGlobal, MAX_KEY_LENGTH } from "../../lib/cache/answer-key";
import { parseBracketString } from "../../lib/routes/params";

const root = "http://example.test/wp-json/";
const key = (query: string, keeps?: (name: string) => boolean): string | undefined => answerKey(root, "/ns/v1/items/5", parseBracketString(query), keeps);

describe("routes: answer keys", () => {
  const declared = declaredOrGlobal([["id", {}], ["tags", {}]]);

  it("orders parameters and bracket members by name; keeps array order", () => {
    expect(key("b=2&a=1")).to.equal(key("a=1&b=2"));
    expect(key("f[y]=1&f[x]=2")).to.equal(key("f[x]=2&f[y]=1"));
    expect(key("tags[]=1&tags[]=2")).to.not.equal(key("tags[]=2&tags[]=1"));
    expect(key("a=1")).to.not.equal(key("a=2"));
  });

  it("drops what the endpoint does not declare, keeps the global parameters", () => {
    expect(key("utm=1&zz=2", declared)).to.equal(key("", declared));
    expect(key("id=3&utm=1", declared)).to.equal(key("id=3", declared));
    for (const name of ["context", "i18n_language", "_fields", "_envelope", "_pretty"]) expect(key(`${name}=x`, declared), name).to.not.equal(key("", declared));
    // Before routing everything counts: a URL with extra parameters is not the clean one.
    expect(key("utm=1")).to.not.equal(key(""));
  });

  it("reads _fields, _envelope and _pretty as the layer does", () => {
    expect(key("_fields=title,id")).to.equal(key("_fields=id,title,id"));
    expect(key("_fields[]=id&_fields[]=title")).to.equal(key("_fields=id, title"));
    expect(key("_fields=id")).to.not.equal(key("_fields=title"));
    expect(key("_fields=")).to.equal(key(""));
    expect(key("_envelope=1")).to.equal(key("_envelope"));
    expect(key("_pretty=yes")).to.equal(key("_pretty=0"));
  });

  it("leaves rest_route out (it is the path) and gives no key past MAX_KEY_LENGTH", () => {
    expect(key("rest_route=/ns/v1/items/5")).to.equal(key(""));
    expect(key(`x=${"a".repeat(MAX_KEY_LENGTH)}`)).to.equal(undefined);
    expect(key(`x=${"a".repeat(MAX_KEY_LENGTH)}`, declared)).to.equal(key("", declared));
  });

  it("names the names: a value that looks like another parameter is not one", () => {
    expect(key("a=1%262%3D3")).to.not.equal(key("a=1&2=3"));
  });
});
