/** Options of {@link redact}. */
export interface RedactOptions {
  /**
   * Secret values to replace wherever they appear in a string (also in their URL-encoded form): the
   * tokens, keys and passwords you gave Tether, for instance. Empty strings are ignored.
   */
  secrets?: Iterable<string> | undefined;
  /**
   * More names whose values are secret, on top of the built-in ones (see {@link redact}): object keys,
   * header names, URL query parameters, `name: value` / `name=value` in text. Compared ignoring case,
   * `-`, `_` and `.`.
   */
  keys?: Iterable<string> | undefined;
  /** How deep to copy nested objects (default 10); deeper values become `'[Truncated]'`. */
  maxDepth?: number | undefined;
  /** How many values to copy in all (default 10,000); past it, values become `'[Truncated]'`. */
  maxNodes?: number | undefined;
}

const REDACTED = '[REDACTED]';
const TRUNCATED = '[Truncated]';
const DEFAULT_MAX_DEPTH = 10;
const DEFAULT_MAX_NODES = 10_000;

// Names compared without case, `-`, `_` and `.`: `X-API-Key`, `api_key` and `apiKey` are one name. The
// pagination cursors end like a secret but are not one; `key`, `sig` and `code` are secret only as URL
// query parameters (`?key=…` is an API key; an object's `key` rarely is).
const SECRET_NAME = /^(?:(?:proxy)?authorization|(?:set)?cookie|bearer|basic|credentials?|.*(?:token|secret|password|passwd|pwd|apikey|privatekey|sessionid))$/;
const NOT_SECRET = /^(?:next|prev|previous)?pagetoken$/;
const QUERY_SECRET_NAME = /^(?:key|sig|code)$/;

