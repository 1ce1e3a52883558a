/**
 * The client's address, as Express's `trust proxy` setting decides it: the
 * socket's peer, unless that peer is a trusted proxy, in which case the
 * address it forwarded (`X-Forwarded-For`, read from the right) is taken,
 * as long as each hop is trusted. Used for the failed-login limiter and the
 * address an application password was last used from.
 */
import { BlockList, isIP } from "node:net";
import type { Request } from "express";

/**
 * `false`: the socket's peer (no proxy trusted); `true`: the left-most
 * `X-Forwarded-For` address (every hop trusted); a number: that many hops
 * (proxies) in front of the server are trusted; addresses, subnets
 * (`10.0.0.0/8`) or `loopback` / `linklocal` / `uniquelocal`: the proxies
 * at those addresses are trusted (a list, or one comma-separated string).
 */
export type TrustProxy = boolean | number | string | readonly string[];

/** Express's (proxy-addr's) named ranges. */
const NAMED_RANGES: Readonly<Record<string, readonly string[]>> = {
  loopback: ["127.0.0.1/8", "::1/128"],
  linklocal: ["169.254.0.0/16", "fe80::/10"],
  uniquelocal: ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"],
};

/** `::ffff:10.0.0.1` → `10.0.0.1`: an IPv4 peer of a dual-stack socket is matched as IPv4. */
function plainAddress(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
}

function addEntry(list: BlockList, entry: string): void {
  const named = NAMED_RANGES[entry.toLowerCase()];
  if (named !== undefined) {
    for (const range of named) addEntry(list, range);
    return;
  }
  const [address = "", bits, extra] = entry.split("/");
  const plain = plainAddress(address);
  const family = isIP(plain);
  if (family === 0 || extra !== undefined) throw new Error(`trustProxy: "${entry}" is not an address, a subnet or loopback/linklocal/uniquelocal`);
  const type = family === 4 ? "ipv4" : "ipv6";
  if (bits === undefined) {
    list.addAddress(plain, type);
    return;
  }
  const prefix = /^\d+$/.test(bits) ? Number(bits) : NaN;
  if (!(prefix >= 0 && prefix <= (family === 4 ? 32 : 128))) throw new Error(`trustProxy: "${entry}" has a bad prefix length`);
  list.addSubnet(plain, prefix, type);
}

/** Whether the hop at `index` (0 = the socket's peer) at `address` is a trusted proxy. */
type Trusted = (address: string, index: number) => boolean;

/** Checks a `trustProxy` setting; throws on an entry that is not an address or subnet. */
export function trustedProxies(setting: TrustProxy): Trusted {
  if (setting === true) return () => true;
  if (setting === false) return () => false;
  if (typeof setting === "number") {
    if (!Number.isInteger(setting) || setting < 0) throw new Error(`trustProxy: a number of hops must be a whole number, not ${setting}`);
    return (_address, index) => index < setting;
  }
  const entries = (typeof setting === "string" ? setting.split(",") : [...setting]).map((e) => e.trim()).filter((e) => e !== "");
  const list = new BlockList();
  for (const entry of entries) addEntry(list, entry);
  return (address) => {
    const plain = plainAddress(address);
    const family = isIP(plain);
    return family !== 0 && list.check(plain, family === 4 ? "ipv4" : "ipv6");
  };
}

/**
 * The client address of `req` under `trusted`: walking from the socket's
 * peer through `X-Forwarded-For` right to left, the first hop that is not a
 * trusted proxy; the left-most address when every hop is trusted.
 */
export function clientAddress(req: Request, trusted: Trusted): string {
  const peer = req.socket.remoteAddress ?? "";
  const forwarded = req.headers["x-forwarded-for"];
  const hops = (Array.isArray(forwarded) ? forwarded.join(",") : (forwarded ?? ""))
    .split(",")
    .map((a) => a.trim())
    .filter((a) => a !== "")
    .reverse();
  const chain = [peer, ...hops];
  for (let i = 0; i < chain.length - 1; i++) {
    if (!trusted(chain[i] ?? "", i)) return plainAddress(chain[i] ?? "");
  }
  return plainAddress(chain[chain.length - 1] ?? "");
}

/**
 * What identifies a client: under `setting`, or, without one, `req.ip`
 * (the host app's own `trust proxy`; the socket's peer by default).
 */
export function clientAddressOf(setting: TrustProxy | undefined): (req: Request) => string {
  if (setting === undefined) return (req) => req.ip ?? req.socket.remoteAddress ?? "unknown";
  const trusted = trustedProxies(setting);
  return (req) => clientAddress(req, trusted) || "unknown";
}

/** The command line's `--trust-proxy` value: `true`, `false`, a number of hops, or addresses/subnets separated by commas. */
export function parseTrustProxy(text: string): TrustProxy {
  const value = text.trim();
  if (value === "true") return true;
  if (value === "false") return false;
  if (/^\d+$/.test(value)) return Number(value);
  trustedProxies(value); // throws on a bad entry
  return value;
}
