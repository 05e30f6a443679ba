export { startTestAgent } from './agent/test-agent.js';
export type { TestAgent, TestTaskView } from './agent/test-agent.js';
export { TEST_AGENT_DEFAULTS } from './agent/options.js';
export { STRICT_CORS } from './agent/cors.js';
export type { TestAgentCors } from './agent/cors.js';
export type {
  TestAgentAuth,
  TestAgentBehaviour,
  TestAgentBinding,
  TestAgentOptions,
  TestAgentVersion,
} from './agent/options.js';
export { ScenarioError, parseScenarioCommand } from './agent/scenario.js';
export type {
  ScenarioArtifactInput,
  ScenarioCommand,
  ScenarioContext,
  ScenarioFn,
  ScenarioStatusOptions,
} from './agent/scenario.js';
export { BUILT_IN_SCENARIOS } from './agent/scenarios.js';
export { MISBEHAVIOURS, MISBEHAVIOUR_NAMES, SUBSCRIBE_REFUSALS } from './agent/misbehaviour.js';
export type { Misbehaviour, MisbehaviourParams, SubscribeRefusal } from './agent/misbehaviour.js';
export { A2A_ERROR_CODES } from './agent/agent-error.js';
export type { RecordedRequest } from './agent/recorded-request.js';
export type { TestLongPoll } from './agent/operations.js';
export type {
  TestArtifact,
  TestMessage,
  TestPart,
  TestPushConfig,
  TestTaskRecord,
  TestTaskState,
  TestTaskStatus,
} from './agent/model.js';
export { startActionService } from './action/action-service.js';
export type { ActionService, ActionServiceOptions, PerformedAction } from './action/action-service.js';
export { IDEMPOTENCY_KEY_METADATA, REVISION_METADATA, actionScenario, lateScenario } from './action/action-scenarios.js';
export type { ActionScenarioOptions, LateScenarioOptions, ScenarioCost } from './action/action-scenarios.js';
export { startFaultProxy } from './proxy/fault-proxy.js';
export { startTcpProxy } from './proxy/tcp-proxy.js';
export { freePort, redisServerAvailable, startRedisServer } from './redis/redis-server.js';
export type { RedisServer, RedisServerOptions } from './redis/redis-server.js';
export type { TcpCut, TcpProxy, TcpProxyOptions, TcpProxyStats } from './proxy/tcp-proxy.js';
export { SeededRandom } from './proxy/seeded-random.js';
export type { FaultProxy, FaultProxyOptions } from './proxy/fault-proxy.js';
export type {
  CutFault,
  DelayHeadersFault,
  DripFault,
  DropRequestFault,
  FaultRule,
  FaultRuleCommon,
  LoseAnswerFault,
  StallFault,
  StatusFault,
} from './proxy/fault-rule.js';
export type { FaultMatch } from './proxy/fault-match.js';
export type { CutWithin } from './proxy/cut-point.js';
export { CHAOS_DEFAULTS } from './proxy/chaos.js';
export type { ChaosOptions } from './proxy/chaos.js';
export type { FaultProxyLogEntry, FaultProxyStats } from './proxy/proxy-stats.js';
export { ManualScheduler } from './clock/manual-scheduler.js';
export type { SchedulerLike } from './clock/manual-scheduler.js';
export { createScaledScheduler } from './clock/scaled-scheduler.js';
export type { ScaledScheduler, ScaledSchedulerOptions } from './clock/scaled-scheduler.js';
export { contractTaskKey, runTaskStoreContract, taskStoreContract } from './store-contract.js';
export { runWorkflowStoreContract, workflowStoreContract } from './workflow-store-contract.js';
export type { ContractLease, ContractWorkflowRecord, WorkflowStoreContractCase, WorkflowStoreContractOptions, WorkflowStoreLike } from './workflow-store-contract.js';
export type {
  ContractListFilter,
  ContractTaskRecord,
  ContractTestFramework,
  StoreCorruption,
  TaskStoreContractCase,
  TaskStoreContractOptions,
  TaskStoreLike,
} from './store-contract.js';
export { startWebSocketAgent } from './websocket/ws-agent.js';
export type { WebSocketAgent, WebSocketAgentOptions } from './websocket/ws-agent.js';
