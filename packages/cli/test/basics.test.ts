import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startTestAgent, type TestAgent } from '@a2a-tether/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VERSION } from '../src/version.js';
import { sandbox, type Sandbox } from './run-tether.js';

let agent: TestAgent;
let secured: TestAgent;
let box: Sandbox;

beforeAll(async () => {
  agent = await startTestAgent();
  secured = await startTestAgent({ auth: { bearer: ['s3cret-token-123'] } });
  box = sandbox();
});
afterAll(async () => {
  await agent?.close();
  await secured?.close();
  box?.remove();
});

describe('the tool surface', () => {
  it('-v prints the version of package.json', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };
    expect(VERSION).toBe(pkg.version);
    const run = await box.run(['-v']);
    expect(run).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
  });

  it('help and --help print usage with the effective defaults, exit 0', async () => {
    const help = await box.run(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Defaults (each overridable by its flag)');
    expect(help.stdout).toContain('Tether extensions');
    const sendHelp = await box.run(['help', 'send']);
    expect(sendHelp.code).toBe(0);
    expect(sendHelp.stdout).toContain('--media-type');
    const resumeHelp = await box.run(['task', 'resume', '--help']);
    expect(resumeHelp.stdout).toContain('[Tether extension]');
  });

  it('usage errors exit 2 with A2ACLI_ERR_USAGE, in text and json', async () => {
    const unknown = await box.run(['send', '--bogus']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Error: .*\nCode: A2ACLI_ERR_USAGE\n/);
    expect(unknown.stdout).toBe('');
    const media = await box.run(['send', '-a', agent.url, '-o', 'json', '--media-type', 'text/plain', '--text', 'hi']);
    expect(media.code).toBe(2);
    expect(JSON.parse(media.stdout)).toMatchObject({ error: { code: 'A2ACLI_ERR_USAGE', a2aCode: null } });
    const noAgent = await box.run(['card', 'get']);
    expect(noAgent.code).toBe(2);
    expect(noAgent.stderr).toContain('A2ACLI_AGENT_CARD');
    const noParts = await box.run(['send', '-a', agent.url]);
    expect(noParts.code).toBe(2);
    const both = await box.run(['send', '-a', agent.url, '--async', '--stream', '--text', 'x']);
    expect(both.code).toBe(2);
  });
});

describe('completion', () => {
  it('bash: the script completes subcommands and flags by command path; an unknown shell is a usage error', async () => {
    const run = await box.run(['completion', 'bash']);
    expect(run.code).toBe(0);
    mkdirSync(box.home, { recursive: true });
    writeFileSync(join(box.home, 'tether-completion.sh'), run.stdout);
    const complete = (words: string[]): string =>
      execFileSync('bash', ['-c', `source "$0"; COMP_WORDS=(${words.join(' ')}); COMP_CWORD=${words.length - 1}; _tether_complete; echo "\${COMPREPLY[@]}"`, join(box.home, 'tether-completion.sh')], { encoding: 'utf8' }).trim();
    expect(complete(['tether', 'task', 'pu'])).toBe('push-config');
    expect(complete(['tether', '-a', 'x', 'task', 'push-config', 'c'])).toBe('create');
    expect(complete(['tether', 'send', '--med'])).toBe('--media-type');
    const zsh = await box.run(['completion', 'zsh']);
    expect(zsh.stdout).toMatch(/^autoload -U \+X bashcompinit/);
    const fish = await box.run(['completion', 'fish']);
    expect(fish.code).toBe(2);
  });
});

