import { base64url, decodeProtectedHeader, flattenedVerify } from 'jose';
import { TetherError, type ErrorContext } from '../errors/tether-error.js';
import type { FetchLike } from '../http/fetch-like.js';
import { isNormalizedCard } from '../card/normalize-card.js';
import { isObject } from '../util/is-object.js';
import { cardSigningPayload, type CardCanonicalForm } from './card-payload.js';
import { JwksFetcher } from './jwks-fetcher.js';
import { SIGNING_DEFAULTS } from './signing-defaults.js';
import { indexTrustedKeys, unusableJwk, type TrustedKey, type VerificationKey } from './trusted-keys.js';

/** Options of {@link verifyCardSignatures}. At least one of `trustedKeys` and `jwksAllowlist` is needed. */
export interface VerifyCardOptions {
  /**
   * Public keys you trust, found by the `kid` of each signature. A `kid` found here is verified with
   * these keys only: the signature's `jku` is then not followed.
   */
  trustedKeys?: readonly TrustedKey[] | undefined;
  /**
   * JWK Set URLs you trust to hold the signers' keys. A signature's `jku` is followed only when it is
   * one of these (compared as parsed URLs); a signature without `jku` whose `kid` is not in `trustedKeys`
   * is looked up in each of these, in order. Any other `jku` is refused without a request.
   */
  jwksAllowlist?: readonly string[] | undefined;
  /**
   * Accepted JWS algorithms (default {@link SIGNING_DEFAULTS}.algorithms). `none` and `HS*` are refused
   * here: a card is signed with a private key, and a public key must never serve as an HMAC secret.
   */
  algorithms?: readonly string[] | undefined;
  /** What the signatures cover: `'spec'` (default) or the official SDK's `'a2a-js'` (see {@link CardCanonicalForm}). */
  form?: CardCanonicalForm | undefined;
  /** The fetch for key sets (default: the global one). */
  fetch?: FetchLike | undefined;
  /** Time limit of one key set request (default {@link SIGNING_DEFAULTS}.jwksTimeoutMs). */
  jwksTimeoutMs?: number | undefined;
  /** Largest key set body in bytes (default {@link SIGNING_DEFAULTS}.jwksMaxBytes). */
  jwksMaxBytes?: number | undefined;
  /** A card with more signatures is refused unchecked (default {@link SIGNING_DEFAULTS}.maxSignatures). */
  maxSignatures?: number | undefined;
  /** Aborts the key set requests (the verification then fails with `ABORTED`). */
  signal?: AbortSignal | undefined;
}

/** What became of one signature of a card. */
export interface CardSignatureReport {
  /** Its position in the card's `signatures`. */
  index: number;
  /** `true` when it verified over the card with a trusted key and an allowed algorithm. */
  valid: boolean;
  /** From the protected header, when readable. */
  alg?: string | undefined;
  kid?: string | undefined;
  jku?: string | undefined;
  /** Where the key came from: `'trustedKeys'`, or the URL of the key set it was fetched from. */
  keySource?: string | undefined;
  /** Why it did not verify. */
  reason?: string | undefined;
}

/** A card whose signature verified. */
export interface CardVerification {
  /**
   * The card as verified: rebuilt from the signed canonical bytes (so without what the signature does
   * not cover), with `signatures` holding the entries that verified (protected header and signature
   * only). Use this object, never the one you passed in.
   */
  card: Record<string, unknown>;
  /** The canonical payload the signatures were checked over. */
  payload: string;
  /** One report per signature, in the card's order. */
  signatures: CardSignatureReport[];
}

/** Options checked once, for many verifications. */
export interface VerifierConfig {
  trusted: Map<string, VerificationKey[]>;
  allowlist: string[];
  algorithms: ReadonlySet<string>;
  form: CardCanonicalForm;
  maxSignatures: number;
}

function refuse(detail: string): never {
  throw new TetherError('INVALID_ARGUMENT', `card signing: ${detail}`, { maybeDelivered: false });
}

