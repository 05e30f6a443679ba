import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { TetherError } from '@a2a-tether/core';
import { buildConnector } from 'undici';
import { classifyAddress, parseAddress, type AddressKind, type ParsedAddress } from './address-kind.js';

/**
 * Which addresses Tether's own fetch may connect to (the SSRF guard). URLs from an agent card (its
 * interfaces) and every redirect are checked against it, after DNS resolution, at connect time.
 *
 * By default only `public` addresses (see {@link AddressKind}) are reached, and only `http:` and
 * `https:` URLs. `connect()` also allows the non-public kinds except `metadata` and `reserved` when
 * the URL you pass it is itself local (it resolves to a loopback, private, link-local or
 * unspecified address): you chose a local agent, so its card may point next door — but never at a
 * cloud metadata or credential endpoint (169.254.169.254, ECS's 169.254.170.2 …), nor at a
 * reserved address.
 */
export interface NetworkOptions {
  /**
   * Hosts and networks reached whatever their kind: host names (`'agents.internal'`, matched
   * exactly, case-insensitively, at any address they resolve to), IP addresses (`'10.1.2.3'`,
   * `'::1'`) or CIDR blocks (`'10.0.0.0/8'`, `'fd00::/8'`). The only way to reach a `metadata` or
   * `reserved` address; a `metadata` address only when named itself (its address, or a host name
   * that resolves to it): a block around it (`'169.254.0.0/16'`, `'fd00::/8'`) does not open it.
   */
  allow?: readonly string[] | undefined;
  /**
   * `true`: also reach loopback, private, link-local and unspecified addresses. `false`: never
   * (unless in `allow`), even when the URL given to `connect()` is local. Default (in `connect()`):
   * `true` exactly when that URL resolves to such an address; in `createNodeFetch()`: `false`.
   */
  allowPrivate?: boolean | undefined;
  /**
   * Replaces the built-in {@link classifyAddress}. Meant for tests, e.g. to make a loopback test
   * server count as `public`; production code should leave it out.
   */
  classify?: ((address: string) => AddressKind | undefined) | undefined;
  /** The DNS lookup to resolve host names with (default: `node:dns` `lookup`). Every answer is checked. */
  lookup?: LookupFunction | undefined;
}

interface Block {
  family: 4 | 6;
  value: bigint;
  length: number;
}

const PRIVATE_KINDS: ReadonlySet<AddressKind> = new Set(['loopback', 'private', 'link-local', 'unspecified']);

/** An IPv4-mapped IPv6 address is its IPv4 address for `allow` matching. */
function canonical(address: ParsedAddress): ParsedAddress {
  if (address.family === 6 && address.value >> 32n === 0xffffn) return { family: 4, value: address.value & 0xffffffffn };
  return address;
}

function parseBlock(entry: string): Block | undefined {
  const slash = entry.indexOf('/');
  const parsed = parseAddress(slash < 0 ? entry : entry.slice(0, slash));
  if (!parsed) return undefined;
  const bits = parsed.family === 4 ? 32 : 128;
  const lengthText = slash < 0 ? String(bits) : entry.slice(slash + 1);
  const length = Number(lengthText);
  if (!/^\d{1,3}$/.test(lengthText) || length > bits) {
    throw new TetherError('INVALID_ARGUMENT', `network.allow: "${entry}" has an invalid prefix length (0–${bits})`);
  }
  return { ...canonical(parsed), length };
}

function hostKey(host: string): string {
  return host.toLowerCase().replace(/\.$/, '');
}

// No request context: the HTTP client that called fetch adds its own (operation, method, URL).
function refusal(detail: string): TetherError {
  return new TetherError('ADDRESS_NOT_ALLOWED', detail, { isRetryable: false, maybeDelivered: false });
}

/** The address checks of one {@link NetworkOptions}, and the undici pieces that enforce them. */
export class NetworkPolicy {
  private readonly hosts = new Set<string>();
  private readonly blocks: Block[] = [];
  private readonly classify: (address: string) => AddressKind | undefined;
  readonly allowPrivate: boolean;
  readonly lookup: LookupFunction;

