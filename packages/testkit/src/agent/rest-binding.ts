import { A2A_ERROR_CODES, AgentError, invalidParams, toAgentError, v03RestError, v1RestError } from './agent-error.js';
import { isV1Version, lastEventId, openStream, requestedVersion } from './binding-context.js';
import type { BindingRequest } from './binding-context.js';
import { sendJson } from './http-io.js';
import { isObject, optionalInteger, optionalString, requireObject } from './json-guards.js';
import type { JsonObject } from './json-guards.js';
import { cutAnswer } from './lose-answer.js';
import type { StreamSession } from './stream-session.js';
import type { WireCodec } from './wire-codec.js';
import { wireV03Rest } from './wire-v03-rest.js';
import { decodeV1State, wireV1 } from './wire-v1.js';

interface Route {
  methods: readonly string[];
  pattern: RegExp;
  handle(request: BindingRequest, params: string[]): Promise<void> | void;
}

/** One HTTP+JSON dialect: its routes, codec, error body and content type. */
interface Dialect {
  routes: readonly Route[];
  codec: WireCodec;
  errorBody(error: AgentError): { status: number; body: Record<string, unknown> };
  contentType: string;
}

const ID = '([^/:]+)';

function route(methods: readonly string[], pattern: string, handle: Route['handle']): Route {
  return { methods, pattern: new RegExp(`^${pattern}$`), handle };
}

function jsonBody(request: BindingRequest): JsonObject {
  if (request.body.invalidJson) {
    throw new AgentError(A2A_ERROR_CODES.parseError, 'Parse error: the request body is not valid JSON');
  }
  return request.body.json === undefined ? {} : requireObject(request.body.json, 'body');
}

function query(request: BindingRequest): JsonObject {
  return Object.fromEntries(request.url.searchParams.entries());
}

function historyLength(request: BindingRequest): number | undefined {
  const q = query(request);
  return optionalInteger(q, 'historyLength', 'query') ?? optionalInteger(q, 'history_length', 'query');
}

function respond(request: BindingRequest, dialect: Dialect, status: number, body: unknown): void {
  sendJson(request.res, status, body, dialect.contentType);
}

function fail(request: BindingRequest, dialect: Dialect, error: AgentError): void {
  const { status, body } = dialect.errorBody(error);
  sendJson(request.res, status, body, dialect.contentType);
}

function restStream(request: BindingRequest, dialect: Dialect): StreamSession {
  return openStream(
    request,
    (item) => dialect.codec.encodeStreamItem(item),
    (error) => dialect.errorBody(error).body,
    (error) => fail(request, dialect, error),
  );
}

// --- v1 HTTP+JSON ----------------------------------------------------------------------------------

