// React hooks for Tether (docs/browser.md): useAgent, useTask and useTasks on useSyncExternalStore.
export { TetherProvider, useAgent, useTask, useTasks, useTetherClient } from './hooks.js';
export type { AgentState, TaskState, TetherProviderProps } from './hooks.js';
export { startTask } from './agent-source.js';
export type { AgentSnapshot, TaskListSnapshot, UseAgentOptions } from './agent-source.js';
export type { TaskPause, TaskProgress, TaskSnapshot } from './task-source.js';
