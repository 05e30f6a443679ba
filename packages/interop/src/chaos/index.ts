export { replayCommand, runChaos } from './run-chaos.js';
export type { ChaosFailure, ChaosOptions, ChaosReport, ChaosRequest, ChaosTargetReport, ChaosTaskRecord } from './run-chaos.js';
export { formatChaosReport } from './report.js';
export { allChaosTargets, CHAOS_BEHAVIOURS, startBackend } from './targets.js';
export type { ChaosAgentKind, ChaosBackend, ChaosTarget } from './targets.js';
export { checkTask, describeEvent, describeServerTask, rebuildArtifacts, textOf } from './checks.js';
export type { TaskPlan, TaskRun } from './checks.js';
export { deriveSeed, seededRandom } from './seeded.js';
export { quietOfficialServers } from './quiet.js';
