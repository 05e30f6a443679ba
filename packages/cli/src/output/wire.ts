import type { Artifact, Message, Part, PushNotificationConfig, StreamEvent, Task, TaskPage, TaskState, TaskStatus } from '@a2a-tether/node';
import { encodeMessage } from '@a2a-tether/node/protocol';

// Tether's normalized objects written back in the protocol's own JSON (Appendix B of the a2a-cli
// specification): v1.0 ProtoJSON for v1.0 agents (`TASK_STATE_*`, `ROLE_*`, the `oneof` wrappers
// SendMessageResponse / StreamResponse), and the v0.3 shapes (`kind` discriminators, kebab-case
// states) for v0.3 agents — the version the agent itself speaks.

/** A JSON object. */
export type Json = Record<string, unknown>;

/** The protocol version whose shapes are written. */
export type WireVersion = '1.0' | '0.3';

const V1_STATES: Readonly<Record<TaskState, string>> = {
  submitted: 'TASK_STATE_SUBMITTED',
  working: 'TASK_STATE_WORKING',
  'input-required': 'TASK_STATE_INPUT_REQUIRED',
  'auth-required': 'TASK_STATE_AUTH_REQUIRED',
  completed: 'TASK_STATE_COMPLETED',
  failed: 'TASK_STATE_FAILED',
  canceled: 'TASK_STATE_CANCELED',
  rejected: 'TASK_STATE_REJECTED',
  unknown: 'TASK_STATE_UNSPECIFIED',
};

function put(out: Json, key: string, value: unknown): void {
  if (value !== undefined) out[key] = value;
}

/** Writes a message in the agent's version. */
export function wireMessage(message: Message, version: WireVersion): Json {
  return encodeMessage(message, version === '1.0' ? 'v1' : 'v03') as Json;
}

function wireParts(parts: Part[], version: WireVersion): unknown[] {
  if (parts.length === 0) return [];
  const carrier: Message = { kind: 'message', messageId: 'x', role: 'agent', parts };
  return (wireMessage(carrier, version)['parts'] as unknown[] | undefined) ?? [];
}

function wireStatus(status: TaskStatus, version: WireVersion): Json {
  const out: Json = { state: version === '1.0' ? V1_STATES[status.state] : status.state };
  if (status.message) out['message'] = wireMessage(status.message, version);
  put(out, 'timestamp', status.timestamp);
  return out;
}

/** Writes an artifact in the agent's version. */
export function wireArtifact(artifact: Artifact, version: WireVersion): Json {
  const out: Json = { artifactId: artifact.artifactId };
  put(out, 'name', artifact.name);
  put(out, 'description', artifact.description);
  out['parts'] = wireParts(artifact.parts, version);
  put(out, 'metadata', artifact.metadata);
  put(out, 'extensions', artifact.extensions);
  return out;
}

/** Writes a task in the agent's version (`kind: 'task'` in v0.3). */
export function wireTask(task: Task, version: WireVersion): Json {
  const out: Json = version === '1.0' ? {} : { kind: 'task' };
  out['id'] = task.id;
  out['contextId'] = task.contextId;
  out['status'] = wireStatus(task.status, version);
  if (task.artifacts.length > 0) out['artifacts'] = task.artifacts.map((a) => wireArtifact(a, version));
  if (task.history.length > 0) out['history'] = task.history.map((m) => wireMessage(m, version));
  put(out, 'metadata', task.metadata);
  return out;
}

/** `SendMessageResponse`: `{ task }` or `{ message }` (v1.0); the bare Task or Message (v0.3). */
export function wireSendResult(result: Task | Message, version: WireVersion): Json {
  const body = result.kind === 'task' ? wireTask(result, version) : wireMessage(result, version);
  if (version === '0.3') return body;
  return result.kind === 'task' ? { task: body } : { message: body };
}

/** `StreamResponse`: one of `task`, `message`, `statusUpdate`, `artifactUpdate` (v1.0); the bare event (v0.3). */
export function wireStreamEvent(event: StreamEvent, version: WireVersion): Json {
  switch (event.kind) {
    case 'task':
    case 'message':
      return wireSendResult(event, version);
    case 'status-update': {
      const body: Json = version === '1.0' ? {} : { kind: 'status-update' };
      body['taskId'] = event.taskId;
      body['contextId'] = event.contextId;
      body['status'] = wireStatus(event.status, version);
      if (version === '0.3') body['final'] = event.final ?? false;
      put(body, 'metadata', event.metadata);
      return version === '1.0' ? { statusUpdate: body } : body;
    }
    case 'artifact-update': {
      const body: Json = version === '1.0' ? {} : { kind: 'artifact-update' };
      body['taskId'] = event.taskId;
      body['contextId'] = event.contextId;
      body['artifact'] = wireArtifact(event.artifact, version);
      body['append'] = event.append;
      body['lastChunk'] = event.lastChunk;
      put(body, 'metadata', event.metadata);
      return version === '1.0' ? { artifactUpdate: body } : body;
    }
  }
}

/** `ListTasksResponse` (v1.0 only: v0.3 has no ListTasks). */
export function wireTaskPage(page: TaskPage): Json {
  return {
    tasks: page.tasks.map((t) => wireTask(t, '1.0')),
    nextPageToken: page.nextPageToken,
    pageSize: page.pageSize,
    totalSize: page.totalSize,
  };
}

/** `TaskPushNotificationConfig`: flat in v1.0; `{ taskId, pushNotificationConfig }` in v0.3. */
export function wirePushConfig(config: PushNotificationConfig, version: WireVersion): Json {
  const inner: Json = {};
  put(inner, 'id', config.id);
  inner['url'] = config.url;
  put(inner, 'token', config.token);
  if (config.authentication) {
    const auth = config.authentication;
    inner['authentication'] =
      version === '1.0'
        ? { scheme: auth.schemes[0] ?? '', ...(auth.credentials === undefined ? {} : { credentials: auth.credentials }) }
        : { schemes: auth.schemes, ...(auth.credentials === undefined ? {} : { credentials: auth.credentials }) };
  }
  return version === '1.0' ? { taskId: config.taskId, ...inner } : { taskId: config.taskId, pushNotificationConfig: inner };
}
