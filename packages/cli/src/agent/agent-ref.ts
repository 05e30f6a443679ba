import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CliError } from '../errors/cli-error.js';

/** Where the agent card comes from: a URL to fetch, or a card read from a local file. */
export type CardSource =
  | { kind: 'url'; url: string }
  /** `baseUrl`: the card's first interface URL, which relative URLs resolve against and the SSRF guard judges. */
  | { kind: 'file'; path: string; card: Record<string, unknown>; baseUrl: string };

const LOCAL_HOSTS = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?(\/|$)/i;

/**
 * Reads `-a/--agent-card`: a full http(s) URL is used as is (Tether appends the well-known path to a
 * bare origin and falls back to `agent.json`); a bare host gets `https://` (`http://` for localhost);
 * a `file://` URL or an existing path is read as the card itself.
 */
export function parseAgentRef(ref: string, cwd: string): CardSource {
  const trimmed = ref.trim();
  if (trimmed === '') throw CliError.usage('--agent-card is empty', 'pass the agent: -a https://agent.example.com');
  if (/^file:/i.test(trimmed)) return readCardFile(fileURLToPath(trimmed));
  if (/^https?:\/\//i.test(trimmed)) return { kind: 'url', url: trimmed };
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed)) {
    throw CliError.usage(`--agent-card ${trimmed}: only http(s) URLs, file:// URLs and paths are supported`);
  }
  const path = resolve(cwd, trimmed);
  if (existsSync(path) || trimmed.startsWith('.') || trimmed.startsWith('/') || trimmed.endsWith('.json')) return readCardFile(path);
  return { kind: 'url', url: `${LOCAL_HOSTS.test(trimmed) ? 'http' : 'https'}://${trimmed}` };
}

function readCardFile(path: string): CardSource {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliError('A2ACLI_ERR_CARD_NOT_FOUND', `no agent card at ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, 'check the path of the card file', { cause: error });
  }
  let card: unknown;
  try {
    card = JSON.parse(text);
  } catch (error) {
    throw new CliError('A2ACLI_ERR_CARD_INVALID', `the agent card at ${path} is not JSON: ${(error as Error).message}`, 'check the file: it must hold the agent card JSON', { cause: error });
  }
  if (typeof card !== 'object' || card === null || Array.isArray(card)) {
    throw new CliError('A2ACLI_ERR_CARD_INVALID', `the agent card at ${path} is not a JSON object`, 'check the file: it must hold the agent card JSON');
  }
  const record = card as Record<string, unknown>;
  const first = Array.isArray(record['supportedInterfaces']) ? (record['supportedInterfaces'][0] as { url?: unknown } | undefined)?.url : record['url'];
  if (typeof first !== 'string' || !/^https?:\/\//i.test(first)) {
    throw new CliError('A2ACLI_ERR_CARD_INVALID', `the agent card at ${path} names no http(s) interface URL`, 'a card file needs absolute interface URLs (supportedInterfaces[].url, or url in v0.3)');
  }
  return { kind: 'file', path, card: record, baseUrl: first };
}
