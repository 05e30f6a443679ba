// The task engine's entry: what the client calls once `connect()` has loaded the engine's code
// (load-engine.ts). Everything else of task/ that following needs comes with it, in one chunk (D26).
export { followContext } from './engine-client.js';
export type { EngineHost, FollowSettings } from './engine-client.js';
export { startTask, resumeTask } from './start-task.js';
export { listRecords, watchRecords } from './records.js';
export { Observers } from '../observe/observers.js';
export { logPlugin, warnRootCard } from '../observe/log-plugin.js';
export { reattach } from './reattach.js';
// The raw streams' iteration (EventStream) comes with the engine, which connect() loads during the card request.
export { StreamIterator } from '../transport/stream-iterator.js';