describe('card get', () => {
  it('text: one Label: value per line, no control sequences', async () => {
    const run = await box.run(['card', 'get', '-a', agent.url]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Card URL: ${agent.cardUrl}`);
    expect(run.stdout).toContain('Streaming: true');
    expect(run.stdout).toMatch(/^Interface: JSONRPC 1\.0 /m);
    for (const line of run.stdout.trimEnd().split('\n')) expect(line).toMatch(/^[A-Z][A-Za-z ]+: /);
    // eslint-disable-next-line no-control-regex
    expect(run.stdout).not.toMatch(/\u001b/);
  });

  it('-o json is the card as served; --validate passes a good card', async () => {
    const run = await box.run(['card', 'get', '-a', agent.cardUrl, '-o', 'json', '--validate']);
    expect(run.code).toBe(0);
    const served = (await (await fetch(agent.cardUrl)).json()) as Record<string, unknown>;
    expect(JSON.parse(run.stdout)).toEqual(served);
  });

  it('reads a card file (path and file:// URL) and a bare host', async () => {
    const served = (await (await fetch(agent.cardUrl)).json()) as Record<string, unknown>;
    const file = join(box.cwd, 'card.json');
    mkdirSync(box.cwd, { recursive: true });
    writeFileSync(file, JSON.stringify(served));
    for (const ref of ['card.json', `file://${file}`, `127.0.0.1:${agent.port}`]) {
      const run = await box.run(['card', 'get', '-a', ref, '-o', 'json']);
      expect(run.code, ref).toBe(0);
      expect(JSON.parse(run.stdout)['name']).toBe(served['name']);
    }
  });

  it('--validate names each missing field (exit 1, A2ACLI_ERR_CARD_INVALID)', async () => {
    const served = (await (await fetch(agent.cardUrl)).json()) as Record<string, unknown>;
    const broken = { ...served };
    delete broken['skills'];
    delete broken['description'];
    writeFileSync(join(box.cwd, 'broken.json'), JSON.stringify(broken));
    const run = await box.run(['card', 'get', '-a', './broken.json', '--validate', '-o', 'json']);
    expect(run.code).toBe(1);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; message: string } };
    expect(error.code).toBe('A2ACLI_ERR_CARD_INVALID');
    expect(error.message).toContain('skills');
    expect(error.message).toContain('description');
  });

  it('--extended on a card that offers none: ExtendedAgentCardNotConfiguredError, no request', async () => {
    agent.requests.length = 0;
    const run = await box.run(['card', 'get', '-a', agent.url, '--extended', '-o', 'json']);
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).error.code).toBe('ExtendedAgentCardNotConfiguredError');
  });
});

describe('exit codes 3 and 4', () => {
  let closed: Server;
  let port: number;
  beforeAll(async () => {
    closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
  });

  it('a refused connection: exit 3, A2ACLI_ERR_UNREACHABLE, a hint asking whether the agent runs', async () => {
    const run = await box.run(['card', 'get', '-a', `http://127.0.0.1:${port}`, '-o', 'json']);
    expect(run.code).toBe(3);
    const { error } = JSON.parse(run.stdout) as { error: { code: string; hint: string } };
    expect(error.code).toBe('A2ACLI_ERR_UNREACHABLE');
    expect(error.hint).toContain('is the agent running');
  });

  it('no card at the reference: exit 3, A2ACLI_ERR_CARD_NOT_FOUND', async () => {
    const run = await box.run(['card', 'get', '-a', './missing-card.json']);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('Code: A2ACLI_ERR_CARD_NOT_FOUND');
  });

  it('credentials missing, then rejected: exit 4 with the matching code', async () => {
    const missing = await box.run(['send', '-a', secured.url, '--text', 'echo hi', '-o', 'json']);
    expect(missing.code).toBe(4);
    const missingError = JSON.parse(missing.stdout).error as { code: string; hint: string };
    expect(missingError.code).toBe('A2ACLI_ERR_CREDENTIALS_MISSING');
    expect(missingError.hint).toContain('--bearer');
    const wrong = await box.run(['send', '-a', secured.url, '--text', 'echo hi', '-o', 'json', '--bearer', 'wrong-token-999']);
    expect(wrong.code).toBe(4);
    expect(JSON.parse(wrong.stdout).error.code).toBe('A2ACLI_ERR_AUTH_FAILED');
    expect(wrong.stdout + wrong.stderr).not.toContain('wrong-token-999');
  });
});

