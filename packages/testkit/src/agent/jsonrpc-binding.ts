import { A2A_ERROR_CODES, AgentError, jsonRpcErrorEnvelope, jsonRpcErrorObject, toAgentError } from './agent-error.js';
import { isV03Version, isV1Version, lastEventId, openStream, requestedVersion } from './binding-context.js';
import type { BindingRequest } from './binding-context.js';
import { sendJson } from './http-io.js';
import { isObject, optionalBoolean, optionalInteger, optionalString, requireObject, requireString } from './json-guards.js';
import type { JsonObject } from './json-guards.js';
import { cutAnswer } from './lose-answer.js';
import type { TestAgentVersion } from './options.js';
import type { WireCodec } from './wire-codec.js';
import { wireV03JsonRpc } from './wire-v03-jsonrpc.js';
import { decodeV1State, wireV1 } from './wire-v1.js';

type RpcId = string | number | null;

const V1_METHODS: ReadonlySet<string> = new Set([
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
]);

const V03_METHODS: ReadonlySet<string> = new Set([
  'message/send',
  'message/stream',
  'tasks/get',
  'tasks/cancel',
  'tasks/resubscribe',
  'tasks/pushNotificationConfig/set',
  'tasks/pushNotificationConfig/get',
  'tasks/pushNotificationConfig/list',
  'tasks/pushNotificationConfig/delete',
  'agent/getAuthenticatedExtendedCard',
]);

const err = (code: number, message: string): AgentError => new AgentError(code, message);

/**
 * Pick the protocol version of a JSON-RPC call. Both versions share one endpoint, so: `A2A-Version: 1.0`
 * means v1; no header (or 0.3) means v0.3 for v0.3 method names, and for v1 names either -32009 (the
 * official server's answer) or v1 when the header is not required.
 */
function pickVersion(request: BindingRequest, method: string): TestAgentVersion {
  const header = requestedVersion(request);
  const served = request.options.versions;
  let version: TestAgentVersion;
  if (header !== undefined && !isV03Version(header)) {
    if (!isV1Version(header)) {
      throw err(A2A_ERROR_CODES.versionNotSupported, `A2A-Version ${header} is not supported (served: ${served.join(', ')})`);
    }
    version = '1.0';
  } else if (V03_METHODS.has(method)) {
    version = '0.3';
  } else if (V1_METHODS.has(method)) {
    if (request.options.behaviour.requireVersionHeader !== false) {
      throw err(
        A2A_ERROR_CODES.versionNotSupported,
        `${method} is a v1 method; send the header "A2A-Version: 1.0" (requested version: ${header ?? '0.3 (no header)'})`,
      );
    }
    version = '1.0';
  } else {
    throw err(A2A_ERROR_CODES.methodNotFound, `Method not found: ${method}`);
  }
  if (!served.includes(version)) {
    throw err(A2A_ERROR_CODES.versionNotSupported, `A2A version ${version} is not served here (served: ${served.join(', ')})`);
  }
  return version;
}

function checkTenant(request: BindingRequest, params: JsonObject): void {
  const expected = request.options.tenant;
  const tenant = optionalString(params, 'tenant', 'params');
  if (tenant === expected) return;
  throw err(
    A2A_ERROR_CODES.taskNotFound,
    expected === undefined
      ? `Unknown tenant "${tenant}": this agent has no tenants`
      : `Unknown tenant ${tenant === undefined ? '(none)' : `"${tenant}"`}: this agent serves tenant "${expected}" (params.tenant)`,
  );
}

