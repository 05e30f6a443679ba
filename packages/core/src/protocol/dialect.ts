import { TetherError } from '../errors/tether-error.js';

/**
 * The three JSON dialects A2A uses on the wire:
 * - `v1`: v1.0 ProtoJSON (JSON-RPC and HTTP+JSON alike);
 * - `v03`: v0.3 JSON-RPC, the `types.ts` shapes with `kind` discriminators;
 * - `v03-proto`: v0.3 HTTP+JSON, the v0.3 proto JSON (`ROLE_USER`, `content`, `fileWithUri` …).
 */
export type Dialect = 'v1' | 'v03' | 'v03-proto';

const DIALECTS: ReadonlySet<unknown> = new Set<Dialect>(['v1', 'v03', 'v03-proto']);

/** Refuses anything but a {@link Dialect} (an `INVALID_ARGUMENT`: the caller's mistake, not the agent's). */
export function checkDialect(dialect: unknown, where: string): asserts dialect is Dialect {
  if (!DIALECTS.has(dialect)) {
    throw new TetherError('INVALID_ARGUMENT', `${where}: not a dialect`);
  }
}
