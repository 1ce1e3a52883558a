import { expect } from "chai";
import dns from "node:dns";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { isRefusedAddress } from "../../lib/net/addresses";
import { checkUrlShape, safeFetch } from "../../lib/net/safe-fetch";

/** A local server that counts the requests it receives; `routes` answer by path. */
async function countingServer(routes: Record<string, (res: http.ServerResponse) => void> = {}): Promise<{ port: number; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? "");
    const route = routes[req.url ?? ""];
    if (route) route(res);
    else {
      res.writeHead(200, { "content-type": "image/png" });
      res.end(Buffer.alloc(10, 1));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    hits,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

describe("net: the addresses a user's URL may reach", () => {
  it("refuses loopback, private, link-local, CGNAT, multicast, unspecified, broadcast and reserved IPv4", () => {
    for (const a of ["127.0.0.1", "127.255.0.9", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "100.127.255.255", "224.0.0.1", "239.1.1.1", "0.0.0.0", "0.1.2.3", "255.255.255.255", "240.0.0.1", "192.0.0.8", "198.18.0.1"]) {
      expect(isRefusedAddress(a), a).to.equal(true);
    }
    for (const a of ["8.8.8.8", "1.1.1.1", "172.32.0.1", "172.15.255.255", "100.128.0.1", "192.169.0.1", "93.184.216.34"]) {
      expect(isRefusedAddress(a), a).to.equal(false);
    }
  });

  it("refuses the same in IPv6, and every IPv6 form that carries a refused IPv4 address", () => {
    const refused = [
      "::1",
      "::",
      "fc00::1",
      "fd12:3456::1",
      "fe80::1",
      "fe80::1%eth0",
      "fec0::1",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "0:0:0:0:0:ffff:a00:1",
      "::ffff:169.254.169.254",
      "::127.0.0.1",
      "64:ff9b::10.0.0.1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b:1::1",
      "2002:7f00:1::1",
      "2002:c0a8:101::1",
      "2001:0:4136:e378:8000:63bf:80ff:fffe", // Teredo, client 127.0.0.1
      "2001:db8::1",
    ];
    for (const a of refused) expect(isRefusedAddress(a), a).to.equal(true);
    for (const a of ["2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1", "2a00:1450:4001::200e"]) {
      expect(isRefusedAddress(a), a).to.equal(false);
    }
    expect(isRefusedAddress("not an address")).to.equal(true);
  });

  it("reads decimal, octal, hex and short IPv4 hosts as the address they are", () => {
    for (const url of ["http://2130706433/", "http://0x7f.1/", "http://0177.0.0.1/", "http://127.1/", "http://0x7f000001/", "http://0/", "http://[::ffff:127.0.0.1]/", "http://[::ffff:7f00:1]/", "http://%31%32%37.0.0.1/"]) {
      const checked = checkUrlShape(url);
      expect(checked, url).to.have.property("reason", "its host is not a public address");
    }
  });

  it("refuses malformed URLs, other schemes, credentials and unsafe ports without any network", () => {
    const reason = (url: string): string | undefined => {
      const checked = checkUrlShape(url);
      return "reason" in checked ? checked.reason : undefined;
    };
    expect(reason("http://[::1")).to.equal("it is not a valid URL");
    expect(reason("not a url")).to.equal("it is not a valid URL");
    expect(reason("file:///etc/passwd")).to.equal("only http and https URLs are fetched");
    expect(reason("gopher://example.com/")).to.equal("only http and https URLs are fetched");
    expect(reason("http://user:pw@example.com/a.png")).to.equal("it contains a user name or password");
    expect(reason("http://example.com:22/a.png")).to.match(/^port 22 is not fetched/);
    for (const ok of ["http://example.com/a.png", "https://example.com/a%zz.png", "http://example.com:8080/a.png", "https://[2606:4700:4700::1111]/x"]) {
      expect(reason(ok), ok).to.equal(undefined);
    }
  });

  it("lets allowed hosts through on any port, matched without case, brackets or a trailing dot", () => {
    expect(checkUrlShape("http://127.0.0.1:1234/x", { allowHosts: ["127.0.0.1"] })).to.have.property("url");
    expect(checkUrlShape("http://[::1]:1234/x", { allowHosts: ["[::1]"] })).to.have.property("url");
    expect(checkUrlShape("http://Intranet.Example.:99/x", { allowHosts: ["intranet.example"] })).to.have.property("url");
    expect(checkUrlShape("http://127.0.0.2/x", { allowHosts: ["127.0.0.1"] })).to.have.property("reason");
  });
});

describe("net: safeFetch", function () {
  this.timeout(20_000);

  it("sends nothing to a refused address: a local server receives no request", async () => {
    const server = await countingServer();
    try {
      for (const url of [`http://127.0.0.1:${server.port}/img.png`, `http://[::ffff:127.0.0.1]:${server.port}/img.png`, `http://2130706433:${server.port}/img.png`, `http://localhost:${server.port}/img.png`]) {
        const result = await safeFetch(url);
        expect(result, url).to.include({ ok: false, kind: "refused" });
      }
      expect(server.hits).to.deep.equal([]);
    } finally {
      await server.close();
    }
  });

  it("refuses a host name that resolves to a refused address (after DNS)", async () => {
    const result = await safeFetch("http://localhost/img.png");
    expect(result).to.deep.equal({ ok: false, kind: "refused", reason: "its host resolves to an address that is not public" });
  });

  it("fetches an allowed host: status, headers and at most maxBytes of the body", async () => {
    const server = await countingServer({
      "/big": (res) => {
        res.writeHead(200, { "content-type": "image/jpeg" });
        res.end(Buffer.alloc(1_000_000, 7));
      },
    });
    try {
      const result = await safeFetch(`http://127.0.0.1:${server.port}/big`, { allowHosts: ["127.0.0.1"], maxBytes: 100 });
      if (!result.ok) throw new Error(result.reason);
      expect(result.response.status).to.equal(200);
      expect(result.response.headers["content-type"]).to.equal("image/jpeg");
      expect(result.response.body.length).to.equal(100);
    } finally {
      await server.close();
    }
  });

  it("checks every redirect: one to a refused host is not followed", async () => {
    const target = await countingServer();
    const front = await countingServer({
      "/to-internal": (res) => {
        res.writeHead(302, { location: `http://localhost:${target.port}/secret.png` });
        res.end();
      },
      "/to-metadata": (res) => {
        res.writeHead(301, { location: "http://169.254.169.254/latest/meta-data/" });
        res.end();
      },
      "/to-self": (res) => {
        res.writeHead(307, { location: "/img.png" });
        res.end();
      },
    });
    try {
      const allow = { allowHosts: ["127.0.0.1"] };
      const internal = await safeFetch(`http://127.0.0.1:${front.port}/to-internal`, allow);
      expect(internal).to.include({ ok: false, kind: "refused" });
      const metadata = await safeFetch(`http://127.0.0.1:${front.port}/to-metadata`, allow);
      expect(metadata).to.deep.equal({ ok: false, kind: "refused", reason: "a redirect goes where its host is not a public address" });
      expect(target.hits).to.deep.equal([]);
      const self = await safeFetch(`http://127.0.0.1:${front.port}/to-self`, allow);
      expect(self.ok && self.response.url).to.equal(`http://127.0.0.1:${front.port}/img.png`);
    } finally {
      await front.close();
      await target.close();
    }
  });

  it("follows at most maxRedirects redirects", async () => {
    const server = await countingServer({
      "/loop": (res) => {
        res.writeHead(302, { location: "/loop" });
        res.end();
      },
    });
    try {
      const result = await safeFetch(`http://127.0.0.1:${server.port}/loop`, { allowHosts: ["127.0.0.1"], maxRedirects: 3 });
      expect(result).to.deep.equal({ ok: false, kind: "failed", reason: "more than 3 redirects" });
      expect(server.hits.length).to.equal(4);
    } finally {
      await server.close();
    }
  });

  it("gives up on a server that never answers", async () => {
    const server = await countingServer({ "/silent": () => undefined });
    try {
      const result = await safeFetch(`http://127.0.0.1:${server.port}/silent`, { allowHosts: ["127.0.0.1"], timeoutMs: 200 });
      expect(result).to.deep.equal({ ok: false, kind: "failed", reason: "timed out" });
    } finally {
      await server.close();
    }
  });

  it("tells why a fetch failed in fixed words, never with the error's own message (addresses, ports, TLS library)", async () => {
    const allow = { allowHosts: ["127.0.0.1", "internal.example"] };
    const closed = await countingServer();
    await closed.close();
    const plain = await countingServer();
    const sockets = new Set<net.Socket>();
    const garbage = net.createServer((socket) => {
      sockets.add(socket);
      socket.end("SSH-2.0-OpenSSH_9.2 internal-host-42\r\n\r\n");
    });
    await new Promise<void>((resolve) => garbage.listen(0, "127.0.0.1", resolve));
    const original = dns.lookup;
    dns.lookup = ((hostname: string, _options: unknown, callback: (err: Error) => void) => {
      callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND", hostname }));
    }) as unknown as typeof dns.lookup;
    try {
      const cases: Array<[string, string]> = [
        [`http://127.0.0.1:${closed.port}/x.png`, "the connection was refused"],
        // TLS spoken to a plain HTTP server: OpenSSL's "wrong version number".
        [`https://127.0.0.1:${plain.port}/x.png`, "the TLS handshake failed"],
        [`http://127.0.0.1:${(garbage.address() as AddressInfo).port}/x.png`, "the answer is not valid HTTP"],
        ["http://internal.example/x.png", "its host does not resolve"],
      ];
      for (const [url, reason] of cases) {
        expect(await safeFetch(url, allow), url).to.deep.equal({ ok: false, kind: "failed", reason });
      }
    } finally {
      dns.lookup = original;
      await plain.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => garbage.close(() => resolve()));
    }
  });

  it("connects to the address it checked: DNS is asked once per hop, so a rebinding answer is never used", async () => {
    const server = await countingServer();
    const original = dns.lookup;
    const asked: string[] = [];
    // First answer the test server, every later one an address where nothing listens: a
    // connection made after a second lookup would fail. (The host is allowed so that the test
    // server on loopback may be fetched; the addresses are pinned the same way for every host.)
    const fake = ((hostname: string, _options: unknown, callback: (err: null, addresses: dns.LookupAddress[]) => void) => {
      asked.push(hostname);
      callback(null, [{ address: asked.length === 1 ? "127.0.0.1" : "127.0.0.2", family: 4 }]);
    }) as unknown as typeof dns.lookup;
    dns.lookup = fake;
    try {
      const result = await safeFetch(`http://rebind.example:${server.port}/img.png`, { allowHosts: ["rebind.example"] });
      expect(result).to.include({ ok: true });
      expect(asked).to.deep.equal(["rebind.example"]);
      expect(server.hits).to.deep.equal(["/img.png"]);
    } finally {
      dns.lookup = original;
      await server.close();
    }
  });
});