describe('configuration: flag > env > local .env > global .env > default', () => {
  it('takes each layer in order, and --config replaces the local file', async () => {
    const other = sandbox();
    try {
      mkdirSync(join(other.home, '.config', 'a2a-cli'), { recursive: true });
      mkdirSync(join(other.cwd, 'deep', 'er'), { recursive: true });
      // The global file names an agent that does not exist; the local one the secured agent with a wrong token.
      writeFileSync(join(other.home, '.config', 'a2a-cli', '.env'), `A2ACLI_AGENT_CARD=http://127.0.0.1:9\nA2ACLI_OUTPUT=json\n`);
      const globalOnly = await other.run(['card', 'get'], { cwd: join(other.cwd, 'deep', 'er') });
      expect(globalOnly.code).toBe(3);
      expect(JSON.parse(globalOnly.stdout).error.code).toBe('A2ACLI_ERR_UNREACHABLE');

      writeFileSync(join(other.cwd, '.env'), `# local\nA2ACLI_AGENT_CARD="${secured.url}"\nA2ACLI_BEARER=wrong-local-token\n`);
      const local = await other.run(['send', '--text', 'echo hi'], { cwd: join(other.cwd, 'deep', 'er') });
      expect(local.code).toBe(4);
      expect(JSON.parse(local.stdout).error.code).toBe('A2ACLI_ERR_AUTH_FAILED');

      const env = await other.run(['send', '--text', 'echo hi'], { cwd: join(other.cwd, 'deep', 'er'), env: { A2ACLI_BEARER: 's3cret-token-123' } });
      expect(env.code).toBe(0);
      expect(JSON.parse(env.stdout)).toMatchObject({ message: { role: 'ROLE_AGENT' } });

      const flag = await other.run(['send', '--text', 'echo hi', '--bearer', 'wrong-flag-token'], { cwd: join(other.cwd, 'deep', 'er'), env: { A2ACLI_BEARER: 's3cret-token-123' } });
      expect(flag.code).toBe(4);

      writeFileSync(join(other.cwd, 'agent.env'), `A2ACLI_AGENT_CARD=${agent.url}\nA2ACLI_OUTPUT=text\n`);
      const explicit = await other.run(['card', 'get', '--config', '../../agent.env'], { cwd: join(other.cwd, 'deep', 'er') });
      expect(explicit.code).toBe(0);
      expect(explicit.stdout).toContain(`Card URL: ${agent.cardUrl}`);
    } finally {
      other.remove();
    }
  });

  it('config show: each effective value with its source, secrets masked', async () => {
    const other = sandbox();
    try {
      mkdirSync(join(other.home, '.config', 'a2a-cli'), { recursive: true });
      mkdirSync(other.cwd, { recursive: true });
      writeFileSync(join(other.home, '.config', 'a2a-cli', '.env'), 'A2ACLI_TIMEOUT=30s\nA2ACLI_OUTPUT=text\n');
      writeFileSync(join(other.cwd, '.env'), 'A2ACLI_OUTPUT=json\nA2ACLI_BEARER=file-secret-777\n');
      chmodSync(join(other.cwd, '.env'), 0o644);
      const run = await other.run(['config', 'show', '-a', agent.url], { env: { A2ACLI_POLL_INTERVAL: '5s' } });
      expect(run.code).toBe(0);
      const shown = JSON.parse(run.stdout) as { files: string[]; settings: { variable: string; value: string | null; source: string }[] };
      const by = new Map(shown.settings.map((s) => [s.variable, s]));
      expect(by.get('A2ACLI_AGENT_CARD')).toMatchObject({ value: agent.url, source: 'flag' });
      expect(by.get('A2ACLI_POLL_INTERVAL')).toMatchObject({ value: '5s', source: 'env' });
      expect(by.get('A2ACLI_OUTPUT')).toMatchObject({ value: 'json', source: 'local' });
      expect(by.get('A2ACLI_TIMEOUT')).toMatchObject({ value: '30s', source: 'global' });
      expect(by.get('A2ACLI_A2A_VERSION')).toMatchObject({ value: '1.0', source: 'default' });
      expect(by.get('A2ACLI_BEARER')).toMatchObject({ value: '(set)', source: 'local' });
      expect(run.stdout).not.toContain('file-secret-777');
      expect(shown.files).toHaveLength(2);
      // The local file holds a bearer token and others may read it (0644): a warning names it.
      expect(run.stderr).toContain(`Warning: ${join(other.cwd, '.env')} holds credentials and is readable by others: chmod 600`);
    } finally {
      other.remove();
    }
  });

  it('--stream is never read from the environment', async () => {
    const run = await box.run(['send', '-a', agent.url, '--text', 'stream updates=2 chunks=2 delayMs=1', '-o', 'json'], { env: { A2ACLI_STREAM: 'true' } });
    expect(run.code).toBe(0);
    // One document, not JSON Lines.
    expect(JSON.parse(run.stdout)).toHaveProperty('task');
  });
});

describe('--debug', () => {
  it('writes Tether\'s debug log to stderr and never a credential or service parameter value', async () => {
    const run = await box.run(
      ['send', '-a', secured.url, '--text', 'stream updates=1 chunks=2 delayMs=1', '--debug', '--svc-param', 'x-trace-key:svc-value-4567', '-o', 'json'],
      { env: { A2ACLI_BEARER: 's3cret-token-123' } },
    );
    expect(run.code).toBe(0);
    expect(run.stderr).toContain('[tether debug]');
    expect(run.stderr).toMatch(/\[tether debug\] → SendStreamingMessage POST /);
    // The protocol messages received, as JSON.
    expect(run.stderr).toMatch(/← SendStreamingMessage #\d+ event \{"statusUpdate":\{.*"TASK_STATE_COMPLETED"/);
    expect(run.stderr + run.stdout).not.toContain('s3cret-token-123');
    expect(run.stderr + run.stdout).not.toContain('svc-value-4567');
    // The service parameter did travel, as a header.
    const sent = secured.requests.find((r) => r.headers['x-trace-key'] !== undefined);
    expect(sent?.headers['x-trace-key']).toBe('svc-value-4567');
  });
});
