import type { EngineParts } from './follow-context.js';
import { LeaseKeeper } from './lease-keeper.js';
import { PushWaiter, rearmPush } from './push-waiter.js';
import { GenerationGate } from './generation-gate.js';

/** Every engine part: push delivery, leases, OAuth 2.0 client credentials, generations (core's and Node's `connect()`). */
export const ALL_PARTS: EngineParts = {
  push: { runner: (delivery, scheduler, newId) => new PushWaiter(delivery, scheduler, newId), rearm: rearmPush },
  lease: (lease, askedAt, scheduler, lost) => new LeaseKeeper(lease, askedAt, scheduler, lost),
  // The grant's code is loaded on the first request that needs a token.
  oauth2: (setup) => (request) => import('../auth/client-credentials.js').then((m) => m.bearerFor(setup, request)),
  generations: () => new GenerationGate(),
};
