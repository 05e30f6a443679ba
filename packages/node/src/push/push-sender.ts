/** Which credential authenticated a push. */
export type PushCredential =
  /** A registration's own token (`register({ token })`, `expect(taskId, { token })`), alone or beside a JWT or a signature. */
  | 'task-token'
  /** The receiver-wide `token`. */
  | 'token'
  /** A JWT verified against the JWKS. */
  | 'jwt'
  /** A Standard Webhooks HMAC signature. */
  | 'hmac';

/**
 * The sender of an authenticated push, as far as its credentials can tell senders apart: the unit
 * the receiver's per-sender bounds (pending pushes per task, remembered ids) are counted in.
 * - A registration's own token is held only by the agent its push config was given to: that agent.
 * - A JWT names its issuer (`iss`), vouched for by a key of the JWKS.
 * - The receiver-wide token and the HMAC secret are shared: everyone holding one is one sender.
 */
export function senderOf(credential: PushCredential, of: { readonly tokenSha256: string | undefined; readonly issuer: string | undefined }): string {
  switch (credential) {
    case 'task-token':
      return `token:${(of.tokenSha256 ?? '').slice(0, 16)}`;
    case 'jwt':
      return `jwt:${of.issuer ?? ''}`;
    case 'token':
    case 'hmac':
      return credential;
  }
}
