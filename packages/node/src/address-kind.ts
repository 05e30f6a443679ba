/**
 * What an IP address reaches, as far as the SSRF guard cares.
 *
 * - `public`: anything not listed below.
 * - `loopback`: 127.0.0.0/8, ::1.
 * - `private`: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT), fc00::/7, fec0::/10.
 * - `link-local`: 169.254/16, fe80::/10.
 * - `unspecified`: 0.0.0.0/8, :: (connecting there reaches this host).
 * - `metadata`: cloud instance metadata endpoints, 169.254.169.254 and fd00:ec2::254.
 * - `reserved`: multicast and the reserved/broadcast blocks (224/4, 240/4, ff00::/8).
 *
 * IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible `::a.b.c.d`,
 * NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are classified by the IPv4 address inside.
 */
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'metadata' | 'reserved';

/** A parsed IP address: its family and its bits as one number. */
export interface ParsedAddress {
  family: 4 | 6;
  value: bigint;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function parseIpv4(text: string): bigint | undefined {
  const match = IPV4.exec(text);
  if (!match) return undefined;
  let value = 0n;
  for (const octet of match.slice(1)) {
    // No leading zeros: "010" is octal to some parsers and decimal to others.
    if (octet.length > 1 && octet.startsWith('0')) return undefined;
    const n = Number(octet);
    if (n > 255) return undefined;
    value = (value << 8n) | BigInt(n);
  }
  return value;
}

function parseIpv6(text: string): bigint | undefined {
  let body = text;
  // A dotted IPv4 tail stands for the last two groups.
  const lastColon = body.lastIndexOf(':');
  if (lastColon >= 0 && body.slice(lastColon + 1).includes('.')) {
    const tail = parseIpv4(body.slice(lastColon + 1));
    if (tail === undefined) return undefined;
    body = `${body.slice(0, lastColon + 1)}${(tail >> 16n).toString(16)}:${(tail & 0xffffn).toString(16)}`;
  }
  const halves = body.split('::');
  if (halves.length > 2) return undefined;
  const groups = (part: string | undefined): string[] => (part === undefined || part === '' ? [] : part.split(':'));
  const head = groups(halves[0]);
  const rest = groups(halves[1]);
  const given = head.length + rest.length;
  if (halves.length === 1 ? given !== 8 : given > 7) return undefined;
  let value = 0n;
  for (const group of [...head, ...Array<string>(8 - given).fill('0'), ...rest]) {
    if (!/^[0-9a-f]{1,4}$/i.test(group)) return undefined;
    value = (value << 16n) | BigInt(`0x${group}`);
  }
  return value;
}

/**
 * Parses an IP address literal (IPv4 dotted quad, or IPv6 with or without brackets and zone id).
 * Returns `undefined` for anything else, host names included.
 */
export function parseAddress(text: string): ParsedAddress | undefined {
  let body = text.trim();
  if (body.startsWith('[') && body.endsWith(']')) body = body.slice(1, -1);
  const v4 = parseIpv4(body);
  if (v4 !== undefined) return { family: 4, value: v4 };
  if (!body.includes(':')) return undefined;
  const zone = body.indexOf('%');
  if (zone >= 0) body = body.slice(0, zone);
  const v6 = parseIpv6(body);
  return v6 === undefined ? undefined : { family: 6, value: v6 };
}

function inPrefix(value: bigint, bits: number, prefix: bigint, length: number): boolean {
  return value >> BigInt(bits - length) === prefix >> BigInt(bits - length);
}

function v4(a: number, b: number, c: number, d: number): bigint {
  return (BigInt(a) << 24n) | (BigInt(b) << 16n) | (BigInt(c) << 8n) | BigInt(d);
}

const V4_RULES: readonly [bigint, number, AddressKind][] = [
  [v4(169, 254, 169, 254), 32, 'metadata'],
  [v4(0, 0, 0, 0), 8, 'unspecified'],
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(100, 64, 0, 0), 10, 'private'],
  [v4(169, 254, 0, 0), 16, 'link-local'],
  [v4(224, 0, 0, 0), 4, 'reserved'],
  [v4(240, 0, 0, 0), 4, 'reserved'],
];

const V6_RULES: readonly [bigint, number, AddressKind][] = [
  [0xfd000ec2000000000000000000000254n, 128, 'metadata'],
  [0n, 128, 'unspecified'],
  [1n, 128, 'loopback'],
  [0xfc00n << 112n, 7, 'private'],
  [0xfec0n << 112n, 10, 'private'],
  [0xfe80n << 112n, 10, 'link-local'],
  [0xff00n << 112n, 8, 'reserved'],
];

function classifyV4(value: bigint): AddressKind {
  for (const [prefix, length, kind] of V4_RULES) if (inPrefix(value, 32, prefix, length)) return kind;
  return 'public';
}

/**
 * The IPv4 address an IPv6 address stands for, if it is one of the forms that carry one
 * (IPv4-mapped, IPv4-compatible, NAT64 well-known prefix, 6to4).
 */
export function embeddedIpv4(value: bigint): bigint | undefined {
  const low32 = value & 0xffffffffn;
  if (value >> 32n === 0xffffn) return low32; // ::ffff:a.b.c.d
  if (value >> 32n === 0n && value > 1n) return low32; // ::a.b.c.d (deprecated, still parsed)
  if (value >> 32n === 0x0064ff9b0000000000000000n) return low32; // 64:ff9b::a.b.c.d
  if (value >> 112n === 0x2002n) return (value >> 80n) & 0xffffffffn; // 2002:AABB:CCDD::
  return undefined;
}

/**
 * Classifies an IP address literal (see {@link AddressKind}); `undefined` when `address` is not one.
 *
 * @example classifyAddress('::ffff:10.0.0.1') === 'private'
 */
export function classifyAddress(address: string): AddressKind | undefined {
  const parsed = parseAddress(address);
  if (!parsed) return undefined;
  if (parsed.family === 4) return classifyV4(parsed.value);
  for (const [prefix, length, kind] of V6_RULES) if (inPrefix(parsed.value, 128, prefix, length)) return kind;
  const inner = embeddedIpv4(parsed.value);
  return inner === undefined ? 'public' : classifyV4(inner);
}