  constructor(options: NetworkOptions) {
    for (const entry of options.allow ?? []) {
      const block = parseBlock(entry.trim());
      if (block) this.blocks.push(block);
      else if (/^[a-z0-9._-]+$/i.test(entry.trim())) this.hosts.add(hostKey(entry.trim()));
      else throw new TetherError('INVALID_ARGUMENT', `network.allow: "${entry}" is neither a host name, an IP address nor a CIDR block`);
    }
    this.allowPrivate = options.allowPrivate ?? false;
    this.classify = options.classify ?? classifyAddress;
    this.lookup = options.lookup ?? (dnsLookup as LookupFunction);
  }

  /** What an address is, through the configured classifier (`public` if it cannot tell). */
  kindOf(address: string): AddressKind {
    return this.classify(address) ?? 'public';
  }

  /** `undefined` when `host` may be reached at `address`, else why not. */
  refuses(host: string, address: string): string | undefined {
    if (this.hosts.has(hostKey(host))) return undefined;
    const kind = this.kindOf(address);
    const parsed = parseAddress(address);
    if (parsed) {
      const { family, value } = canonical(parsed);
      const bits = family === 4 ? 32 : 128;
      for (const block of this.blocks) {
        // A block opened for a network (169.254.0.0/16, fd00::/8) must not open the metadata endpoint in it.
        if (kind === 'metadata' && block.length !== bits) continue;
        if (block.family === family && value >> BigInt(bits - block.length) === block.value >> BigInt(bits - block.length)) return undefined;
      }
    }
    if (kind === 'public' || (this.allowPrivate && PRIVATE_KINDS.has(kind))) return undefined;
    const where = host === address ? address : `${host} (${address})`;
    const fix = PRIVATE_KINDS.has(kind)
      ? `add it to network.allow, or pass network.allowPrivate: true`
      : kind === 'metadata'
        ? `add it to network.allow (the address itself: a block does not open it) if you really mean to reach it`
        : `add it to network.allow if you really mean to reach it`;
    return `refused to connect to ${where}: a ${kind} address, which the SSRF guard does not reach by default; ${fix}`;
  }

  /**
   * Checks a URL before any connection: its scheme, and its host when that is an IP literal
   * (host names are checked when they resolve, see {@link NetworkPolicy.connector}).
   */
  checkUrl(input: string | URL): TetherError | undefined {
    let url: URL;
    try {
      url = new URL(input);
    } catch {
      return undefined; // fetch reports the bad URL itself
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      return refusal(`refused to fetch ${url.href}: only http: and https: URLs are allowed (not ${url.protocol})`);
    }
    const host = url.hostname.replace(/^\[|\]$/g, '');
    if (!parseAddress(host)) return undefined;
    const why = this.refuses(host, host);
    return why === undefined ? undefined : refusal(why);
  }

  /** A `lookup` that answers only with the addresses this policy allows, and fails when none is. */
  guardedLookup(): LookupFunction {
    return (hostname, options, callback) => {
      this.lookup(hostname, { ...options, all: true }, (error, found) => {
        if (error) return (callback as (error: Error) => void)(error);
        const addresses = (Array.isArray(found) ? found : [{ address: found, family: 4 }]) as LookupAddress[];
        const allowed = addresses.filter((entry) => this.refuses(hostname, entry.address) === undefined);
        const first = allowed[0];
        if (!first) {
          const why = addresses[0] ? this.refuses(hostname, addresses[0].address) : `no address for ${hostname}`;
          return (callback as (error: Error) => void)(refusal(why ?? `no allowed address for ${hostname}`));
        }
        if (options.all) (callback as (error: null, addresses: LookupAddress[]) => void)(null, allowed);
        else callback(null, first.address, first.family);
      });
    };
  }

  /**
   * An undici `connect` function: IP-literal hosts are checked here, host names through
   * {@link NetworkPolicy.guardedLookup}, so the address checked is the one connected to (this also
   * defeats DNS rebinding) — on the first request and on every redirect.
   */
  connector(options: buildConnector.BuildOptions): buildConnector.connector {
    const connect = buildConnector({ ...options, lookup: this.guardedLookup() } as buildConnector.BuildOptions);
    return (target, callback) => {
      if (parseAddress(target.hostname)) {
        const why = this.refuses(target.hostname, target.hostname);
        if (why !== undefined) {
          callback(refusal(why), null);
          return;
        }
      }
      connect(target, callback);
    };
  }
}

/** The guard's refusal inside an error undici or fetch wrapped it in, if there is one. */
export function guardRefusal(error: unknown): TetherError | undefined {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    if (current instanceof TetherError && current.code === 'ADDRESS_NOT_ALLOWED') return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
