import { TetherError } from '../errors/tether-error.js';
import { isObject } from '../util/is-object.js';
import { AGENT_CARD_FIELDS, type FieldSpec, type MessageFields } from './card-fields.js';
import { canonicalize } from './canonicalize.js';

/**
 * Which bytes a card signature covers.
 *
 * - `'spec'` (the default): A2A v1.0 §8.4.1. The card as served, without `signatures`, with the fields
 *   the proto gives implicit presence dropped when they hold their default (`""`, `false`, `[]`, `{}`),
 *   then RFC 8785. REQUIRED fields stay even when empty (`"description": ""`, `"skills": []`), `optional`
 *   fields and messages stay whenever set (`"streaming": false`, `"mtlsSecurityScheme": {}`), and fields
 *   the v1.0 card does not define stay as they are.
 * - `'a2a-js'`: what the official `@a2a-js/sdk` 1.x signs (`canonicalizeAgentCard`): only the fields of
 *   the v1.0 card (snake_case names read as camelCase), then every `""`, `null`, `[]` and `{}` removed at
 *   every depth — REQUIRED fields and the insides of `params` included. Cards with an empty required
 *   field, an empty-valued scope, an empty string in a list, an mTLS scheme without description or any
 *   field outside v1.0 canonicalize differently from `'spec'`; the verified card then lacks what the
 *   signature did not cover.
 */
export type CardCanonicalForm = 'spec' | 'a2a-js';

/** Options of {@link cardSigningPayload}. */
export interface CardPayloadOptions {
  /** Default `'spec'`. */
  form?: CardCanonicalForm | undefined;
}

const MAX_DEPTH = 512;

function own(record: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

function fieldOf(fields: MessageFields, name: string): FieldSpec | undefined {
  return Object.hasOwn(fields, name) ? fields[name] : undefined;
}

// --- 'spec' ---------------------------------------------------------------------------------------

/** Holds the default of an implicit-presence field (a singular message or Struct has presence: never). */
function isImplicitDefault(value: unknown, spec: FieldSpec): boolean {
  if (spec.container === 'list') return Array.isArray(value) && value.length === 0;
  if (spec.container === 'map') return isObject(value) && Object.keys(value).length === 0;
  if (spec.type === 'string') return value === '';
  if (spec.type === 'bool') return value === false;
  return false;
}

function specValue(value: unknown, spec: FieldSpec): unknown {
  const type = spec.type;
  if (typeof type === 'string') return value;
  const walk = (item: unknown): unknown => (isObject(item) ? specMessage(item, type) : item);
  if (spec.container === 'list') return Array.isArray(value) ? value.map(walk) : value;
  if (spec.container === 'map') {
    if (!isObject(value)) return value;
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const key of Object.keys(value)) out[key] = walk(value[key]);
    return out;
  }
  return walk(value);
}

function specMessage(value: Record<string, unknown>, fields: MessageFields): Record<string, unknown> {
  // A null prototype, so a member named `__proto__` is data like any other.
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    const item = value[key];
    const spec = fieldOf(fields, key);
    if (spec === undefined) {
      out[key] = item; // not a v1.0 field: signed as served
      continue;
    }
    if (item === null || item === undefined) continue; // ProtoJSON: null means not set
    if (spec.presence === 'implicit' && isImplicitDefault(item, spec)) continue;
    out[key] = specValue(item, spec);
  }
  return out;
}

// --- 'a2a-js' -------------------------------------------------------------------------------------

function sdkScalar(value: unknown, spec: FieldSpec): unknown {
  if (spec.type === 'bool') return Boolean(value);
  try {
    return String(value); // as the SDK does: an object becomes "[object Object]"
  } catch (error) {
    // e.g. `{"toString": 1}`: the SDK cannot sign such a card either.
    throw new TetherError('INVALID_ARGUMENT', 'a string field of the card holds an object without text', { cause: error, maybeDelivered: false });
  }
}

function sdkValue(value: unknown, spec: FieldSpec): unknown {
  const type = spec.type;
  const element = (item: unknown): unknown => {
    if (typeof type !== 'string') return sdkMessage(isObject(item) ? item : {}, type);
    return sdkScalar(item, spec);
  };
  if (spec.container === 'list') return Array.isArray(value) ? value.map(element) : undefined;
  if (spec.container === 'map') {
    if (typeof value !== 'object' || value === null) return undefined;
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value)) out[key] = element(item);
    return out;
  }
  if (type === 'struct') return typeof value === 'object' ? value : undefined;
  if (typeof type !== 'string') return sdkMessage(isObject(value) ? value : {}, type);
  const scalar = sdkScalar(value, spec);
  // proto3 JSON leaves out an implicit-presence false (empty strings go in the cleaning pass).
  return scalar === false && spec.presence !== 'optional' ? undefined : scalar;
}

function sdkMessage(value: Record<string, unknown>, fields: MessageFields): Record<string, unknown> {
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  for (const [name, spec] of Object.entries(fields)) {
    let item = own(value, name);
    if ((item === null || item === undefined) && spec.protoName) item = own(value, spec.protoName);
    if (item === null || item === undefined) continue;
    const picked = sdkValue(item, spec);
    if (picked !== undefined) out[name] = picked;
  }
  return out;
}

/** Removes `""`, `null`, `[]` and `{}` at every depth (what the official SDKs call cleaning empties). */
function withoutEmpties(value: unknown, depth: number): unknown {
  if (value === '' || value === null || value === undefined) return undefined;
  if (typeof value !== 'object') return value;
  if (depth >= MAX_DEPTH) {
    throw new TetherError('INVALID_ARGUMENT', `the card is nested deeper than ${MAX_DEPTH} levels`, { maybeDelivered: false });
  }
  if (Array.isArray(value)) {
    const items = value.map((item) => withoutEmpties(item, depth + 1)).filter((item) => item !== undefined);
    return items.length > 0 ? items : undefined;
  }
  const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  let size = 0;
  for (const [key, item] of Object.entries(value)) {
    const kept = withoutEmpties(item, depth + 1);
    if (kept === undefined) continue;
    out[key] = kept;
    size++;
  }
  return size > 0 ? out : undefined;
}

/** The card as the chosen form signs it (before RFC 8785), without `signatures`. */
function signedCardContent(card: Record<string, unknown>, form: CardCanonicalForm): unknown {
  // `signatures` is no field of AGENT_CARD_FIELDS: 'a2a-js' never picks it, 'spec' copies it as unknown.
  if (form === 'a2a-js') return withoutEmpties(sdkMessage(card, AGENT_CARD_FIELDS), 0) ?? {};
  const content = specMessage(card, AGENT_CARD_FIELDS);
  delete content['signatures'];
  return content;
}

/**
 * The bytes a card signature covers, as text: the card without `signatures`, defaults dropped as
 * `form` says (see {@link CardCanonicalForm}), in RFC 8785 canonical JSON. A signer signs the UTF-8 of
 * this text as the (detached) JWS payload; a verifier recomputes it from the card it received.
 *
 * @param card The card JSON as served (v1.0 ProtoJSON, or any other shape: unknown fields are kept in `'spec'`).
 * @throws TetherError `INVALID_ARGUMENT` when `card` is not a JSON object or holds what RFC 8785 cannot
 *   write (see {@link canonicalize}).
 */
export function cardSigningPayload(card: unknown, options: CardPayloadOptions = {}): string {
  if (!isObject(card)) {
    throw new TetherError('INVALID_ARGUMENT', 'cardSigningPayload: the card is not a JSON object', { maybeDelivered: false });
  }
  return canonicalize(signedCardContent(card, options.form ?? 'spec'));
}
