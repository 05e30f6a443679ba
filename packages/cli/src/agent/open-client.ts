import { connect, createFileTaskStore, redact, type A2AClient, type Logger, type NodeConnectOptions, type ResilienceOptions, type TaskStore } from '@a2a-tether/node';
import { CliError } from '../errors/cli-error.js';
import type { CliIO } from '../io.js';
import { line } from '../output/terminal-safe.js';
import { parseAgentRef } from './agent-ref.js';
import { wireLogPlugin } from './wire-log-plugin.js';
import type { GlobalOptions } from './global-options.js';

/** What a command needs to reach the agent: the options, where to write, and the secrets to mask. */
export interface AgentAccess {
  globals: GlobalOptions;
  io: CliIO;
}

/** Every secret the run knows: credentials and service parameter values, masked in whatever goes to stderr. */
export function secretsOf(globals: GlobalOptions): string[] {
  return [globals.bearer, globals.apiKey, ...Object.values(globals.svcParams)].filter((s): s is string => typeof s === 'string' && s.length >= 4);
}

/** Masks the run's secrets and credential-like URL values in one diagnostic line. */
export function maskLine(line: string, secrets: readonly string[]): string {
  let out = redact(line);
  for (const secret of secrets) out = out.split(secret).join('[REDACTED]');
  return out;
}

/** Tether's debug log on stderr, each line masked (`--debug`). */
export function debugLogger(access: AgentAccess): Logger | undefined {
  if (!access.globals.debug) return undefined;
  const secrets = secretsOf(access.globals);
  const write = (level: string) => (...args: unknown[]) => access.io.err(line`[tether ${level}] ${maskLine(args.map(String).join(' ').replace(/^\[tether\] /, ''), secrets)}\n`);
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

/** Writes one `--debug` line of the CLI's own (masked). */
export function debugLine(access: AgentAccess, text: string): void {
  if (access.globals.debug) access.io.err(line`[tether debug] ${maskLine(text, secretsOf(access.globals))}\n`);
}

/** The agent reference, or a usage error naming the flag and its variable. */
export function requireAgentRef(globals: GlobalOptions): string {
  if (globals.agentCard === undefined || globals.agentCard === '') {
    throw CliError.usage('no agent: pass -a/--agent-card <url|host|file>', 'for example: tether card get -a http://localhost:9999, or set A2ACLI_AGENT_CARD');
  }
  return globals.agentCard;
}

/**
 * Connects to the agent named by `-a` (or `ref`): the card fetched (or read from a file), an interface
 * negotiated by `--transport` and `--a2a-version`, credentials from `--bearer` / `--api-key`, service
 * parameters as headers, Tether's debug log on stderr with `--debug`. `store`: where followed tasks are
 * recorded (the local file store, or memory for the stateless commands).
 */
export async function openClient(
  access: AgentAccess,
  options: { store?: TaskStore | undefined; ref?: string | undefined; resilience?: Partial<ResilienceOptions> | undefined } = {},
): Promise<A2AClient> {
  const { globals, io } = access;
  const ref = options.ref ?? requireAgentRef(globals);
  const source = parseAgentRef(ref, io.cwd);
  const auth: NonNullable<NodeConnectOptions['auth']> = {};
  if (globals.bearer !== undefined) auth.bearer = globals.bearer;
  if (globals.apiKey !== undefined) auth.apiKey = globals.apiKey;
  const log = debugLogger(access);
  const connectOptions: NodeConnectOptions = {
    protocolVersions: globals.protocolVersions,
    cardCache: false,
    headers: globals.svcParams,
    auth,
    ...(globals.preferredBindings ? { preferredBindings: globals.preferredBindings } : {}),
    ...(log ? { log, plugins: [wireLogPlugin((line) => debugLine(access, line))] } : {}),
    ...(options.store ? { store: options.store } : {}),
    ...(options.resilience ? { resilience: options.resilience } : {}),
    ...(source.kind === 'file' ? { card: source.card } : {}),
  };
  const url = source.kind === 'url' ? source.url : source.baseUrl;
  debugLine(access, `agent card: ${source.kind === 'url' ? source.url : `file ${source.path}`}; versions ${globals.protocolVersions.join(',')}; bindings ${(globals.preferredBindings ?? ['card order']).join(',')}; service parameters ${Object.keys(globals.svcParams).join(',') || 'none'}`);
  const client = await connect(url, connectOptions);
  const chosen = client.interface;
  debugLine(access, `interface: ${chosen.binding} v${chosen.protocolVersion} at ${chosen.url}${chosen.tenant ? ` tenant ${chosen.tenant}` : ''}`);
  return client;
}

/** The local task store (a Tether extension): Node's file store in `--store`'s directory. */
export function localStore(globals: GlobalOptions): TaskStore {
  return createFileTaskStore(globals.store);
}