function checkAlgorithms(list: readonly string[]): ReadonlySet<string> {
  if (list.length === 0) refuse('algorithms is empty');
  for (const alg of list) {
    if (typeof alg !== 'string' || alg === '') refuse('algorithms holds a non-name');
    if (alg.toLowerCase() === 'none') refuse('alg "none" cannot be allowed (it means unsigned)');
    if (/^HS/i.test(alg)) refuse(`alg "${alg}" cannot be allowed: HMAC needs a shared secret, and a card's public key must never serve as one`);
  }
  return new Set(list);
}

function checkAllowlist(list: readonly string[]): string[] {
  return list.map((entry) => {
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      refuse(`jwksAllowlist entry ${JSON.stringify(entry)} is not an absolute URL`);
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') refuse(`jwksAllowlist entry ${url.href} is not http(s)`);
    return url.href;
  });
}

function checkPositive(value: number | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (!(value > 0)) refuse(`${name} must be a positive number`);
  return value;
}

/**
 * Checks the options of a verification.
 *
 * @throws TetherError `INVALID_ARGUMENT` (see {@link VerifyCardOptions}).
 */
export function verifierConfig(options: VerifyCardOptions): VerifierConfig {
  const trusted = indexTrustedKeys(options.trustedKeys ?? []);
  const allowlist = checkAllowlist(options.jwksAllowlist ?? []);
  if (trusted.size === 0 && allowlist.length === 0) refuse('nothing to trust: pass trustedKeys, jwksAllowlist or both');
  const form = options.form ?? 'spec';
  if (form !== 'spec' && form !== 'a2a-js') refuse(`form must be 'spec' or 'a2a-js', not ${JSON.stringify(form)}`);
  return {
    trusted,
    allowlist,
    algorithms: checkAlgorithms(options.algorithms ?? SIGNING_DEFAULTS.algorithms),
    form,
    maxSignatures: checkPositive(options.maxSignatures, 'maxSignatures', SIGNING_DEFAULTS.maxSignatures),
  };
}

/** A fetcher of allowlisted key sets with the bounds of `options`. */
export function jwksFetcher(options: VerifyCardOptions, cacheMs: number, now: () => number): JwksFetcher {
  const fetch = options.fetch ?? (globalThis as { fetch?: FetchLike }).fetch?.bind(globalThis);
  return new JwksFetcher({
    fetch: fetch ?? (() => Promise.reject(new TypeError('no global fetch in this runtime: pass options.fetch'))),
    timeoutMs: checkPositive(options.jwksTimeoutMs, 'jwksTimeoutMs', SIGNING_DEFAULTS.jwksTimeoutMs),
    maxBytes: checkPositive(options.jwksMaxBytes, 'jwksMaxBytes', SIGNING_DEFAULTS.jwksMaxBytes),
    cacheMs,
    now,
  });
}

/** Attacker-chosen text in messages stays short. */
function clip(text: string, max = 80): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

interface Run {
  config: VerifierConfig;
  fetcher: JwksFetcher;
  signal: AbortSignal | undefined;
  encodedPayload: string;
  /** The key sets this verification asked for, by URL: each is fetched at most once. */
  fetched: Map<string, Promise<Record<string, unknown>[]>>;
}