const v1Routes: readonly Route[] = [
  route(['POST'], '/message:send', async (request) => {
    const result = await request.ops.send(wireV1.decodeSendParams(jsonBody(request)), '1.0');
    respond(request, v1, 200, wireV1.encodeSendResult(result));
  }),
  route(['POST'], '/message:stream', (request) => {
    const params = wireV1.decodeSendParams(jsonBody(request));
    request.ops.stream(params, '1.0', restStream(request, v1));
  }),
  route(['GET'], '/tasks', (request) => {
    const q = query(request);
    const status = optionalString(q, 'status', 'query');
    const includeArtifacts = optionalString(q, 'includeArtifacts', 'query');
    if (includeArtifacts !== undefined && includeArtifacts !== 'true' && includeArtifacts !== 'false') {
      throw invalidParams('query.includeArtifacts must be true or false');
    }
    const result = request.ops.list({
      contextId: optionalString(q, 'contextId', 'query'),
      status: status === undefined ? undefined : decodeV1State(status, 'query.status'),
      pageSize: optionalInteger(q, 'pageSize', 'query'),
      pageToken: optionalString(q, 'pageToken', 'query'),
      historyLength: optionalInteger(q, 'historyLength', 'query'),
      statusTimestampAfter: optionalString(q, 'statusTimestampAfter', 'query'),
      includeArtifacts: includeArtifacts === undefined ? undefined : includeArtifacts === 'true',
    });
    respond(request, v1, 200, { ...result, tasks: result.tasks.map((task) => wireV1.encodeTask(task)) });
  }),
  route(['GET'], `/tasks/${ID}`, async (request, [id = '']) => {
    const currentGeneration = optionalInteger(query(request), 'currentGeneration', 'query');
    respond(request, v1, 200, wireV1.encodeTask(await request.ops.getPast(id, historyLength(request), '1.0', currentGeneration)));
  }),
  route(['POST'], `/tasks/${ID}:cancel`, async (request, [id = '']) => {
    jsonBody(request);
    respond(request, v1, 200, wireV1.encodeTask(await request.ops.cancel(id)));
  }),
  // The proto says GET, the prose says POST: accept both (wire notes gotcha 5).
  route(['GET', 'POST'], `/tasks/${ID}:subscribe`, (request, [id = '']) => {
    request.ops.subscribe(id, lastEventId(request), '1.0', restStream(request, v1));
  }),
  route(['POST'], `/tasks/${ID}/pushNotificationConfigs`, (request, [taskId = '']) => {
    const body = jsonBody(request);
    const bodyTaskId = optionalString(body, 'taskId', 'body');
    if (bodyTaskId !== undefined && bodyTaskId !== taskId) {
      throw invalidParams(`body.taskId ${bodyTaskId} does not match the path task ${taskId}`);
    }
    const config = request.ops.pushCreate(taskId, wireV1.decodePushConfig(body, 'body'), '1.0');
    respond(request, v1, 201, wireV1.encodePushConfig(config));
  }),
  route(['GET'], `/tasks/${ID}/pushNotificationConfigs`, (request, [taskId = '']) => {
    respond(request, v1, 200, { configs: request.ops.pushList(taskId).map((c) => wireV1.encodePushConfig(c)) });
  }),
  route(['GET'], `/tasks/${ID}/pushNotificationConfigs/${ID}`, (request, [taskId = '', id = '']) => {
    respond(request, v1, 200, wireV1.encodePushConfig(request.ops.pushGet(taskId, id)));
  }),
  route(['DELETE'], `/tasks/${ID}/pushNotificationConfigs/${ID}`, (request, [taskId = '', id = '']) => {
    request.ops.pushDelete(taskId, id);
    respond(request, v1, 204, undefined);
  }),
  route(['GET'], '/extendedAgentCard', (request) => {
    respond(request, v1, 200, request.ops.extendedCard('1.0'));
  }),
];

const v1: Dialect = {
  routes: v1Routes,
  codec: wireV1,
  errorBody: v1RestError,
  // v1 HTTP+JSON SHOULD use application/a2a+json (v1.0.0 used application/json; clients accept both).
  contentType: 'application/a2a+json',
};

// --- v0.3 HTTP+JSON (paths under /v1) -------------------------------------------------------------

/** Accept the official client's `{parent, configId, config:{…}}` and the bare `{name?, pushNotificationConfig}`. */
function v03PushConfigBody(body: JsonObject): { inner: unknown; configId: string | undefined } {
  if (isObject(body['config'])) {
    return {
      inner: body['config']['pushNotificationConfig'],
      configId: optionalString(body, 'configId', 'body'),
    };
  }
  return { inner: body['pushNotificationConfig'], configId: undefined };
}

const v03Routes: readonly Route[] = [
  route(['POST'], '/message:send', async (request) => {
    const result = await request.ops.send(wireV03Rest.decodeSendParams(jsonBody(request)), '0.3');
    // The official 0.3 server answers 201 here.
    respond(request, v03, 201, wireV03Rest.encodeSendResult(result));
  }),
  route(['POST'], '/message:stream', (request) => {
    const params = wireV03Rest.decodeSendParams(jsonBody(request));
    request.ops.stream(params, '0.3', restStream(request, v03));
  }),
  route(['GET'], `/tasks/${ID}`, (request, [id = '']) => {
    respond(request, v03, 200, wireV03Rest.encodeTask(request.ops.get(id, historyLength(request), '0.3')));
  }),
  route(['POST'], `/tasks/${ID}:cancel`, async (request, [id = '']) => {
    jsonBody(request);
    respond(request, v03, 202, wireV03Rest.encodeTask(await request.ops.cancel(id)));
  }),
  route(['GET', 'POST'], `/tasks/${ID}:subscribe`, (request, [id = '']) => {
    request.ops.subscribe(id, lastEventId(request), '0.3', restStream(request, v03));
  }),
  route(['POST'], `/tasks/${ID}/pushNotificationConfigs`, (request, [taskId = '']) => {
    const { inner, configId } = v03PushConfigBody(jsonBody(request));
    if (inner === undefined) throw invalidParams('body needs pushNotificationConfig (or config.pushNotificationConfig)');
    const input = wireV03Rest.decodePushConfig(inner, 'body.pushNotificationConfig');
    if (input.id === undefined && configId !== undefined) input.id = configId;
    respond(request, v03, 201, wireV03Rest.encodePushConfig(request.ops.pushCreate(taskId, input, '0.3')));
  }),
  route(['GET'], `/tasks/${ID}/pushNotificationConfigs`, (request, [taskId = '']) => {
    respond(request, v03, 200, { configs: request.ops.pushList(taskId).map((c) => wireV03Rest.encodePushConfig(c)) });
  }),
  route(['GET'], `/tasks/${ID}/pushNotificationConfigs/${ID}`, (request, [taskId = '', id = '']) => {
    respond(request, v03, 200, wireV03Rest.encodePushConfig(request.ops.pushGet(taskId, id)));
  }),
  route(['DELETE'], `/tasks/${ID}/pushNotificationConfigs/${ID}`, (request, [taskId = '', id = '']) => {
    request.ops.pushDelete(taskId, id);
    respond(request, v03, 204, undefined);
  }),
  route(['GET'], '/card', (request) => {
    respond(request, v03, 200, request.ops.extendedCard('0.3-proto'));
  }),
];

