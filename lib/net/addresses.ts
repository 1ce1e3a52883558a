/**
 * Which IP addresses a request made on a user's behalf may reach: only
 * public unicast ones. One table, `ADDRESS_BLOCKS`, decides: the most
 * specific block that contains an address gives its verdict.
 *
 * The table is IANA's IPv4 and IPv6 Special-Purpose Address Registries
 * (RFC 6890 and its updates), entry by entry, plus multicast, IPv6 site-local
 * and everything outside IPv6 global unicast. Every registry entry is
 * refused, also those IANA marks "Globally Reachable: True" (192.0.0.9,
 * 192.0.0.10, AS112, AMT, ORCHIDv2, DRIP…): they are anycast services of
 * other protocols or identifiers, never a web server, so refusing them costs
 * nothing and keeps one rule. The IPv6 forms that carry an IPv4 address
 * (mapped, NAT64, 6to4, Teredo) get the verdict of the address they carry.
 *
 * Inputs are addresses as `net.isIP` reads them (a resolver's answer, or a
 * URL host without brackets). Host spellings such as `2130706433` or
 * `0x7f.1` never get here: the WHATWG URL parser already writes them as
 * dotted quads.
 */
import { isIPv4, isIPv6 } from "node:net";

/** What an address in a block gets: refused, public, or the verdict of the IPv4 address it carries. */
export type BlockVerdict = "refused" | "public" | { carriesIPv4At: number; inverted?: boolean };

export interface AddressBlock {
  cidr: string;
  name: string;
  /** The RFC that defines the block, and the IANA registry that lists it. */
  source: string;
  /** IANA's "Globally Reachable" for a registry entry (`null` when blank); absent for blocks from elsewhere. */
  globallyReachable?: boolean | "N/A" | null;
  verdict: BlockVerdict;
}

const V4 = "IANA IPv4 Special-Purpose Address Registry";
const V6 = "IANA IPv6 Special-Purpose Address Registry";

