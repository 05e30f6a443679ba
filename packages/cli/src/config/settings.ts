import { closeSync, constants, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { CliError } from '../errors/cli-error.js';
import { parseDotenv } from './dotenv.js';
import { distrustOf, MAX_ENV_FILE_BYTES } from './env-file-trust.js';

// The CLI's configuration: the only module that reads process.env. Every option that may come from
// the environment or a file is named A2ACLI_<FLAG IN UPPER SNAKE CASE>. Precedence, highest first:
// flag > environment > local file (a `.env` found walking up from the working directory, or --config)
// > global file (~/.config/a2a-cli/.env) > built-in default. --stream, --help and --version are
// never read from either. A `.env` file is read only when it is the user's (or root's) and neither its
// group nor others can write it (config/env-file-trust.ts): a file planted in a shared parent directory
// must not send the user's credentials to the agent it names.

/** Where one effective value came from. */
export type SettingSource = 'flag' | 'env' | 'local' | 'global' | 'default';

/** The environment and files the settings are read from (tests pass their own). */
export interface SettingsInput {
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  /** `--config <path>`: replaces the local `.env`. */
  configPath?: string | undefined;
  /**
   * The uid of the user running the CLI: a `.env` file owned by anyone else but root, or that its
   * group or others can write, is ignored. `undefined` (Windows: no POSIX owners) skips that check.
   */
  uid?: number | undefined;
}

/** The configuration layers below the flags. */
export class Settings {
  private constructor(
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly local: Map<string, string>,
    private readonly global: Map<string, string>,
    /** The files read, for --debug and `config show`. */
    readonly files: readonly string[],
    /** Files ignored (not the user's, writable by others …) and files holding credentials that others can read. */
    readonly warnings: readonly string[],
  ) {}

  /**
   * Reads the layers: `$HOME/.config/a2a-cli/.env`, then `--config <path>`, or else the nearest `.env`
   * walking up from the working directory to the root (the first that exists; only that one). A file
   * that fails the trust rule is ignored with a warning (`--config`'s: a usage error).
   */
  static load(input: SettingsInput): Settings {
    const read: ReadFiles = { uid: input.uid, files: [], warnings: [] };
    const home = input.env['HOME'] || homedir();
    const globalPath = join(home, '.config', 'a2a-cli', '.env');
    const global = readEnvFile(globalPath, false, read);
    let local: Map<string, string>;
    if (input.configPath !== undefined) {
      local = readEnvFile(resolve(input.cwd, input.configPath), true, read);
    } else {
      const found = findUp(input.cwd, '.env', globalPath);
      local = found ? readEnvFile(found, false, read) : new Map();
    }
    return new Settings(input.env, local, global, read.files, read.warnings);
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

/** What reading the configuration files collects. */
interface ReadFiles {
  uid: number | undefined;
  /** The files read, in order. */
  files: string[];
  warnings: string[];
}

/** The file's text, at most `MAX_ENV_FILE_BYTES` + 1 bytes of it (read from the descriptor its facts came from). */
function readText(fd: number): { text: string; over: boolean } {
  const buffer = Buffer.allocUnsafe(MAX_ENV_FILE_BYTES + 1);
  let length = 0;
  for (;;) {
    const n = readSync(fd, buffer, length, buffer.length - length, null);
    length += n;
    if (n === 0 || length === buffer.length) break;
  }
  return { text: buffer.subarray(0, length).toString('utf8'), over: length > MAX_ENV_FILE_BYTES };
}

/**
 * Reads one `.env` file when the trust rule allows it. The file is opened first (non-blocking: a FIFO
 * never hangs the run) and its owner, mode, kind and size are read from that descriptor, which is the
 * one read: a file swapped in after the check is never the file read.
 */
function readEnvFile(path: string, required: boolean, read: ReadFiles): Map<string, string> {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (required) throw code === 'ENOENT' ? CliError.usage(`--config ${path}: no such file`, 'check the path of the .env file') : CliError.usage(`--config ${path}: cannot read it (${(error as Error).message})`, 'check the file and its permissions');
    return new Map();
  }
  try {
    const stats = fstatSync(fd);
    // A directory named .env (a Python virtualenv, often) is not a configuration file: skipped quietly.
    if (stats.isDirectory()) {
      if (required) throw CliError.usage(`--config ${path}: a directory`, 'name a .env file');
      return new Map();
    }
    let why = distrustOf({ uid: stats.uid, mode: stats.mode, isFile: stats.isFile(), size: stats.size }, read.uid);
    const { text, over } = why === undefined ? readText(fd) : { text: '', over: false };
    if (over) why = `larger than ${MAX_ENV_FILE_BYTES} bytes`;
    if (why !== undefined) {
      if (required) throw CliError.usage(`--config ${path}: ${why}`, 'use a file of your own that only you can write (chmod 600)');
      read.warnings.push(`ignoring ${path}: ${why}`);
      return new Map();
    }
    read.files.push(path);
    if (read.uid !== undefined && (stats.mode & 0o077) !== 0 && SECRET_KEYS.test(text)) {
      read.warnings.push(`${path} holds credentials and is readable by others: chmod 600 ${path}`);
    }
    return parseDotenv(text);
  } catch (error) {
    if (error instanceof CliError) throw error;
    if (required) throw CliError.usage(`--config ${path}: cannot read it (${(error as Error).message})`, 'check the file and its permissions');
    return new Map();
  } finally {
    closeSync(fd);
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
  return { env: process.env, cwd: process.cwd(), configPath, uid: process.getuid?.() };
}