const v03: Dialect = { routes: v03Routes, codec: wireV03Rest, errorBody: v03RestError, contentType: 'application/json' };

async function dispatch(request: BindingRequest, dialect: Dialect, path: string, before?: () => void): Promise<void> {
  const method = request.req.method ?? 'GET';
  let allowed: string[] = [];
  for (const candidate of dialect.routes) {
    const match = candidate.pattern.exec(path);
    if (match === null) continue;
    if (!candidate.methods.includes(method)) {
      allowed = [...allowed, ...candidate.methods];
      continue;
    }
    try {
      before?.();
      await candidate.handle(
        request,
        match.slice(1).map((segment) => decodeURIComponent(segment)),
      );
    } catch (error) {
      if (!cutAnswer(request.req, error)) fail(request, dialect, toAgentError(error));
    }
    return;
  }
  const message = `No route for ${method} ${request.url.pathname}`;
  if (allowed.length > 0) {
    const { body } = dialect.errorBody(new AgentError(A2A_ERROR_CODES.methodNotFound, message));
    sendJson(request.res, 405, body, dialect.contentType, { Allow: allowed.join(', ') });
    return;
  }
  fail(request, dialect, new AgentError(A2A_ERROR_CODES.methodNotFound, message));
}

/** Handle one request below the HTTP+JSON mount point: v0.3 under `/v1/…`, v1 (tenant-prefixed) otherwise. */
export async function handleRest(request: BindingRequest): Promise<void> {
  const { options } = request;
  // Some clients percent-encode the ':' of custom methods (`/message%3Asend`).
  const path = request.path.replace(/%3A/gi, ':');
  if (options.versions.includes('0.3') && path.startsWith('/v1/')) {
    await dispatch(request, v03, path.slice('/v1'.length));
    return;
  }
  if (!options.versions.includes('1.0')) {
    fail(request, v03, new AgentError(A2A_ERROR_CODES.methodNotFound, `No route for ${request.req.method} ${request.url.pathname}`));
    return;
  }
  let v1Path = path;
  if (options.tenant !== undefined) {
    const prefix = `/${encodeURIComponent(options.tenant)}`;
    if (!path.startsWith(`${prefix}/`)) {
      fail(
        request,
        v1,
        new AgentError(
          A2A_ERROR_CODES.methodNotFound,
          `No route for ${request.url.pathname}: this agent serves tenant "${options.tenant}", so v1 paths start with ${prefix}/`,
        ),
      );
      return;
    }
    v1Path = path.slice(prefix.length);
  }
  await dispatch(request, v1, v1Path, () => {
    const version = requestedVersion(request);
    const required = options.behaviour.requireVersionHeader !== false;
    if ((version === undefined && required) || (version !== undefined && !isV1Version(version))) {
      throw new AgentError(
        A2A_ERROR_CODES.versionNotSupported,
        `A2A-Version ${version ?? '(missing, i.e. 0.3)'} is not supported on the v1 HTTP+JSON paths; send "A2A-Version: 1.0"`,
      );
    }
  });
}
