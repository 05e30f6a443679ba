import type { Logger } from './log-plugin.js';

/** The logger the environment variable `TETHER_DEBUG=1` (Node, Bun, Deno) or `localStorage.tetherDebug` (a page) turns on. */
export function debugLogger(): Logger | undefined {
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env?.['TETHER_DEBUG'];
  let stored: string | null | undefined;
  try {
    stored = (globalThis as { localStorage?: { getItem(key: string): string | null } }).localStorage?.getItem('tetherDebug');
  } catch {
    stored = undefined; // storage refused (a sandboxed frame)
  }
  const on = (value: string | null | undefined): boolean => value !== undefined && value !== null && value !== '' && value !== '0' && value !== 'false';
  return on(env) || on(stored) ? console : undefined;
}
