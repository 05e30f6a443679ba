// @a2a-tether/core — runtime-neutral. The user API: every public name is listed here on purpose.
// The protocol layer (codecs, card helpers) is the `@a2a-tether/core/protocol` subpath (protocol-entry.ts).
// @a2a-tether/node and @a2a-tether/browser re-export this list as is (decisions.md D11).

export { connect, connectWithParts } from './client/connect.js';
export type { EngineParts, LeaseRunner, PushRunner } from './task/follow-context.js';
export type { ConnectOptions, ExperimentalOptions } from './client/connect.js';
export { A2AClient } from './client/a2a-client.js';
export type { ReattachOptions } from './task/reattach.js';
export type {
  CallOptions,
  IdempotentCallOptions,
  SendOptions,
  GetTaskOptions,
  GetTaskCallOptions,
  CancelTaskOptions,
  ListTasksQuery,
  SubscribeOptions,
  Transport,
} from './transport/transport.js';
export { EventStream } from './transport/event-stream.js';
export type { StreamItem, EventFeed } from './transport/event-feed.js';
// Bindings of your own (`connect(url, { bindings })`); `eventFeed` is in ./protocol beside the codecs.
export type { CustomBinding, BindingContext } from './transport/custom-binding.js';
export type { EventFeedOptions } from './transport/iterable-feed.js';
export { toMessage, randomId } from './model/message-input.js';
export type { MessageInput } from './model/message-input.js';
export { DEFAULTS } from './defaults.js';
export { RESILIENCE_DEFAULTS } from './task/resilience.js';
export type { ResilienceOptions } from './task/resilience.js';

export type { TaskHandle, ReplyOptions } from './task/task-handle.js';
export type { CancelOutcome, CancelOptions, FollowOptions } from './task/follower.js';
export type { Resend } from './task/delivery.js';
export type { StartOptions, ResumeOptions } from './task/start-task.js';
export type {
  TaskEvent,
  StatusEvent,
  ArtifactEvent,
  MessageEvent,
  ConnectionEvent,
  ConnectionState,
  StoreErrorEvent,
  TaskView,
} from './task/task-event.js';
export type { TasksFilter, WatchTasksOptions } from './task/records.js';
export type { PushChannel, PushChannelRegistration, PushDelivery } from './task/follow-context.js';
export type { CarriedError, CoordinationMessage, NetworkSignals, TaskClaim, TaskCoordinator } from './task/coordinator.js';
export type { DeliveryMode } from './task/follower.js';
export { MemoryTaskStore } from './store/memory-task-store.js';
export type { MemoryTaskStoreOptions } from './store/memory-task-store.js';
export { TASK_RECORD_VERSION, isActiveRecord, canLease, canWatch } from './store/task-store.js';
export { StoreWatchers } from './store/store-watchers.js';
export { taskKey } from './store/task-key.js';
export type { TaskStore, TaskRecord, TaskListFilter, TaskOutcome, CancelRecord, LeasingTaskStore, StoreLease, StoreWriteOptions, WatchableTaskStore } from './store/task-store.js';
export { checkTaskRecord, parseTaskRecord } from './store/check-record.js';
export type { RecordOrigin } from './store/check-record.js';
export { realScheduler } from './util/scheduler.js';
export type { Scheduler, TimerHandle } from './util/scheduler.js';

export type {
  Metadata,
  TaskState,
  Role,
  PartBase,
  TextPart,
  FilePart,
  DataPart,
  Part,
  Message,
  TaskStatus,
  Artifact,
  Task,
  TaskStatusUpdateEvent,
  TaskArtifactUpdateEvent,
  StreamEvent,
  SendResult,
  TaskPage,
  PushAuthentication,
  PushNotificationConfig,
} from './model/types.js';
export { isTerminalState, isInterruptedState } from './model/task-state.js';
export { textOf } from './model/text-of.js';
export type { TextSource } from './model/text-of.js';

export type {
  Binding,
  ProtocolVersion,
  AgentInterface,
  SelectedInterface,
  AgentExtension,
  AgentCapabilities,
  OAuthFlow,
  SecurityScheme,
  SecurityRequirement,
  AgentSkill,
  AgentCardSignature,
  AgentCard,
} from './card/card-types.js';
export { MemoryCardCache } from './card/card-cache.js';
export type { CardVerifier, CardVerifierContext } from './card/card-verifier.js';
export type { CardCache, CardCacheEntry } from './card/card-cache.js';

export { TetherError, isTetherError } from './errors/tether-error.js';
export type { TetherErrorCode, TetherErrorOptions, ErrorContext } from './errors/tether-error.js';
export { redact } from './errors/redact.js';
// Types only here: the class and `dataOf` are in ./protocol, so that a web app that never checks data
// does not load them up front (task.data() loads them on first use).
export type { DataOfOptions, SchemaMismatchError } from './schema/data-of.js';
export { isSchemaMismatch } from './schema/is-schema-mismatch.js';
export type { StandardSchema, SchemaIssue, SchemaOutput, SchemaResult } from './schema/standard-schema.js';
export type { RedactOptions } from './errors/redact.js';
export {
  A2AError,
  JSONParseError,
  InvalidRequestError,
  MethodNotFoundError,
  InvalidParamsError,
  InternalError,
  TaskNotFoundError,
  TaskNotCancelableError,
  PushNotificationNotSupportedError,
  UnsupportedOperationError,
  ContentTypeNotSupportedError,
  InvalidAgentResponseError,
  ExtendedAgentCardNotConfiguredError,
  ExtensionSupportRequiredError,
  VersionNotSupportedError,
  createA2AError,
} from './errors/a2a-errors.js';
export type { A2AErrorOptions } from './errors/a2a-errors.js';

export type { AuthOptions, OAuth2ClientCredentials, TokenProvider, TokenRequest, HeaderRequest } from './auth/auth-options.js';
export type {
  TetherPlugin,
  RequestInfo,
  RequestOutcome,
  RequestHeaders,
  LifecycleEvent,
  LifecycleBase,
  AgentRef,
  TaskRef,
  FrameworkSpan,
  FrameworkSpanEnd,
} from './observe/plugin.js';
export type { LifecycleListener } from './observe/watch.js';
export type { TraceContext } from './observe/trace-context.js';
export type { Logger } from './observe/log-plugin.js';
export type { FetchLike } from './http/fetch-like.js';
