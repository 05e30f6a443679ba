import type { GlobalFlags } from '../agent/global-options.js';
import type { SettingSource } from '../config/settings.js';
import { field } from '../output/text.js';
import type { RunContext } from './context.js';

/** One setting as `config show` reports it. */
export interface ShownSetting {
  /** The long flag, e.g. `--agent-card`. */
  flag: string;
  /** Its variable, e.g. `A2ACLI_AGENT_CARD`. */
  variable: string;
  /** The effective value; secrets are shown as `(set)`; `null` when nothing sets it. */
  value: string | null;
  source: SettingSource;
}

/** Every option that can come from the environment or a file, with its built-in default. */
const SETTINGS: readonly { name: string; flag: string; key?: keyof GlobalFlags; secret?: boolean; fallback?: (context: RunContext) => string }[] = [
  { name: 'AGENT_CARD', flag: '--agent-card', key: 'agentCard' },
  { name: 'OUTPUT', flag: '--output', key: 'output', fallback: () => 'text' },
  { name: 'TRANSPORT', flag: '--transport', key: 'transport', fallback: () => "the card's order" },
  { name: 'A2A_VERSION', flag: '--a2a-version', key: 'a2aVersion', fallback: () => '1.0' },
  { name: 'SVC_PARAM', flag: '--svc-param', key: 'svcParam', secret: true },
  { name: 'BEARER', flag: '--bearer', key: 'bearer', secret: true },
  { name: 'API_KEY', flag: '--api-key', key: 'apiKey', secret: true },
  { name: 'DEBUG', flag: '--debug', key: 'debug', fallback: () => 'false' },
  { name: 'VERBOSE', flag: '--verbose', key: 'verbose', fallback: () => 'false' },
  { name: 'STORE', flag: '--store', key: 'store', fallback: (context) => context.settings.defaultStoreDir() },
  { name: 'POLL_INTERVAL', flag: '--poll-interval', fallback: () => '2s' },
  { name: 'TIMEOUT', flag: '--timeout' },
  { name: 'ASYNC', flag: '--async', fallback: () => 'false' },
  { name: 'WAIT', flag: '--wait', fallback: () => 'true (send)' },
  { name: 'CONTEXT_ID', flag: '--context-id' },
  { name: 'TASK_ID', flag: '--task-id' },
];

/** The effective settings and where each came from: flag, environment, local file, global file, default. */
export function effectiveSettings(context: RunContext, flags: GlobalFlags): ShownSetting[] {
  return SETTINGS.map(({ name, flag, key, secret, fallback }) => {
    const given = key === undefined ? undefined : flags[key];
    const fromFlag = Array.isArray(given) ? (given.length > 0 ? given.join(',') : undefined) : given === undefined ? undefined : String(given);
    const layered = context.settings.lookup(name);
    const [value, source]: [string | null, SettingSource] =
      fromFlag !== undefined ? [fromFlag, 'flag'] : layered ? [layered.value, layered.source] : [fallback ? fallback(context) : null, 'default'];
    return { flag, variable: `A2ACLI_${name}`, value: secret && value !== null && source !== 'default' ? '(set)' : value, source };
  });
}

/**
 * `config show` (read-only): each setting's effective value and its source, secrets masked, and the
 * `.env` files read. Configuration is changed by editing those files or the environment.
 */
export function configShow(context: RunContext, flags: GlobalFlags): void {
  const { io, globals, settings } = context;
  const shown = effectiveSettings(context, flags);
  if (globals.output === 'json') {
    io.out(`${JSON.stringify({ files: settings.files, settings: shown }, null, 2)}\n`);
    return;
  }
  let out = settings.files.map((file) => field('File', file)).join('');
  for (const s of shown) out += field(s.variable, `${s.value ?? '(unset)'} (${s.source})`);
  io.out(out);
}
