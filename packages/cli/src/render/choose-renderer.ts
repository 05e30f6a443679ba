import type { CliIO } from '../io.js';
import type { OutputFormat } from '../agent/global-options.js';
import { JsonRenderer } from './json-renderer.js';
import type { Renderer, RendererOptions } from './renderer.js';
import { TextRenderer } from './text-renderer.js';

/**
 * The one place a follow's renderer is chosen. Output is the same whatever stdout is (spec §6.1):
 * a live terminal view (packages/cli/src/live/, to come) is to be chosen here, for text output to a
 * TTY only, and must degrade to {@link TextRenderer} everywhere else.
 */
export function chooseRenderer(format: OutputFormat, io: CliIO, options: RendererOptions): Renderer {
  return format === 'json' ? new JsonRenderer(io, options) : new TextRenderer(io, options);
}