/** Keys for `kid`: trusted ones, else from the allowlisted `jku` or key sets; or why there are none. */
async function keysFor(run: Run, kid: string, jku: string | undefined): Promise<{ keys: VerificationKey[]; source: string } | string> {
  const trusted = run.config.trusted.get(kid);
  if (trusted) return { keys: trusted, source: 'trustedKeys' };
  let urls = run.config.allowlist;
  if (jku !== undefined) {
    let href: string;
    try {
      href = new URL(jku).href;
    } catch {
      return `jku ${JSON.stringify(clip(jku))} is not an absolute URL`;
    }
    if (!run.config.allowlist.includes(href)) return `kid not in trustedKeys, and jku ${clip(href)} is not in jwksAllowlist (not fetched)`;
    urls = [href];
  }
  const failures: string[] = [];
  for (const url of urls) {
    let found: Record<string, unknown>[];
    try {
      found = await lookUp(run, url, kid);
    } catch (error) {
      if (error instanceof TetherError && error.code === 'ABORTED') throw error;
      failures.push(`key set ${url} unavailable (${error instanceof Error ? error.message : String(error)})`);
      continue;
    }
    const usable = found.filter((jwk) => unusableJwk(jwk) === undefined);
    if (usable.length > 0) return { keys: usable.map((jwk) => ({ key: jwk, alg: typeof jwk['alg'] === 'string' ? jwk['alg'] : undefined })), source: url };
    if (found.length > 0) return `key "${clip(kid)}" of ${url} cannot verify: ${unusableJwk(found[0] as Record<string, unknown>) ?? ''}`;
  }
  const where = ['not in trustedKeys', ...(urls.length > 0 ? [`not in ${urls.length === 1 ? `key set ${urls[0]}` : 'the allowlisted key sets'}`] : [])];
  return [`unknown kid (${where.join(', ')})`, ...failures].join('; ');
}

/** The keys of the set at `url` named `kid`; one card fetches each set at most once. */
async function lookUp(run: Run, url: string, kid: string): Promise<Record<string, unknown>[]> {
  let keys = run.fetched.get(url);
  if (keys === undefined) {
    keys = run.fetcher.keySet(url, kid, run.signal);
    run.fetched.set(url, keys); // a failure too: the next signature naming this set does not ask again
  }
  return (await keys).filter((key) => key['kid'] === kid);
}

async function checkSignature(run: Run, entry: unknown, index: number): Promise<CardSignatureReport> {
  const report: CardSignatureReport = { index, valid: false };
  if (!isObject(entry) || typeof entry['protected'] !== 'string' || typeof entry['signature'] !== 'string') {
    return { ...report, reason: 'not a JWS signature: "protected" and "signature" must be strings' };
  }
  let header: Record<string, unknown>;
  try {
    header = decodeProtectedHeader({ protected: entry['protected'] }) as Record<string, unknown>;
  } catch {
    return { ...report, reason: 'the protected header is not base64url-encoded JSON' };
  }
  const { alg, kid, jku } = header;
  if (typeof alg === 'string') report.alg = alg;
  if (typeof kid === 'string') report.kid = kid;
  if (typeof jku === 'string') report.jku = jku;
  if (typeof alg !== 'string') return { ...report, reason: 'no alg in the protected header' };
  if (!run.config.algorithms.has(alg)) {
    return { ...report, reason: `alg ${JSON.stringify(clip(alg))} is not allowed (allowed: ${[...run.config.algorithms].join(', ')})` };
  }
  if (typeof kid !== 'string' || kid === '') return { ...report, reason: 'no kid in the protected header' };
  if (jku !== undefined && typeof jku !== 'string') return { ...report, reason: 'jku in the protected header is not a string' };
  const found = await keysFor(run, kid, jku);
  if (typeof found === 'string') return { ...report, reason: found };
  report.keySource = found.source;
  const jws = {
    payload: run.encodedPayload,
    protected: entry['protected'],
    signature: entry['signature'],
    ...(entry['header'] === undefined ? {} : { header: entry['header'] as Record<string, unknown> }),
  };
  const failures: string[] = [];
  for (const key of found.keys) {
    if (key.alg !== undefined && key.alg !== alg) {
      failures.push(`key "${clip(kid)}" is for ${clip(key.alg)}, not ${alg}`);
      continue;
    }
    try {
      await flattenedVerify(jws, key.key, { algorithms: [alg] });
      return { ...report, valid: true };
    } catch (error) {
      failures.push(error instanceof Error && error.message ? error.message : 'signature verification failed');
    }
  }
  return { ...report, reason: failures.join('; ') };
}

