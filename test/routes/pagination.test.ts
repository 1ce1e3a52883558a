/**
 * The pagination helper (rest-conventions §10, calendar-api §3.1): body
 * members and headers at the edges, directly and over HTTP.
 */
import { expect } from "chai";
import { makeRestUrls, paginate } from "../../lib/routes";
import { call, ns, obj, startTestApp, type TestApp } from "./helpers";

const req = { urls: makeRestUrls("http://h.test/wp-json/", "http://h.test") };
const collectionUrl = "/ns/v1/things/";
const URL = "http://h.test/wp-json/ns/v1/things/";

describe("routes: pagination", () => {
  describe("paginate()", () => {
    it("empty result: zeros, no next or previous, no Link", () => {
      const p = paginate(req, { total: 0, page: 1, perPage: 10, collectionUrl, query: { page: 1, per_page: 10 } });
      expect(p).to.deep.equal({
        headers: { "X-WP-Total": "0", "X-WP-TotalPages": "0", "X-CAL-Total": "0", "X-CAL-TotalPages": "0" },
        total: 0,
        total_pages: 0,
        rest_url: `${URL}?page=1&per_page=10`,
      });
    });

    it("first page: next only", () => {
      const p = paginate(req, { total: 25, page: 1, perPage: 10, collectionUrl, query: { page: 1, per_page: 10 } });
      expect(p.total_pages).to.equal(3);
      expect(p.next_rest_url).to.equal(`${URL}?page=2&per_page=10`);
      expect(p).to.not.have.property("previous_rest_url");
      expect(p.headers.Link).to.equal(`<${URL}?page=2&per_page=10>; rel="next"`);
    });

    it("second page: previous has no page parameter", () => {
      const p = paginate(req, { total: 25, page: 2, perPage: 10, collectionUrl, query: { page: 2, per_page: 10, search: "a b" } });
      expect(p.rest_url).to.equal(`${URL}?page=2&per_page=10&search=a%20b`);
      expect(p.previous_rest_url).to.equal(`${URL}?per_page=10&search=a%20b`);
      expect(p.next_rest_url).to.equal(`${URL}?page=3&per_page=10&search=a%20b`);
      expect(p.headers.Link).to.equal(`<${URL}?per_page=10&search=a%20b>; rel="prev", <${URL}?page=3&per_page=10&search=a%20b>; rel="next"`);
    });

    it("last page: previous only", () => {
      const p = paginate(req, { total: 25, page: 3, perPage: 10, collectionUrl, query: { page: 3 } });
      expect(p.previous_rest_url).to.equal(`${URL}?page=2`);
      expect(p).to.not.have.property("next_rest_url");
      expect(p.headers).to.include({ "X-WP-Total": "25", "X-WP-TotalPages": "3", "X-CAL-Total": "25", "X-CAL-TotalPages": "3" });
    });

    it("beyond the last page: previous only when that page has results", () => {
      const justAfter = paginate(req, { total: 25, page: 4, perPage: 10, collectionUrl, query: { page: 4 } });
      expect(justAfter.previous_rest_url).to.equal(`${URL}?page=3`);
      const farAfter = paginate(req, { total: 25, page: 9, perPage: 10, collectionUrl, query: { page: 9 } });
      expect(farAfter).to.not.have.property("previous_rest_url");
      expect(farAfter).to.not.have.property("next_rest_url");
      expect(farAfter.headers).to.not.have.property("Link");
    });

    it("exact multiples, lists comma-separated, a page added when the query lacks it, absolute collection URLs", () => {
      expect(paginate(req, { total: 20, page: 1, perPage: 10, collectionUrl }).total_pages).to.equal(2);
      const p = paginate(req, { total: 20, page: 1, perPage: 10, collectionUrl: "https://other.test/x/", query: { categories: [3, 5], empty: undefined } });
      expect(p.rest_url).to.equal("https://other.test/x/?categories=3,5");
      expect(p.next_rest_url).to.equal("https://other.test/x/?categories=3,5&page=2");
      expect(() => paginate(req, { total: 1, page: 1, perPage: 0, collectionUrl })).to.throw(RangeError);
    });
  });

  describe("over HTTP", () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp({ itemCount: 5 });
    });
    after(() => app.close());
    const coll = () => `${app.root}test/v1/items/`;

    it("first, middle and last page", async () => {
      const first = await call(app, ns("/items"));
      expect(obj(first.body)).to.include({ rest_url: `${coll()}?page=1&per_page=2`, next_rest_url: `${coll()}?page=2&per_page=2`, total: 5, total_pages: 3 });
      expect(obj(first.body)).to.not.have.property("previous_rest_url");
      expect(first.headers.get("x-wp-total")).to.equal("5");
      expect(first.headers.get("x-wp-totalpages")).to.equal("3");
      expect(first.headers.get("x-cal-total")).to.equal("5");
      expect(first.headers.get("x-cal-totalpages")).to.equal("3");
      expect(first.headers.get("link")).to.equal(`<${app.root}>; rel="https://api.w.org/", <${coll()}?page=2&per_page=2>; rel="next"`);

      const middle = await call(app, ns("/items?page=2"));
      expect(obj(middle.body)).to.include({ previous_rest_url: `${coll()}?per_page=2`, next_rest_url: `${coll()}?page=3&per_page=2` });
      expect(Object.keys(obj(middle.body))).to.deep.equal(["items", "rest_url", "next_rest_url", "previous_rest_url", "total", "total_pages"]);

      const last = await call(app, ns("/items?page=3"));
      expect(obj(last.body)).to.include({ previous_rest_url: `${coll()}?page=2&per_page=2` });
      expect(obj(last.body)).to.not.have.property("next_rest_url");
      expect((obj(last.body).items as unknown[]).length).to.equal(1);
    });

    it("empty result: totals 0 in body and headers", async () => {
      const res = await call(app, ns("/items?search=nothing-matches"));
      expect(obj(res.body)).to.include({ total: 0, total_pages: 0 });
      expect(obj(res.body)).to.not.have.any.keys("next_rest_url", "previous_rest_url");
      expect(res.headers.get("x-cal-total")).to.equal("0");
      expect(res.headers.get("x-wp-totalpages")).to.equal("0");
      expect(res.headers.get("link")).to.equal(`<${app.root}>; rel="https://api.w.org/"`);
    });

    it("page and per_page must be positive integers", async () => {
      for (const bad of ["page=foo", "page=-1", "page=0", "page=foo%20bar", "per_page=0"]) {
        const res = await call(app, ns(`/items?${bad}`));
        expect(res.status, bad).to.equal(400);
        expect(obj(res.body).code).to.equal("rest_invalid_param");
      }
    });
  });
});