export const ADDRESS_BLOCKS: readonly AddressBlock[] = [
  { cidr: "0.0.0.0/0", name: "IPv4 unicast", source: "IANA IPv4 Address Space", verdict: "public" },
  { cidr: "0.0.0.0/8", name: '"This network"', source: `RFC 791; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "0.0.0.0/32", name: '"This host on this network"', source: `RFC 1122; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "10.0.0.0/8", name: "Private-Use", source: `RFC 1918; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "100.64.0.0/10", name: "Shared Address Space (carrier-grade NAT)", source: `RFC 6598; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "127.0.0.0/8", name: "Loopback", source: `RFC 1122; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "169.254.0.0/16", name: "Link Local (cloud metadata services live here)", source: `RFC 3927; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "172.16.0.0/12", name: "Private-Use", source: `RFC 1918; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.0.0.0/24", name: "IETF Protocol Assignments", source: `RFC 6890; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.0.0.0/29", name: "IPv4 Service Continuity Prefix", source: `RFC 7335; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.0.0.8/32", name: "IPv4 dummy address", source: `RFC 7600; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.0.0.9/32", name: "Port Control Protocol Anycast", source: `RFC 7723; ${V4}`, globallyReachable: true, verdict: "refused" },
  { cidr: "192.0.0.10/32", name: "Traversal Using Relays around NAT Anycast", source: `RFC 8155; ${V4}`, globallyReachable: true, verdict: "refused" },
  { cidr: "192.0.0.170/32", name: "NAT64/DNS64 Discovery", source: `RFC 8880, RFC 7050; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.0.0.171/32", name: "NAT64/DNS64 Discovery", source: `RFC 8880, RFC 7050; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.0.2.0/24", name: "Documentation (TEST-NET-1)", source: `RFC 5737; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.31.196.0/24", name: "AS112-v4", source: `RFC 7535; ${V4}`, globallyReachable: true, verdict: "refused" },
  { cidr: "192.52.193.0/24", name: "AMT", source: `RFC 7450; ${V4}`, globallyReachable: true, verdict: "refused" },
  { cidr: "192.88.99.0/24", name: "Deprecated (6to4 Relay Anycast)", source: `RFC 7526; ${V4}`, globallyReachable: null, verdict: "refused" },
  { cidr: "192.88.99.2/32", name: "6a44-relay anycast address", source: `RFC 6751; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.168.0.0/16", name: "Private-Use", source: `RFC 1918; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "192.175.48.0/24", name: "Direct Delegation AS112 Service", source: `RFC 7534; ${V4}`, globallyReachable: true, verdict: "refused" },
  { cidr: "198.18.0.0/15", name: "Benchmarking", source: `RFC 2544; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "198.51.100.0/24", name: "Documentation (TEST-NET-2)", source: `RFC 5737; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "203.0.113.0/24", name: "Documentation (TEST-NET-3)", source: `RFC 5737; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "224.0.0.0/4", name: "Multicast", source: "RFC 5771; IANA IPv4 Multicast Address Space Registry", verdict: "refused" },
  { cidr: "240.0.0.0/4", name: "Reserved", source: `RFC 1112; ${V4}`, globallyReachable: false, verdict: "refused" },
  { cidr: "255.255.255.255/32", name: "Limited Broadcast", source: `RFC 8190, RFC 919; ${V4}`, globallyReachable: false, verdict: "refused" },

  { cidr: "::/0", name: "IPv6 outside global unicast: reserved by the IETF or unassigned", source: "RFC 4291; IANA IPv6 Address Space", verdict: "refused" },
  { cidr: "2000::/3", name: "Global Unicast", source: "RFC 4291; IANA IPv6 Address Space", verdict: "public" },
  { cidr: "::1/128", name: "Loopback Address", source: `RFC 4291; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "::/128", name: "Unspecified Address", source: `RFC 4291; ${V6}`, globallyReachable: false, verdict: "refused" },
  // Deprecated; a host still given one would be reached over IPv4 through a tunnel, if at all.
  { cidr: "::/96", name: "IPv4-Compatible (deprecated)", source: "RFC 4291 §2.5.5.1", verdict: "refused" },
  // A dual-stack socket sends these to the IPv4 address.
  { cidr: "::ffff:0:0/96", name: "IPv4-mapped Address", source: `RFC 4291; ${V6}`, globallyReachable: false, verdict: { carriesIPv4At: 12 } },
  { cidr: "::ffff:0:0:0/96", name: "IPv4-translated Address (SIIT)", source: "RFC 2765, RFC 6145", verdict: "refused" },
  { cidr: "64:ff9b::/96", name: "IPv4-IPv6 Translat. (NAT64 well-known prefix)", source: `RFC 6052; ${V6}`, globallyReachable: true, verdict: { carriesIPv4At: 12 } },
  { cidr: "64:ff9b:1::/48", name: "IPv4-IPv6 Translat. (local-use NAT64)", source: `RFC 8215; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "100::/64", name: "Discard-Only Address Block", source: `RFC 6666; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "100:0:0:1::/64", name: "Dummy IPv6 Prefix", source: `RFC 9780; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "2001::/23", name: "IETF Protocol Assignments", source: `RFC 2928; ${V6}`, globallyReachable: false, verdict: "refused" },
  // The client's IPv4 address, inverted, is in the last 4 bytes.
  { cidr: "2001::/32", name: "TEREDO", source: `RFC 4380, RFC 8190; ${V6}`, globallyReachable: "N/A", verdict: { carriesIPv4At: 12, inverted: true } },
  { cidr: "2001:1::1/128", name: "Port Control Protocol Anycast", source: `RFC 7723; ${V6}`, globallyReachable: true, verdict: "refused" },
  { cidr: "2001:1::2/128", name: "Traversal Using Relays around NAT Anycast", source: `RFC 8155; ${V6}`, globallyReachable: true, verdict: "refused" },
  { cidr: "2001:1::3/128", name: "DNS-SD Service Registration Protocol Anycast", source: `RFC 9665; ${V6}`, globallyReachable: true, verdict: "refused" },
  { cidr: "2001:2::/48", name: "Benchmarking", source: `RFC 5180; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "2001:3::/32", name: "AMT", source: `RFC 7450; ${V6}`, globallyReachable: true, verdict: "refused" },
  { cidr: "2001:4:112::/48", name: "AS112-v6", source: `RFC 7535; ${V6}`, globallyReachable: true, verdict: "refused" },
  { cidr: "2001:10::/28", name: "Deprecated (previously ORCHID)", source: `RFC 4843; ${V6}`, globallyReachable: null, verdict: "refused" },
  { cidr: "2001:20::/28", name: "ORCHIDv2", source: `RFC 7343; ${V6}`, globallyReachable: true, verdict: "refused" },
  { cidr: "2001:30::/28", name: "Drone Remote ID Protocol Entity Tags (DETs) Prefix", source: `RFC 9374; ${V6}`, globallyReachable: true, verdict: "refused" },
  { cidr: "2001:db8::/32", name: "Documentation", source: `RFC 3849; ${V6}`, globallyReachable: false, verdict: "refused" },
  // The 6to4 site's IPv4 address is in bytes 2–5.
  { cidr: "2002::/16", name: "6to4", source: `RFC 3056; ${V6}`, globallyReachable: "N/A", verdict: { carriesIPv4At: 2 } },
  { cidr: "2620:4f:8000::/48", name: "Direct Delegation AS112 Service", source: `RFC 7534; ${V6}`, globallyReachable: true, verdict: "refused" },
  { cidr: "3fff::/20", name: "Documentation", source: `RFC 9637; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "5f00::/16", name: "Segment Routing (SRv6) SIDs", source: `RFC 9602; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "fc00::/7", name: "Unique-Local", source: `RFC 4193, RFC 8190; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "fe80::/10", name: "Link-Local Unicast", source: `RFC 4291; ${V6}`, globallyReachable: false, verdict: "refused" },
  { cidr: "fec0::/10", name: "Site-Local (deprecated)", source: "RFC 3879", verdict: "refused" },
  { cidr: "ff00::/8", name: "Multicast", source: "RFC 4291; IANA IPv6 Multicast Address Space Registry", verdict: "refused" },
];

/** An address as a number, with its width in bits. */
interface Address {
  value: bigint;
  bits: 32 | 128;
}

function parseV4(text: string): bigint {
  return text.split(".").reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

/** An IPv6 address `net.isIP` accepted: `::` and a dotted IPv4 tail expanded, a `%zone` dropped. */
function parseV6(text: string): bigint {
  const bare = text.replace(/%.*$/, "");
  const groups = (part: string): bigint[] =>
    part === ""
      ? []
      : part.split(":").flatMap((g) => {
          if (!g.includes(".")) return [BigInt(parseInt(g, 16))];
          const v4 = parseV4(g);
          return [v4 >> 16n, v4 & 0xffffn];
        });
  const [head, tail] = bare.split("::") as [string, string | undefined];
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = tail === undefined ? front : [...front, ...Array<bigint>(8 - front.length - back.length).fill(0n), ...back];
  return all.reduce((n, g) => (n << 16n) | g, 0n);
}

function parseAddress(text: string): Address | undefined {
  if (isIPv4(text)) return { value: parseV4(text), bits: 32 };
  if (isIPv6(text)) return { value: parseV6(text), bits: 128 };
  return undefined;
}

interface ParsedBlock {
  base: Address;
  prefix: number;
  block: AddressBlock;
}

function parseBlock(block: AddressBlock): ParsedBlock {
  const [address, prefix] = block.cidr.split("/") as [string, string];
  const base = parseAddress(address);
  const length = Number(prefix);
  // The table is code: a malformed row is a bug, caught when the module loads.
  if (base === undefined || !Number.isInteger(length) || length < 0 || length > base.bits || base.value & ((1n << BigInt(base.bits - length)) - 1n)) {
    throw new Error(`malformed address block ${block.cidr}`);
  }
  return { base, prefix: length, block };
}

const PARSED = ADDRESS_BLOCKS.map(parseBlock);

function contains(parsed: ParsedBlock, address: Address): boolean {
  if (parsed.base.bits !== address.bits) return false;
  const shift = BigInt(address.bits - parsed.prefix);
  return address.value >> shift === parsed.base.value >> shift;
}

/** The most specific block that contains the address (every address is in `0.0.0.0/0` or `::/0`). */
function decisive(address: Address): ParsedBlock | undefined {
  let best: ParsedBlock | undefined;
  for (const p of PARSED) if (contains(p, address) && (best === undefined || p.prefix > best.prefix)) best = p;
  return best;
}

function refused(address: Address): boolean {
  const verdict = decisive(address)?.block.verdict ?? "refused";
  if (verdict === "refused" || verdict === "public") return verdict === "refused";
  // The carried IPv4 address is judged as IPv4 (never carries again: carriers are IPv6 only).
  const shift = BigInt(address.bits - (verdict.carriesIPv4At + 4) * 8);
  const v4 = (address.value >> shift) & 0xffffffffn;
  return refused({ value: verdict.inverted === true ? v4 ^ 0xffffffffn : v4, bits: 32 });
}

/** True when a request must not be sent to this address (see above). Anything that is not an IP address is refused. */
export function isRefusedAddress(address: string): boolean {
  const parsed = parseAddress(address);
  return parsed === undefined || refused(parsed);
}
