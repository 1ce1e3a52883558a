/**
 * Which IP addresses a request made on a user's behalf may reach: only
 * public unicast ones. The refused ranges are WordPress's
 * `wp_http_validate_url()` list (loopback, private) widened to everything
 * that is not a public host: unspecified, link-local, CGNAT, multicast,
 * reserved and broadcast, IPv6 unique-local and site-local, and every IPv6
 * form that carries an IPv4 address (mapped, compatible, NAT64, 6to4,
 * Teredo), which is judged by the IPv4 address it carries.
 *
 * Inputs are addresses as `net.isIP` reads them (a resolver's answer, or a
 * URL host without brackets). Host spellings such as `2130706433` or
 * `0x7f.1` never get here: the WHATWG URL parser already writes them as
 * dotted quads.
 */
import { isIPv4, isIPv6 } from "node:net";

/** [first octets, prefix length] */
type V4Range = readonly [readonly number[], number];

const REFUSED_V4: readonly V4Range[] = [
  [[0], 8], // "this network", unspecified
  [[10], 8], // private
  [[100, 64], 10], // carrier-grade NAT
  [[127], 8], // loopback
  [[169, 254], 16], // link-local (cloud metadata services live here)
  [[172, 16], 12], // private
  [[192, 0, 0], 24], // IETF protocol assignments
  [[192, 168], 16], // private
  [[198, 18], 15], // benchmarking
  [[224], 4], // multicast
  [[240], 4], // reserved, and 255.255.255.255 broadcast
];

function inPrefix(bytes: readonly number[], first: readonly number[], bits: number): boolean {
  for (let i = 0; i < bits; i += 8) {
    const mask = bits - i >= 8 ? 0xff : (0xff << (8 - (bits - i))) & 0xff;
    if (((bytes[i / 8] ?? 0) & mask) !== ((first[i / 8] ?? 0) & mask)) return false;
  }
  return true;
}

function v4Bytes(address: string): number[] {
  return address.split(".").map(Number);
}

function refusedV4(bytes: readonly number[]): boolean {
  return REFUSED_V4.some(([first, bits]) => inPrefix(bytes, first, bits));
}

/** The 16 bytes of an IPv6 address (`::` and a dotted IPv4 tail expanded, a `%zone` dropped). */
export function v6Bytes(address: string): number[] {
  let text = address.replace(/%.*$/, "");
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = v4Bytes(tail[1]) as [number, number, number, number];
    text = `${text.slice(0, tail.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split("::") as [string, string | undefined];
  const groups = (s: string | undefined): string[] => (s === undefined || s === "" ? [] : s.split(":"));
  const front = groups(head);
  const back = groups(rest);
  const all = rest === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill("0"), ...back];
  return all.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

function refusedV6(bytes: readonly number[]): boolean {
  const zeros = (from: number, to: number): boolean => bytes.slice(from, to).every((b) => b === 0);
  const embedded = (at: number): number[] => bytes.slice(at, at + 4);
  // ::/96 (unspecified, loopback, IPv4-compatible) and ::ffff:0:0/96 (IPv4-mapped): the IPv4 address decides.
  if (zeros(0, 10) && ((bytes[10] === 0 && bytes[11] === 0) || (bytes[10] === 0xff && bytes[11] === 0xff))) {
    return zeros(0, 16) || (zeros(0, 15) && bytes[15] === 1) || refusedV4(embedded(12));
  }
  // 64:ff9b::/96 NAT64: the IPv4 address decides; 64:ff9b:1::/48 local-use NAT64: refused.
  if (inPrefix(bytes, [0x00, 0x64, 0xff, 0x9b], 32)) return !zeros(4, 12) || refusedV4(embedded(12));
  // 2002::/16 6to4: the IPv4 address in bytes 2–5.
  if (inPrefix(bytes, [0x20, 0x02], 16)) return refusedV4(embedded(2));
  // 2001::/32 Teredo: the client's IPv4 address, inverted, in the last 4 bytes.
  if (inPrefix(bytes, [0x20, 0x01, 0x00, 0x00], 32)) return refusedV4(embedded(12).map((b) => b ^ 0xff));
  return (
    inPrefix(bytes, [0xfc], 7) || // unique local
    inPrefix(bytes, [0xfe, 0x80], 10) || // link-local
    inPrefix(bytes, [0xfe, 0xc0], 10) || // site-local (deprecated)
    inPrefix(bytes, [0xff], 8) || // multicast
    inPrefix(bytes, [0x01, 0x00, 0, 0, 0, 0, 0, 0], 64) || // discard-only
    inPrefix(bytes, [0x20, 0x01, 0x0d, 0xb8], 32) // documentation
  );
}

/** True when a request must not be sent to this address (see above). Anything that is not an IP address is refused. */
export function isRefusedAddress(address: string): boolean {
  if (isIPv4(address)) return refusedV4(v4Bytes(address));
  if (isIPv6(address)) return refusedV6(v6Bytes(address));
  return true;
}