/** Handle one POST to the JSON-RPC endpoint (v1 and v0.3). */
export async function handleJsonRpc(request: BindingRequest): Promise<void> {
  const { res, body } = request;
  const headerVersion: TestAgentVersion = isV1Version(requestedVersion(request)) ? '1.0' : '0.3';
  const fail = (id: RpcId, error: AgentError, version: TestAgentVersion): void =>
    sendJson(res, 200, jsonRpcErrorEnvelope(id, error, version));

  if (request.req.method !== 'POST') {
    sendJson(res, 405, jsonRpcErrorEnvelope(null, err(A2A_ERROR_CODES.invalidRequest, 'JSON-RPC needs POST'), headerVersion), 'application/json', {
      Allow: 'POST',
    });
    return;
  }
  if (body.invalidJson) {
    fail(null, err(A2A_ERROR_CODES.parseError, 'Parse error: the request body is not valid JSON'), headerVersion);
    return;
  }
  const call = body.json;
  if (!isObject(call)) {
    fail(null, err(A2A_ERROR_CODES.invalidRequest, 'A JSON-RPC request must be an object (batches are not supported)'), headerVersion);
    return;
  }
  const rawId = call['id'];
  const id: RpcId = typeof rawId === 'string' || typeof rawId === 'number' ? rawId : null;
  if (id === null || call['jsonrpc'] !== '2.0' || typeof call['method'] !== 'string') {
    fail(id, err(A2A_ERROR_CODES.invalidRequest, 'Invalid request: needs jsonrpc "2.0", a string or number id and a method'), headerVersion);
    return;
  }
  const method = call['method'];
  let version = headerVersion;
  try {
    version = pickVersion(request, method);
    const params = call['params'] === undefined ? {} : requireObject(call['params'], 'params');
    if (version === '1.0') {
      checkTenant(request, params);
      await dispatchV1(request, id, method, params);
    } else {
      await dispatchV03(request, id, method, params);
    }
  } catch (error) {
    if (cutAnswer(request.req, error)) return;
    const agentError = toAgentError(error);
    // VersionNotSupported is a v1 error: give it the v1 ErrorInfo even when the call looked like v0.3.
    fail(id, agentError, agentError.code === A2A_ERROR_CODES.versionNotSupported ? '1.0' : version);
  }
}

function reply(request: BindingRequest, id: RpcId, result: unknown): void {
  sendJson(request.res, 200, { jsonrpc: '2.0', id, result });
}

function openRpcStream(request: BindingRequest, id: RpcId, codec: WireCodec) {
  return openStream(
    request,
    (item) => ({ jsonrpc: '2.0', id, result: codec.encodeStreamItem(item) }),
    (error) => ({ jsonrpc: '2.0', id, error: jsonRpcErrorObject(error, codec.version) }),
    (error) => sendJson(request.res, 200, jsonRpcErrorEnvelope(id, error, codec.version)),
  );
}

async function dispatchV1(request: BindingRequest, id: RpcId, method: string, params: JsonObject): Promise<void> {
  const { ops } = request;
  const codec = wireV1;
  switch (method) {
    case 'SendMessage': {
      const result = await ops.send(codec.decodeSendParams(params), '1.0');
      reply(request, id, codec.encodeSendResult(result));
      return;
    }
    case 'SendStreamingMessage': {
      const sendParams = codec.decodeSendParams(params);
      ops.stream(sendParams, '1.0', openRpcStream(request, id, codec));
      return;
    }
    case 'GetTask': {
      const taskId = requireString(params, 'id', 'params');
      const historyLength = optionalInteger(params, 'historyLength', 'params');
      const task = await ops.getPast(taskId, historyLength, '1.0', optionalInteger(params, 'currentGeneration', 'params'));
      reply(request, id, codec.encodeTask(task));
      return;
    }
    case 'ListTasks': {
      const status = params['status'];
      const result = ops.list({
        contextId: optionalString(params, 'contextId', 'params'),
        status: status === undefined || status === null || status === '' ? undefined : decodeV1State(status, 'params.status'),
        pageSize: optionalInteger(params, 'pageSize', 'params'),
        pageToken: optionalString(params, 'pageToken', 'params'),
        historyLength: optionalInteger(params, 'historyLength', 'params'),
        statusTimestampAfter: optionalString(params, 'statusTimestampAfter', 'params'),
        includeArtifacts: optionalBoolean(params, 'includeArtifacts', 'params'),
      });
      reply(request, id, { ...result, tasks: result.tasks.map((task) => codec.encodeTask(task)) });
      return;
    }
    case 'CancelTask':
      reply(request, id, codec.encodeTask(await ops.cancel(requireString(params, 'id', 'params'))));
      return;
    case 'SubscribeToTask': {
      const taskId = requireString(params, 'id', 'params');
      ops.subscribe(taskId, lastEventId(request), '1.0', openRpcStream(request, id, codec));
      return;
    }
    case 'CreateTaskPushNotificationConfig': {
      const taskId = requireString(params, 'taskId', 'params');
      const config = ops.pushCreate(taskId, codec.decodePushConfig(params, 'params'), '1.0');
      reply(request, id, codec.encodePushConfig(config));
      return;
    }
    case 'GetTaskPushNotificationConfig': {
      const config = ops.pushGet(requireString(params, 'taskId', 'params'), requireString(params, 'id', 'params'));
      reply(request, id, codec.encodePushConfig(config));
      return;
    }
    case 'ListTaskPushNotificationConfigs': {
      const configs = ops.pushList(requireString(params, 'taskId', 'params'));
      // ProtoJSON leaves out the empty nextPageToken: everything fits one page.
      reply(request, id, { configs: configs.map((c) => codec.encodePushConfig(c)) });
      return;
    }
    case 'DeleteTaskPushNotificationConfig':
      ops.pushDelete(requireString(params, 'taskId', 'params'), requireString(params, 'id', 'params'));
      reply(request, id, {});
      return;
    case 'GetExtendedAgentCard':
      reply(request, id, ops.extendedCard('1.0'));
      return;
    default:
      throw err(A2A_ERROR_CODES.methodNotFound, `Method not found: ${method}`);
  }
}

