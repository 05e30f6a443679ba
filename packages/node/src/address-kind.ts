/**
 * What an IP address reaches, as far as the SSRF guard cares.
 *
 * - `public`: anything not listed below.
 * - `loopback`: 127.0.0.0/8, ::1.
 * - `private`: 10/8, 172.16/12, 192.168/16, 100.64/10 (carrier-grade NAT, also Tailscale's), fc00::/7,
 *   fec0::/10.
 * - `link-local`: 169.254/16, fe80::/10.
 * - `unspecified`: 0.0.0.0/8, :: (connecting there reaches this host).
 * - `metadata`: the cloud instance metadata and credential endpoints, wherever they sit (most inside
 *   the link-local or private ranges): 169.254.169.254, fd00:ec2::254, AWS ECS 169.254.170.2, EKS
 *   169.254.170.23 and fd00:ec2::23, GCP fd20:ce::254, Azure 168.63.129.16, Alibaba 100.100.100.200,
 *   Oracle 192.0.0.192, Tencent 169.254.0.23, Scaleway 169.254.42.42 and fd00:42::42, Akamai
 *   fd00:a9fe:a9fe::1, OpenStack fe80::a9fe:a9fe.
 * - `reserved`: multicast, broadcast, and the other blocks of the IANA IPv4 and IPv6 special-purpose
 *   address registries that are not globally reachable (documentation, benchmarking, IETF protocol
 *   assignments, discard-only, local-use NAT64, segment routing, 240/4 …).
 *
 * IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-translated
 * `::ffff:0:a.b.c.d`, IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are
 * classified by the IPv4 address inside.
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

function v6(text: string): bigint {
  return (parseAddress(text) as ParsedAddress).value;
}

/**
 * Cloud instance metadata and credential endpoints: an agent card that points here would have Tether
 * fetch a machine's or a container's credentials. Refused even where their range is allowed
 * (`allowPrivate`, an `allow` block); only `allow` naming the address itself opens one. Sources:
 * - AWS EC2 IMDS 169.254.169.254, fd00:ec2::254:
 *   https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/instancedata-data-retrieval.html
 * - AWS ECS task credentials 169.254.170.2 (`AWS_CONTAINER_CREDENTIALS_RELATIVE_URI`):
 *   https://docs.aws.amazon.com/AmazonECS/latest/developerguide/task-iam-roles.html
 * - AWS EKS Pod Identity agent 169.254.170.23, fd00:ec2::23:
 *   https://docs.aws.amazon.com/eks/latest/userguide/pod-id-agent-setup.html (and the AWS SDKs'
 *   container credential providers, which accept exactly these hosts)
 * - Google Cloud 169.254.169.254 (metadata.google.internal), fd20:ce::254 on IPv6-only VMs:
 *   https://cloud.google.com/compute/docs/metadata/querying-metadata
 * - Azure IMDS 169.254.169.254: https://learn.microsoft.com/azure/virtual-machines/instance-metadata-service;
 *   WireServer 168.63.129.16 (the VM agent's channel, serves extension settings and certificates):
 *   https://learn.microsoft.com/azure/virtual-network/what-is-ip-address-168-63-129-16
 * - Alibaba Cloud 100.100.100.200: https://www.alibabacloud.com/help/en/ecs/user-guide/view-instance-metadata
 * - Oracle Cloud 169.254.169.254: https://docs.oracle.com/iaas/Content/Compute/Tasks/gettingmetadata.htm;
 *   192.0.0.192, the legacy (OCI Classic) endpoint, as SSRF deny lists carry it
 * - Tencent Cloud 169.254.0.23 (metadata.tencentyun.com): https://www.tencentcloud.com/document/product/213/4934
 * - Scaleway 169.254.42.42, fd00:42::42: https://docs.cloud-init.io/en/latest/reference/datasources/scaleway.html
 * - Akamai (Linode) 169.254.169.254, fd00:a9fe:a9fe::1:
 *   https://techdocs.akamai.com/cloud-computing/docs/metadata-service-api
 * - OpenStack 169.254.169.254, fe80::a9fe:a9fe:
 *   https://specs.openstack.org/openstack/neutron-specs/specs/ussuri/metadata-add-ipv6-support.html
 * DigitalOcean, Hetzner, IBM Cloud, Huawei Cloud, Vultr and others serve theirs at 169.254.169.254 too.
 */
