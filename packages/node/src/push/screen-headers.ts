import type { HmacHeaders } from './hmac-check.js';
import { looksLikeJwt } from './jwt-check.js';
import { refusal, type Refusal } from './push-answer.js';

/** A request as the receiver sees it before its body: the method and a header reader. */
export interface PushHead {
  readonly method: string;
  header(name: string): string | undefined;
}

/** The credentials a push presents, and the length it declares: all that is known before its body. */
export interface Presented {
  /** `Content-Length` (NaN when absent or not a number). */
  readonly declared: number;
  /** `Authorization: Bearer <JWT>`, when the receiver verifies JWTs and the bearer is shaped like one. */
  readonly jwt: string | undefined;
  /** A token: `X-A2A-Notification-Token`, or a bearer that is not taken as a JWT. */
  readonly token: string | undefined;
  /** The Standard Webhooks headers, when the receiver verifies HMAC signatures and a signature is present. */
  readonly hmac: HmacHeaders | undefined;
}

/** What screening needs to know of the receiver. */
export interface ScreenSetup {
  readonly maxBodyBytes: number;
  /** The receiver verifies JWTs (`jwt` option). */
  readonly jwt: boolean;
  /** The receiver verifies HMAC signatures (`hmac` option). */
  readonly hmac: boolean;
}

const CONTENT_TYPES = new Set(['application/json', 'application/a2a+json']);
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The first stage: the method, the content type, the declared length and which credentials are presented,
 * from the headers alone. 405 not POST, 415 not JSON, 413 declared too large, 401 no credentials at all.
 */
export function screenHeaders(head: PushHead, setup: ScreenSetup): Presented | Refusal {
  if (head.method !== 'POST') return refusal(405, `method ${head.method} not allowed`);
  const contentType = (head.header('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!CONTENT_TYPES.has(contentType)) return refusal(415, `content type ${JSON.stringify(contentType)} is not JSON`);
  const declared = Number(head.header('content-length') ?? Number.NaN);
  if (declared > setup.maxBodyBytes) return refusal(413, `body of ${declared} bytes exceeds ${setup.maxBodyBytes}`);

  const bearer = BEARER.exec(head.header('authorization') ?? '')?.[1];
  const jwt = bearer !== undefined && setup.jwt && looksLikeJwt(bearer) ? bearer : undefined;
  const token = head.header('x-a2a-notification-token') ?? (jwt === undefined ? bearer : undefined);
  const signature = head.header('webhook-signature');
  const hmac = setup.hmac && signature !== undefined ? { id: head.header('webhook-id') ?? '', timestamp: head.header('webhook-timestamp') ?? '', signature } : undefined;
  if (jwt === undefined && hmac === undefined && token === undefined) return refusal(401, 'no credentials');
  return { declared, jwt, token, hmac };
}