function describeReport(report: CardSignatureReport): string {
  const names = [report.alg && clip(report.alg), report.kid === undefined ? undefined : `kid ${JSON.stringify(clip(report.kid))}`].filter(Boolean);
  return `#${report.index}${names.length > 0 ? ` (${names.join(', ')})` : ''}: ${report.reason ?? 'valid'}`;
}

/**
 * Verifies a card with a checked configuration. Used by {@link verifyCardSignatures} and `cardVerifier()`.
 *
 * @throws TetherError `SIGNATURE_INVALID`, or `ABORTED` when `signal` fires.
 */
export async function verifyWith(
  config: VerifierConfig,
  fetcher: JwksFetcher,
  card: unknown,
  context: { signal?: AbortSignal | undefined; url?: string | undefined } = {},
): Promise<CardVerification> {
  const where: ErrorContext = context.url === undefined ? {} : { operation: 'GetAgentCard', url: context.url };
  const invalid = (detail: string, cause?: unknown): TetherError =>
    new TetherError('SIGNATURE_INVALID', detail, { ...where, ...(cause === undefined ? {} : { cause }) });
  // A card normalizeCard() made is verified as received (its `raw`); any other object is the card JSON itself.
  const json = isNormalizedCard(card) ? card.raw : card;
  if (!isObject(json)) throw invalid('the agent card is not a JSON object');
  const signatures = Object.hasOwn(json, 'signatures') ? json['signatures'] : undefined;
  if (!Array.isArray(signatures) || signatures.length === 0) throw invalid('the agent card is not signed (it has no "signatures")');
  if (signatures.length > config.maxSignatures) {
    throw invalid(`the agent card carries ${signatures.length} signatures, more than maxSignatures (${config.maxSignatures}); none was checked`);
  }
  let payload: string;
  try {
    payload = cardSigningPayload(json, { form: config.form });
  } catch (error) {
    throw invalid(`the agent card cannot be canonicalized: ${error instanceof Error ? error.message : String(error)}`, error);
  }
  if (context.signal?.aborted) throw new TetherError('ABORTED', 'aborted by the caller', { ...where, cause: context.signal.reason });
  const run: Run = { config, fetcher, signal: context.signal, encodedPayload: base64url.encode(payload), fetched: new Map() };
  const reports: CardSignatureReport[] = [];
  for (const [index, entry] of signatures.entries()) reports.push(await checkSignature(run, entry, index));
  const valid = reports.filter((report) => report.valid);
  if (valid.length === 0) {
    throw invalid(`the agent card has no valid signature: ${reports.map(describeReport).join('; ')}`);
  }
  const verified = JSON.parse(payload) as Record<string, unknown>;
  verified['signatures'] = valid.map((report) => {
    const entry = signatures[report.index] as Record<string, string>;
    return { protected: entry['protected'], signature: entry['signature'] };
  });
  return { card: verified, payload, signatures: reports };
}

/**
 * Verifies the JWS signatures of an agent card (A2A v1.0 §8.4): each signature's detached payload is
 * the card's canonical form ({@link cardSigningPayload}); its key comes from `trustedKeys` by `kid`, or
 * from an allowlisted key set; its algorithm must be allowed. One valid signature is enough (several
 * let an agent rotate keys); every one is reported.
 *
 * Use the returned `card`, not the input: it holds only what the signature covers.
 *
 * @param card The card JSON as served (or an `AgentCard` that `normalizeCard()` returned: its `raw` is verified).
 * @throws TetherError `SIGNATURE_INVALID` when the card is unsigned or no signature verifies (the
 *   message says why, per signature); `INVALID_ARGUMENT` for bad options; `ABORTED` when `signal` fires.
 */
export async function verifyCardSignatures(card: unknown, options: VerifyCardOptions): Promise<CardVerification> {
  const config = verifierConfig(options);
  return verifyWith(config, jwksFetcher(options, 0, () => 0), card, { signal: options.signal });
}