const METADATA_ADDRESSES: readonly string[] = [
  '169.254.169.254',
  '169.254.170.2',
  '169.254.170.23',
  '168.63.129.16',
  '100.100.100.200',
  '192.0.0.192',
  '169.254.0.23',
  '169.254.42.42',
  'fd00:ec2::254',
  'fd00:ec2::23',
  'fd20:ce::254',
  'fd00:42::42',
  'fd00:a9fe:a9fe::1',
  'fe80::a9fe:a9fe',
];

const METADATA_V4 = new Set(METADATA_ADDRESSES.filter((a) => !a.includes(':')).map((a) => (parseAddress(a) as ParsedAddress).value));
const METADATA_V6 = new Set(METADATA_ADDRESSES.filter((a) => a.includes(':')).map(v6));

// The IANA IPv4 and IPv6 special-purpose address registries (RFC 6890 and later):
// https://www.iana.org/assignments/iana-ipv4-special-registry and …/iana-ipv6-special-registry.
// A block the registry marks "globally reachable" (AS112, AMT, 2620:4f:8000::/48 …) stays public.
const V4_RULES: readonly [bigint, number, AddressKind][] = [
  [v4(0, 0, 0, 0), 8, 'unspecified'], // "this network"
  [v4(127, 0, 0, 0), 8, 'loopback'],
  [v4(10, 0, 0, 0), 8, 'private'],
  [v4(172, 16, 0, 0), 12, 'private'],
  [v4(192, 168, 0, 0), 16, 'private'],
  [v4(100, 64, 0, 0), 10, 'private'], // shared address space (RFC 6598)
  [v4(169, 254, 0, 0), 16, 'link-local'],
  [v4(192, 0, 0, 0), 24, 'reserved'], // IETF protocol assignments (DS-Lite, PCP and TURN anycast, NAT64 discovery …)
  [v4(192, 0, 2, 0), 24, 'reserved'], // TEST-NET-1
  [v4(192, 88, 99, 0), 24, 'reserved'], // deprecated 6to4 relay anycast (RFC 7526)
  [v4(198, 18, 0, 0), 15, 'reserved'], // benchmarking (RFC 2544)
  [v4(198, 51, 100, 0), 24, 'reserved'], // TEST-NET-2
  [v4(203, 0, 113, 0), 24, 'reserved'], // TEST-NET-3
  [v4(224, 0, 0, 0), 4, 'reserved'], // multicast
  [v4(240, 0, 0, 0), 4, 'reserved'], // reserved, 255.255.255.255 (limited broadcast) included
];

const V6_RULES: readonly [bigint, number, AddressKind][] = [
  [0n, 128, 'unspecified'],
  [1n, 128, 'loopback'],
  [v6('100::'), 64, 'reserved'], // discard-only (RFC 6666)
  [v6('100:0:0:1::'), 64, 'reserved'], // dummy prefix (RFC 9780)
  [v6('64:ff9b:1::'), 48, 'reserved'], // local-use IPv4/IPv6 translation (RFC 8215)
  [v6('2001::'), 23, 'reserved'], // IETF protocol assignments (Teredo, benchmarking, ORCHID …)
  [v6('2001:db8::'), 32, 'reserved'], // documentation
  [v6('3fff::'), 20, 'reserved'], // documentation (RFC 9637)
  [v6('5f00::'), 16, 'reserved'], // segment routing SIDs (RFC 9602)
  [0xfc00n << 112n, 7, 'private'], // unique local
  [0xfec0n << 112n, 10, 'private'], // deprecated site-local
  [0xfe80n << 112n, 10, 'link-local'],
  [0xff00n << 112n, 8, 'reserved'], // multicast
];

function classifyV4(value: bigint): AddressKind {
  if (METADATA_V4.has(value)) return 'metadata';
  for (const [prefix, length, kind] of V4_RULES) if (inPrefix(value, 32, prefix, length)) return kind;
  return 'public';
}

/**
 * The IPv4 address an IPv6 address stands for, if it is one of the forms that carry one
 * (IPv4-mapped, IPv4-translated, IPv4-compatible, NAT64 well-known prefix, 6to4).
 */
export function embeddedIpv4(value: bigint): bigint | undefined {
  const low32 = value & 0xffffffffn;
  if (value >> 32n === 0xffffn) return low32; // ::ffff:a.b.c.d
  if (value >> 32n === 0xffff0000n) return low32; // ::ffff:0:a.b.c.d (SIIT, RFC 2765)
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
  if (METADATA_V6.has(parsed.value)) return 'metadata';
  for (const [prefix, length, kind] of V6_RULES) if (inPrefix(parsed.value, 128, prefix, length)) return kind;
  const inner = embeddedIpv4(parsed.value);
  return inner === undefined ? 'public' : classifyV4(inner);
}
