import { LazyModule } from '../util/lazy-module.js';
import type * as EngineModule from './engine.js';

/** The task engine's entry (engine.ts). */
export type Engine = typeof EngineModule;

/**
 * The task engine (the follow loop, its reducer, the reconciler, the tab link …): most of what a web app
 * would load before its first request, and nothing needs it before the card is read. `connect()` starts
 * loading it as it asks for the card, so its chunk arrives during that round trip (D26). Node and core
 * take the same path: one way in, whatever the platform.
 */
export const taskEngine = new LazyModule<Engine>("Tether's task engine", () => import('./engine.js'));
