import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../errors/cli-error.js';
import { Settings } from './settings.js';

// Which files the settings read, in which order, and which they ignore (the rule itself: env-file-trust.ts).

const uid = process.getuid?.();
const roots: string[] = [];
afterEach(() => {
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A home and a working directory three levels down (`a/b/c`), `.env` files written where asked. */
function layout(files: Record<string, { text: string; mode?: number }>): { root: string; home: string; cwd: string } {
  const root = mkdtempSync(join(tmpdir(), 'tether-settings-'));
  roots.push(root);
  const home = join(root, 'home');
  const cwd = join(root, 'a', 'b', 'c');
  mkdirSync(join(home, '.config', 'a2a-cli'), { recursive: true });
  mkdirSync(cwd, { recursive: true });
  for (const [path, { text, mode }] of Object.entries(files)) {
    writeFileSync(join(root, path), text);
    chmodSync(join(root, path), mode ?? 0o600);
  }
  return { root, home, cwd };
}

const load = (home: string, cwd: string, configPath?: string): Settings => Settings.load({ env: { HOME: home }, cwd, configPath, uid });

describe('Settings.load: the files read', () => {
  it('the global file, then the nearest .env walking up (only that one); the local one wins', () => {
    const { root, home, cwd } = layout({
      'home/.config/a2a-cli/.env': { text: 'A2ACLI_OUTPUT=json\nA2ACLI_TIMEOUT=9s\n' },
      'a/b/.env': { text: 'A2ACLI_OUTPUT=text\n' },
      'a/.env': { text: 'A2ACLI_TIMEOUT=1s\nA2ACLI_AGENT_CARD=http://farther\n' },
    });
    const settings = load(home, cwd);
    expect(settings.files).toEqual([join(home, '.config', 'a2a-cli', '.env'), join(root, 'a', 'b', '.env')]);
    expect(settings.lookup('OUTPUT')).toEqual({ value: 'text', source: 'local' });
    expect(settings.lookup('TIMEOUT')).toEqual({ value: '9s', source: 'global' });
    expect(settings.lookup('AGENT_CARD')).toBeUndefined();
    expect(settings.warnings).toEqual([]);
  });

  it.skipIf(uid === undefined)('a .env others can write is ignored with a warning, and the walk stops there', () => {
    const { root, home, cwd } = layout({
      'a/b/.env': { text: 'A2ACLI_AGENT_CARD=http://planted\n', mode: 0o666 },
      'a/.env': { text: 'A2ACLI_AGENT_CARD=http://farther\n' },
    });
    const settings = load(home, cwd);
    expect(settings.lookup('AGENT_CARD')).toBeUndefined();
    expect(settings.files).toEqual([]);
    expect(settings.warnings).toEqual([`ignoring ${join(root, 'a', 'b', '.env')}: others can write it (mode 0666)`]);
  });

  it.skipIf(uid === undefined)('the global file under the same rule', () => {
    const { home, cwd } = layout({ 'home/.config/a2a-cli/.env': { text: 'A2ACLI_AGENT_CARD=http://planted\n', mode: 0o620 } });
    const settings = load(home, cwd);
    expect(settings.lookup('AGENT_CARD')).toBeUndefined();
    expect(settings.warnings).toEqual([`ignoring ${join(home, '.config', 'a2a-cli', '.env')}: its group can write it (mode 0620)`]);
  });

  it('no uid (Windows): the mode is not checked', () => {
    const { home, cwd } = layout({ 'a/b/c/.env': { text: 'A2ACLI_OUTPUT=json\n', mode: 0o666 } });
    const settings = Settings.load({ env: { HOME: home }, cwd, uid: undefined });
    expect(settings.lookup('OUTPUT')).toEqual({ value: 'json', source: 'local' });
    expect(settings.warnings).toEqual([]);
  });

  it('a directory named .env (a virtualenv) is skipped quietly', () => {
    const { root, home, cwd } = layout({});
    mkdirSync(join(root, 'a', '.env'));
    const settings = load(home, cwd);
    expect(settings.files).toEqual([]);
    expect(settings.warnings).toEqual([]);
  });

  it('a file holding credentials that others can read: read, with the chmod 600 warning', () => {
    const { home, cwd } = layout({ 'a/b/c/.env': { text: 'A2ACLI_BEARER=t0ken-1234\n', mode: 0o644 } });
    const settings = load(home, cwd);
    expect(settings.lookup('BEARER')?.value).toBe('t0ken-1234');
    if (uid !== undefined) expect(settings.warnings).toEqual([`${join(cwd, '.env')} holds credentials and is readable by others: chmod 600 ${join(cwd, '.env')}`]);
  });

  it.skipIf(uid === undefined)('--config: a file that fails the rule, or is missing, is a usage error naming it', () => {
    const { root, home, cwd } = layout({ 'shared.env': { text: 'A2ACLI_AGENT_CARD=http://planted\n', mode: 0o666 } });
    const refused = (() => {
      try {
        load(home, cwd, join(root, 'shared.env'));
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(refused).toBeInstanceOf(CliError);
    expect((refused as CliError).code).toBe('A2ACLI_ERR_USAGE');
    expect((refused as CliError).message).toBe(`--config ${join(root, 'shared.env')}: others can write it (mode 0666)`);
    expect(() => load(home, cwd, 'missing.env')).toThrow(`--config ${join(cwd, 'missing.env')}: no such file`);
  });
});
