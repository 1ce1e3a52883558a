import { expect } from "chai";
import { ADDRESS_BLOCKS, isRefusedAddress } from "../../lib/net/addresses";

/**
 * Every block of IANA's IPv4 and IPv6 Special-Purpose Address Registries
 * (copied here from the registries, so that a row dropped from the code's
 * table is noticed), and the other blocks the policy refuses. Each is
 * walked: its first, middle and last address are refused; the address just
 * outside either end is allowed when it is a public unicast address.
 */
const REGISTRY_V4 = [
  "0.0.0.0/8",
  "0.0.0.0/32",
  "10.0.0.0/8",
  "100.64.0.0/10",
  "127.0.0.0/8",
  "169.254.0.0/16",
  "172.16.0.0/12",
  "192.0.0.0/24",
  "192.0.0.0/29",
  "192.0.0.8/32",
  "192.0.0.9/32",
  "192.0.0.10/32",
  "192.0.0.170/32",
  "192.0.0.171/32",
  "192.0.2.0/24",
  "192.31.196.0/24",
  "192.52.193.0/24",
  "192.88.99.0/24",
  "192.88.99.2/32",
  "192.168.0.0/16",
  "192.175.48.0/24",
  "198.18.0.0/15",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "240.0.0.0/4",
  "255.255.255.255/32",
];
const REGISTRY_V6 = [
  "::1/128",
  "::/128",
  "64:ff9b:1::/48",
  "100::/64",
  "100:0:0:1::/64",
  "2001::/23",
  "2001:1::1/128",
  "2001:1::2/128",
  "2001:1::3/128",
  "2001:2::/48",
  "2001:3::/32",
  "2001:4:112::/48",
  "2001:10::/28",
  "2001:20::/28",
  "2001:30::/28",
  "2001:db8::/32",
  "2620:4f:8000::/48",
  "3fff::/20",
  "5f00::/16",
  "fc00::/7",
  "fe80::/10",
];
/** Refused although no special-purpose registry lists them. */
const ALSO_REFUSED = ["224.0.0.0/4", "::/96", "::ffff:0:0:0/96", "fec0::/10", "ff00::/8"];
/** Registry blocks whose addresses carry an IPv4 address and take its verdict. */
const CARRIERS = ["::ffff:0:0/96", "64:ff9b::/96", "2001::/32", "2002::/16"];

interface Block {
  base: bigint;
  prefix: number;
  bits: 32 | 128;
}

function parse(address: string): { value: bigint; bits: 32 | 128 } {
  if (address.includes(".")) return { value: address.split(".").reduce((n, p) => (n << 8n) | BigInt(Number(p)), 0n), bits: 32 };
  const [head, tail = ""] = address.split("::");
  const groups = (s: string): string[] => (s === "" ? [] : s.split(":"));
  const all = address.includes("::") ? [...groups(head), ...Array<string>(8 - groups(head).length - groups(tail).length).fill("0"), ...groups(tail)] : groups(head);
  return { value: all.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n), bits: 128 };
}

function block(cidr: string): Block {
  const [address, prefix] = cidr.split("/");
  const { value, bits } = parse(address);
  return { base: value, prefix: Number(prefix), bits };
}

