/** Which credential authenticated a push. */
export type PushCredential =
  /** The task's own token (`expect(taskId, { token })`), alone or beside a JWT or a signature. */
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
 * - A task's own token is held only by the agent its push config was given to: that task's agent.
 * - A JWT names its issuer (`iss`), vouched for by a key of the JWKS.
 * - The receiver-wide token and the HMAC secret are shared: everyone holding one is one sender.
 */
export function senderOf(taskId: string, credential: PushCredential, issuer: string | undefined): string {
  switch (credential) {
    case 'task-token':
      return `task:${taskId}`;
    case 'jwt':
      return `jwt:${issuer ?? ''}`;
    case 'token':
    case 'hmac':
      return credential;
  }
}
