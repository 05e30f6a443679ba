import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { CliError } from '../errors/cli-error.js';
import { parseDotenv } from './dotenv.js';

// The CLI's configuration: the only module that reads process.env. Every option that may come from
// the environment or a file is named A2ACLI_<FLAG IN UPPER SNAKE CASE>. Precedence, highest first:
// flag > environment > local file (a `.env` found walking up from the working directory, or --config)
// > global file (~/.config/a2a-cli/.env) > built-in default. --stream, --help and --version are
// never read from either.

/** Where one effective value came from. */
export type SettingSource = 'flag' | 'env' | 'local' | 'global' | 'default';

/** The environment and files the settings are read from (tests pass their own). */
export interface SettingsInput {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** `--config <path>`: replaces the local `.env`. */
  configPath?: string | undefined;
}

/** The configuration layers below the flags. */
export class Settings {
  private constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly local: Map<string, string>,
    private readonly global: Map<string, string>,
    /** The files read, for --debug and `config show`. */
    readonly files: readonly string[],
    /** Files holding credentials that others can read (their mode is not 0600). */
    readonly warnings: readonly string[],
  ) {}

  /** Reads the layers: `~/.config/a2a-cli/.env`, then `--config <path>` or the nearest local `.env`. */
  static load(input: SettingsInput): Settings {
    const files: string[] = [];
    const home = input.env['HOME'] || homedir();
    const globalPath = join(home, '.config', 'a2a-cli', '.env');
    const global = readEnvFile(globalPath, false, files);
    let local: Map<string, string>;
    if (input.configPath !== undefined) {
      local = readEnvFile(resolve(input.cwd, input.configPath), true, files);
    } else {
      const found = findUp(input.cwd, '.env', globalPath);
      local = found ? readEnvFile(found, false, files) : new Map();
    }
    const warnings = files.filter(exposesSecrets).map((file) => `${file} holds credentials and is readable by others: chmod 600 ${file}`);
    return new Settings(input.env, local, global, files, warnings);
  }

  /** The value of `A2ACLI_<name>` below the flag, and its source; `undefined` when no layer sets it. */
  lookup(name: string): { value: string; source: SettingSource } | undefined {
    const key = `A2ACLI_${name}`;
    const env = this.env[key];
    if (env !== undefined && env !== '') return { value: env, source: 'env' };
    const local = this.local.get(key);
    if (local !== undefined && local !== '') return { value: local, source: 'local' };
    const global = this.global.get(key);
    if (global !== undefined && global !== '') return { value: global, source: 'global' };
    return undefined;
  }

  /** A string option: the flag, else the layers, else `fallback`. */
  string(name: string, flag: string | undefined): string | undefined {
    return flag ?? this.lookup(name)?.value;
  }

  /** A boolean option (`1`, `true`, `yes`, `on` are true; `0`, `false`, `no`, `off` false). */
  boolean(name: string, flag: boolean | undefined): boolean | undefined {
    if (flag !== undefined) return flag;
    const found = this.lookup(name);
    if (!found) return undefined;
    const value = found.value.trim().toLowerCase();
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    throw CliError.usage(`A2ACLI_${name}=${found.value} (from ${found.source}) is not a boolean`, 'use true or false');
  }

  /** A repeatable option: the flags, else a comma-separated value of the layers. */
  list(name: string, flags: readonly string[] | undefined): string[] {
    if (flags && flags.length > 0) return [...flags];
    const found = this.lookup(name);
    return found ? found.value.split(',').map((v) => v.trim()).filter((v) => v !== '') : [];
  }

  /** The state directory for Tether's local task store: `$XDG_STATE_HOME/tether/tasks`, else `~/.local/state/tether/tasks`. */
  defaultStoreDir(): string {
    const state = this.env['XDG_STATE_HOME'];
    const base = state && state !== '' ? state : join(this.env['HOME'] || homedir(), '.local', 'state');
    return join(base, 'tether', 'tasks');
  }
}

const SECRET_KEYS = /^\s*(export\s+)?A2ACLI_(BEARER|API_KEY|SVC_PARAM)\s*=/m;

/** A `.env` file with a credential in it whose mode lets the group or others read it. */
function exposesSecrets(path: string): boolean {
  try {
    return process.platform !== 'win32' && (statSync(path).mode & 0o077) !== 0 && SECRET_KEYS.test(readFileSync(path, 'utf8'));
  } catch {
    return false;
  }
}

function readEnvFile(path: string, required: boolean, files: string[]): Map<string, string> {
  if (!existsSync(path)) {
    if (required) throw CliError.usage(`--config ${path}: no such file`, 'check the path of the .env file');
    return new Map();
  }
  try {
    const values = parseDotenv(readFileSync(path, 'utf8'));
    files.push(path);
    return values;
  } catch (error) {
    if (required) throw CliError.usage(`--config ${path}: cannot read it (${(error as Error).message})`, 'check the file and its permissions');
    return new Map();
  }
}

/** The nearest `name` in `from` or a parent directory (never the global file itself). */
function findUp(from: string, name: string, skip: string): string | undefined {
  let dir = resolve(from);
  for (;;) {
    const candidate = join(dir, name);
    if (candidate !== skip && existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

/** The process's own environment and directory: read here and nowhere else. */
export function processSettingsInput(configPath: string | undefined): SettingsInput {
  return { env: process.env, cwd: process.cwd(), configPath };
}