function format(value: bigint, bits: 32 | 128): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join(".");
  return Array.from({ length: 8 }, (_, i) => ((value >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(":");
}

function last(b: Block): bigint {
  return b.base + (1n << BigInt(b.bits - b.prefix)) - 1n;
}

function inside(b: Block, value: bigint, bits: number): boolean {
  return b.bits === bits && value >= b.base && value <= last(b);
}

const REFUSED_BLOCKS = [...REGISTRY_V4, ...REGISTRY_V6, ...ALSO_REFUSED].map(block);
const CARRIER_BLOCKS = CARRIERS.map(block);
const GLOBAL_UNICAST_V6 = block("2000::/3");

/** This test's own reading of the policy, for the neighbours: undefined where an IPv4 address is carried (tested apart). */
function expectedRefused(value: bigint, bits: 32 | 128): boolean | undefined {
  if (CARRIER_BLOCKS.some((b) => inside(b, value, bits))) return undefined;
  if (REFUSED_BLOCKS.some((b) => inside(b, value, bits))) return true;
  return bits === 128 && !inside(GLOBAL_UNICAST_V6, value, bits);
}

/** First, middle and last address of a block. */
function samples(b: Block): string[] {
  const end = last(b);
  return [b.base, b.base + (end - b.base) / 2n, end].map((v) => format(v, b.bits));
}

describe("net: the special-purpose address blocks, walked", () => {
  it("the code's table has every registry block, and every other refused and carrying block", () => {
    const rows = new Map(ADDRESS_BLOCKS.map((row) => [row.cidr, row.verdict]));
    for (const cidr of [...REGISTRY_V4, ...REGISTRY_V6, ...ALSO_REFUSED]) expect(rows.get(cidr), cidr).to.equal("refused");
    for (const cidr of CARRIERS) expect(rows.get(cidr), cidr).to.have.property("carriesIPv4At");
  });

  it("refuses the first, middle and last address of every refused block (this test's list and the code's table)", () => {
    const cidrs = new Set([...REGISTRY_V4, ...REGISTRY_V6, ...ALSO_REFUSED, ...ADDRESS_BLOCKS.filter((row) => row.verdict === "refused").map((row) => row.cidr)]);
    for (const cidr of cidrs) {
      for (const address of samples(block(cidr))) expect(isRefusedAddress(address), `${address} in ${cidr}`).to.equal(true);
    }
  });

  it("allows the public address just outside either end of every refused block", () => {
    let checked = 0;
    for (const b of REFUSED_BLOCKS) {
      for (const neighbour of [b.base - 1n, last(b) + 1n]) {
        if (neighbour < 0n || neighbour >= 1n << BigInt(b.bits)) continue;
        const expected = expectedRefused(neighbour, b.bits);
        if (expected === undefined) continue;
        const address = format(neighbour, b.bits);
        expect(isRefusedAddress(address), address).to.equal(expected);
        if (!expected) checked++;
      }
    }
    // Most blocks have a public neighbour (not IPv6 outside 2000::/3, nor blocks side by side).
    expect(checked).to.be.greaterThan(30);
  });

  it("judges an address that carries an IPv4 address by that address, at each end of the carrying block", () => {
    const forms: Array<[string, (v4: string, hex: string) => string]> = [
      ["IPv4-mapped", (v4) => `::ffff:${v4}`],
      ["NAT64", (_v4, hex) => `64:ff9b::${hex}`],
      ["6to4", (_v4, hex) => `2002:${hex}::1`],
      ["Teredo (client address inverted)", (v4) => `2001:0:4136:e378:8000:63bf:${format(parse(v4).value ^ 0xffffffffn, 128).split(":").slice(6).join(":")}`],
    ];
    const hex = (v4: string): string => format(parse(v4).value, 128).split(":").slice(6).join(":");
    for (const [name, form] of forms) {
      for (const cidr of [...REGISTRY_V4, "224.0.0.0/4"]) {
        for (const v4 of samples(block(cidr))) expect(isRefusedAddress(form(v4, hex(v4))), `${name} ${v4}`).to.equal(true);
      }
      for (const v4 of ["8.8.8.8", "1.1.1.1", "11.0.0.0", "223.255.255.255", "192.0.1.255", "192.0.3.0"]) {
        expect(isRefusedAddress(form(v4, hex(v4))), `${name} ${v4}`).to.equal(false);
      }
    }
  });

  it("refuses what the registries name and the policy once let through (issue: special-purpose ranges)", () => {
    for (const a of ["192.0.2.1", "198.51.100.20", "203.0.113.255", "192.31.196.1", "192.52.193.1", "192.88.99.1", "192.175.48.6", "::ffff:0:7f00:1", "::ffff:0:a9fe:a9fe", "3fff::1", "5f00::1", "100:0:0:1::1", "2001:2::1", "2001:20::1", "2620:4f:8000::1", "4000::1"]) {
      expect(isRefusedAddress(a), a).to.equal(true);
    }
  });
});