async function dispatchV03(request: BindingRequest, id: RpcId, method: string, params: JsonObject): Promise<void> {
  const { ops } = request;
  const codec = wireV03JsonRpc;
  switch (method) {
    case 'message/send': {
      const result = await ops.send(codec.decodeSendParams(params), '0.3');
      reply(request, id, codec.encodeSendResult(result));
      return;
    }
    case 'message/stream': {
      const sendParams = codec.decodeSendParams(params);
      ops.stream(sendParams, '0.3', openRpcStream(request, id, codec));
      return;
    }
    case 'tasks/get': {
      const task = ops.get(requireString(params, 'id', 'params'), optionalInteger(params, 'historyLength', 'params'), '0.3');
      reply(request, id, codec.encodeTask(task));
      return;
    }
    case 'tasks/cancel':
      reply(request, id, codec.encodeTask(await ops.cancel(requireString(params, 'id', 'params'))));
      return;
    case 'tasks/resubscribe': {
      const taskId = requireString(params, 'id', 'params');
      ops.subscribe(taskId, lastEventId(request), '0.3', openRpcStream(request, id, codec));
      return;
    }
    case 'tasks/pushNotificationConfig/set': {
      const taskId = requireString(params, 'taskId', 'params');
      const input = codec.decodePushConfig(params['pushNotificationConfig'], 'params.pushNotificationConfig');
      reply(request, id, codec.encodePushConfig(ops.pushCreate(taskId, input, '0.3')));
      return;
    }
    case 'tasks/pushNotificationConfig/get': {
      const taskId = requireString(params, 'id', 'params');
      const config = ops.pushGet(taskId, optionalString(params, 'pushNotificationConfigId', 'params'));
      reply(request, id, codec.encodePushConfig(config));
      return;
    }
    case 'tasks/pushNotificationConfig/list':
      reply(request, id, ops.pushList(requireString(params, 'id', 'params')).map((c) => codec.encodePushConfig(c)));
      return;
    case 'tasks/pushNotificationConfig/delete':
      ops.pushDelete(requireString(params, 'id', 'params'), requireString(params, 'pushNotificationConfigId', 'params'));
      reply(request, id, null);
      return;
    case 'agent/getAuthenticatedExtendedCard':
      reply(request, id, ops.extendedCard('0.3'));
      return;
    default:
      throw err(A2A_ERROR_CODES.methodNotFound, `Method not found: ${method}`);
  }
}