// A name, its separator and the quote a value opens with; then (read with the sticky patterns below, from
// where the pair ends) a scheme word, and the value itself: up to the closing quote when it is quoted.
const PAIR = /(?<![\w.-])([\w.-]+)(["']?[ \t]*[:=][ \t]*)(["']?)/;
// The registered HTTP authentication schemes (and a few common ones): the word is kept, what follows is not.
const KNOWN_SCHEME = /(?:bearer|basic|digest|token|apikey|dpop|negotiate|ntlm|hoba|mutual|vapid|scram-sha-(?:1|256)|gnap|privatetoken|concealed|hmac|signature|aws4-hmac-sha256)[ \t]+/iy;
// After an Authorization name, the whole rest of the line is the credential (a token may come
// without a scheme word, and be followed by more text).
const REST_OF_LINE = /[^\r\n"']+/y;
const VALUE = /[^\s"'&,;<>#{}[\]()]+/y;
const IN_DOUBLE_QUOTES = /(?:[^"\\\n]|\\.)+/y;
const IN_SINGLE_QUOTES = /(?:[^'\\\n]|\\.)+/y;
const AUTHORIZATION = /^(?:proxy)?authorization$/;

function normalize(name: string): string {
  return name.toLowerCase().replace(/[-_.]/g, '');
}

/** What one redaction knows: the secret values and the names whose values are secret. */
class Redactor {
  private readonly secrets: string[];
  private readonly extraNames: Set<string>;
  private readonly maxDepth: number;
  private nodesLeft: number;
  private readonly ancestors = new Set<object>();

  constructor(options: RedactOptions) {
    const secrets = new Set<string>();
    for (const secret of options.secrets ?? []) {
      if (typeof secret !== 'string' || secret === '') continue;
      secrets.add(secret);
      secrets.add(encodeURIComponent(secret));
    }
    // Longest first, so a secret that contains another is replaced whole.
    this.secrets = [...secrets].sort((a, b) => b.length - a.length);
    this.extraNames = new Set([...(options.keys ?? [])].map(normalize));
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.nodesLeft = options.maxNodes ?? DEFAULT_MAX_NODES;
  }

  isSecretName(name: string, inQuery = false): boolean {
    const n = normalize(name);
    return this.extraNames.has(n) || (inQuery && QUERY_SECRET_NAME.test(n)) || (SECRET_NAME.test(n) && !NOT_SECRET.test(n));
  }

  text(value: string): string {
    let out = value;
    for (const secret of this.secrets) if (out.includes(secret)) out = out.split(secret).join(REDACTED);
    // `name: value`, `name=value`, `"name": "value"`, `?name=value&`; an Authorization value keeps its
    // scheme word. A name starts only where a run of name characters starts, and a value is read only
    // when its name is secret (else the scan goes on inside it), so the scan is linear.
    const pairs = new RegExp(PAIR.source, 'g');
    let redacted = '';
    let copied = 0;
    for (let m = pairs.exec(out); m !== null; m = pairs.exec(out)) {
      const [match, name = '', separator = '', quote = ''] = m;
      const before = out[m.index - 1];
      const inQuery = (before === '?' || before === '&') && separator === '=' && quote === '';
      if (!this.isSecretName(name, inQuery)) continue;
      let start = m.index + match.length;
      KNOWN_SCHEME.lastIndex = start;
      if (KNOWN_SCHEME.test(out)) start = KNOWN_SCHEME.lastIndex;
      // A quoted value runs to its closing quote (spaces and escaped quotes included).
      const pattern = quote === '"' ? IN_DOUBLE_QUOTES : quote === "'" ? IN_SINGLE_QUOTES : AUTHORIZATION.test(normalize(name)) ? REST_OF_LINE : VALUE;
      pattern.lastIndex = start;
      if (pattern.exec(out) === null) continue;
      redacted += `${out.slice(copied, start)}${REDACTED}`;
      copied = pattern.lastIndex;
      pairs.lastIndex = copied;
    }
    out = redacted + out.slice(copied);
    // A password in a URL's user info: scheme://user:password@host.
    // A raw `@` in the password: the URL parser splits at the last one, and so does this.
    return out.replace(/:\/\/([^\s/?#@:]*):([^\s/?#]+)@/g, (_match: string, user: string) => `://${user}:${REDACTED}@`);
  }

  value(value: unknown, depth: number): unknown {
    if (this.nodesLeft <= 0) return TRUNCATED;
    this.nodesLeft--;
    if (typeof value === 'function') return `[Function${value.name ? ` ${value.name}` : ''}]`;
    if (typeof value !== 'object') return typeof value === 'string' || typeof value === 'symbol' || typeof value === 'bigint' ? this.text(String(value)) : value;
    if (value === null) return null;
    const object = value as object;
    if (this.ancestors.has(object)) return '[Circular]';
    if (object instanceof URL) return this.text(object.href);
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString();
    if (ArrayBuffer.isView(object) || object instanceof ArrayBuffer) {
      return `[${(object as { constructor?: { name?: string } }).constructor?.name ?? 'binary'} of ${object.byteLength} bytes]`;
    }
    if (depth >= this.maxDepth) return TRUNCATED;
    this.ancestors.add(object);
    try {
      return this.composite(object, depth + 1);
    } finally {
      this.ancestors.delete(object);
    }
  }

  private composite(object: object, depth: number): unknown {
    if (Array.isArray(object)) return object.map((item) => this.value(item, depth));
    if (object instanceof Set) return [...object].map((item) => this.value(item, depth));
    if (isHeaders(object) || object instanceof Map) {
      const entries: [unknown, unknown][] = [];
      object.forEach((v: unknown, k: unknown) => entries.push([k, v]));
      return this.entries(entries, depth);
    }
    if (object instanceof URLSearchParams) return this.text(`?${object.toString()}`).slice(1);
    const out = this.entries(ownEntries(object), depth);
    if (object instanceof Error) {
      // What logging needs of an error, which JSON.stringify would lose: name, message, stack, cause.
      const error = object as Error & { cause?: unknown };
      return {
        name: this.value(error.name, depth),
        message: this.value(error.message, depth),
        ...out,
        ...('cause' in error ? { cause: this.value(error.cause, depth) } : {}),
        ...(typeof error.stack === 'string' ? { stack: this.value(error.stack, depth) } : {}),
      };
    }
    return out;
  }

  private entries(entries: Iterable<[unknown, unknown]>, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [rawKey, item] of entries) {
      if (this.nodesLeft <= 0) {
        out['…'] = TRUNCATED;
        break;
      }
      const key = this.text(typeof rawKey === 'string' ? rawKey : String(this.value(rawKey, depth)));
      const copy = item !== null && item !== undefined && item !== '' && this.isSecretName(key) ? REDACTED : this.value(item, depth);
      // defineProperty: a `__proto__` key is copied as data, not as the copy's prototype.
      Object.defineProperty(out, key, { value: copy, enumerable: true, writable: true, configurable: true });
    }
    return out;
  }
}

function isHeaders(value: object): value is Headers {
  return typeof Headers !== 'undefined' && value instanceof Headers;
}

/** Own enumerable string-keyed properties; a getter that throws reads as `'[Unreadable]'`. */
function ownEntries(object: object): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (const key of Object.keys(object)) {
    let item: unknown;
    try {
      item = (object as Record<string, unknown>)[key];
    } catch {
      item = '[Unreadable]';
    }
    out.push([key, item]);
  }
  return out;
}

/**
 * A copy of `value` that is safe to log: secrets replaced by `[REDACTED]`.
 *
 * Replaced are the values you list in `options.secrets` wherever they appear in a string, and the
 * values of secret-looking names — in objects and `Headers` (by key), in URLs (query parameters,
 * the password of `user:password@`), and in text (`name: value`, `name=value`, `"name": "value"`).
 * The built-in names (compared ignoring case, `-`, `_` and `.`): `authorization`,
 * `proxy-authorization`, `cookie`, `set-cookie`, `bearer`, `basic`, `credential(s)`, and anything ending
 * in `token`, `secret`, `password`, `passwd`, `pwd`, `api-key`, `private-key` or `session-id` (except
 * the pagination cursors `pageToken`, `nextPageToken`), and, as URL query parameters only, `key`,
 * `sig` and `code`. Add your own with `options.keys`.
 *
 * The copy is plain data for a logger: a string stays a string; a `URL` becomes its redacted
 * string; `Headers`, `Map` and objects become plain objects (own enumerable properties); an `Error`
 * (a `TetherError` too) becomes `{ name, message, …its fields, cause, stack }`, its `cause` chain
 * included; binary data is summarized, functions named, cycles marked `[Circular]`. It stops at
 * `maxDepth` levels and `maxNodes` values (`[Truncated]`), and its scan is linear in the input.
 * Nothing is modified in place.
 *
 * Tether itself never puts your credentials in errors, events or task records; this is for what
 * your own code logs (requests in a custom `fetch`, options, agent answers).
 *
 * @example
 * ```ts
 * logger.error(redact(error, { secrets: [process.env.AGENT_TOKEN ?? ''] }));
 * redact('https://agent.example/a2a?api_key=abc'); // 'https://agent.example/a2a?api_key=[REDACTED]'
 * ```
 */
export function redact(value: string, options?: RedactOptions): string;
export function redact(value: unknown, options?: RedactOptions): unknown;
export function redact(value: unknown, options: RedactOptions = {}): unknown {
  return new Redactor(options).value(value, 0);
}
