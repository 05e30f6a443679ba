import type { CliIO } from '../io.js';
import type { OutputFormat } from '../agent/global-options.js';
import { JsonRenderer } from './json-renderer.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { TextRenderer } from './text-renderer.js';
import { LiveRenderer } from '../live/live-renderer.js';

/**
 * The one place a follow's renderer is chosen. Output is the same whatever stdout is (spec §6.1), except
 * with `--live` (a Tether extension, never a default): text output to a terminal then gets the live view
 * (packages/cli/src/live/), which reads a pause's answer from the keyboard; anywhere else `--live`
 * degrades to {@link TextRenderer}.
 */
export function chooseRenderer(format: OutputFormat, io: CliIO, options: RendererOptions): Renderer {
  if (format === 'json') return new JsonRenderer(io, options);
  const text = new TextRenderer(io, options);
  return options.live === true && io.isTTY ? new LiveRenderer({ output: process.stdout, input: process.stdin }, text) : text;
}
