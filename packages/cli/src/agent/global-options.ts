import type { Binding, ProtocolVersion } from '@a2a-tether/node';
import { CliError } from '../errors/cli-error.js';
import type { Settings } from '../config/settings.js';

/** The output format (`-o`). */
export type OutputFormat = 'text' | 'json';

/** The global options, resolved through flag > env > local file > global file > default. */
export interface GlobalOptions {
  agentCard: string | undefined;
  output: OutputFormat;
  /** Bindings in the caller's order, then the others (the card's order decides among those). */
  preferredBindings: Binding[] | undefined;
  protocolVersions: ProtocolVersion[];
  svcParams: Record<string, string>;
  bearer: string | undefined;
  apiKey: string | undefined;
  debug: boolean;
  verbose: boolean;
  /**
   * Tether extension: a live view on a terminal (`--live`; only from the command line, as an interactive
   * mode is never a default: spec §6.1). Ignored when stdout is not a terminal or the output is JSON.
   */
  live: boolean;
  /** Tether extension: the local task store's directory. */
  store: string;
  /** Warnings to print once the run starts (a transport Tether cannot speak …). */
  warnings: string[];
}

/** The raw global flags as commander parsed them. */
export interface GlobalFlags {
  agentCard?: string | undefined;
  output?: string | undefined;
  transport?: string[] | undefined;
  a2aVersion?: string | undefined;
  svcParam?: string[] | undefined;
  bearer?: string | undefined;
  apiKey?: string | undefined;
  debug?: boolean | undefined;
  verbose?: boolean | undefined;
  live?: boolean | undefined;
  config?: string | undefined;
  store?: string | undefined;
}

const BINDINGS: Readonly<Record<string, Binding | 'GRPC'>> = {
  JSONRPC: 'JSONRPC',
  'JSON-RPC': 'JSONRPC',
  'HTTP+JSON': 'HTTP+JSON',
  REST: 'HTTP+JSON',
  HTTPJSON: 'HTTP+JSON',
  GRPC: 'GRPC',
};

/** Maps `--transport` names (JSONRPC, HTTP+JSON, GRPC) to Tether's bindings, in order. */
export function parseTransports(names: readonly string[], warnings: string[]): Binding[] | undefined {
  if (names.length === 0) return undefined;
  const chosen: Binding[] = [];
  for (const name of names) {
    const binding = BINDINGS[name.trim().toUpperCase()];
    if (binding === undefined) throw CliError.usage(`--transport ${name}: unknown binding`, 'use JSONRPC, HTTP+JSON or GRPC');
    if (binding === 'GRPC') {
      warnings.push('gRPC is not supported by tether: --transport GRPC is skipped');
      continue;
    }
    if (!chosen.includes(binding)) chosen.push(binding);
  }
  // A binding the caller did not name stays usable after the named ones (spec §13.1: fall back to the card's order).
  for (const binding of ['JSONRPC', 'HTTP+JSON'] as const) if (!chosen.includes(binding)) chosen.push(binding);
  return chosen;
}

function parseVersion(value: string | undefined): ProtocolVersion[] {
  if (value === undefined) return ['1.0'];
  const v = value.trim().replace(/^v/i, '');
  if (v === '1.0' || v === '1') return ['1.0'];
  if (v === '0.3' || v === '0.3.0') return ['0.3'];
  throw CliError.usage(`--a2a-version ${value}: tether speaks 1.0 and 0.3`, 'use --a2a-version 1.0 (the default) or --a2a-version 0.3 for legacy agents');
}

function parseSvcParams(values: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const value of values) {
    const colon = value.indexOf(':');
    if (colon <= 0) throw CliError.usage(`--svc-param ${value.split(':')[0] ?? ''}: expected key:value`, 'for example --svc-param x-trace-id:abc123');
    out[value.slice(0, colon).trim()] = value.slice(colon + 1).trim();
  }
  return out;
}

/** Resolves the global options from the flags and the configuration layers. */
export function resolveGlobals(flags: GlobalFlags, settings: Settings): GlobalOptions {
  const warnings: string[] = [];
  const output = settings.string('OUTPUT', flags.output) ?? 'text';
  if (output !== 'text' && output !== 'json') throw CliError.usage(`--output ${output}: expected text or json`);
  return {
    agentCard: settings.string('AGENT_CARD', flags.agentCard),
    output,
    preferredBindings: parseTransports(settings.list('TRANSPORT', flags.transport), warnings),
    protocolVersions: parseVersion(settings.string('A2A_VERSION', flags.a2aVersion)),
    svcParams: parseSvcParams(settings.list('SVC_PARAM', flags.svcParam)),
    bearer: settings.string('BEARER', flags.bearer),
    apiKey: settings.string('API_KEY', flags.apiKey),
    debug: settings.boolean('DEBUG', flags.debug) ?? false,
    verbose: settings.boolean('VERBOSE', flags.verbose) ?? false,
    live: flags.live === true,
    store: settings.string('STORE', flags.store) ?? settings.defaultStoreDir(),
    warnings,
  };
}
