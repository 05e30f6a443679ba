// @a2a-tether/cli — the `tether` command as a library: run it in-process, or plug in a renderer.
export { runCli } from './run.js';
export type { RunOptions } from './run.js';
export type { CliIO } from './io.js';
export type { SettingsInput, SettingSource } from './config/settings.js';
export type { Renderer, RendererOptions, FollowEnd } from './render/renderer.js';
export type { ErrorEnvelope } from './errors/envelope.js';
export type { CliErrorCode } from './errors/cli-error.js';
export { VERSION } from './version.js';
