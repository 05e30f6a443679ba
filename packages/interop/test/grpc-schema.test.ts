// Field by field: the A2A v1.0 protobuf messages of `@a2a-tether/node/grpc` (written from the specification
// as a table, packages/node/src/grpc/a2a-schema.ts) against the official SDK's generated codecs — the
// (de)serializers of every method of `@a2a-js/sdk/server/grpc`'s A2AService. For each request and response
// type, and for each member of every oneof, a message with every field set (nested messages, repeated
// fields, maps, enums, Struct, Value, Timestamp, bytes) is encoded by Tether and decoded by the SDK, and the
// SDK's object must say the same thing field by field (a wrong number, type or name shows here, even a
// swap a round trip alone would hide); then the SDK encodes its object and Tether decodes it unchanged.
// The v1.1 draft's `generation` fields are left out: the 1.3.0 SDK predates them.
import { A2AService } from '@a2a-js/sdk/server/grpc';
import { fromBinary, fromJson, toBinary, toJson } from '@bufbuild/protobuf';
import type { DescField, DescMessage, JsonObject, JsonValue } from '@bufbuild/protobuf';
import { describe, expect, it } from 'vitest';
import { a2aMessage, a2aRegistry } from '../../node/src/grpc/a2a-schema.js';

const V11_FIELDS = new Set(['generation', 'currentGeneration', 'ifGenerationMatch']);

interface Codec {
  serialize: (value: unknown) => Buffer;
  deserialize: (bytes: Buffer) => unknown;
}

/** Every method's request and response types, with the SDK's codecs for them. */
const methods = Object.values(A2AService).map((method) => {
  const name = method.path.split('/').pop() ?? '';
  return { name, request: { serialize: method.requestSerialize, deserialize: method.requestDeserialize } as Codec, response: { serialize: method.responseSerialize, deserialize: method.responseDeserialize } as Codec };
});
const TYPES: Record<string, [string, string]> = {
  SendMessage: ['SendMessageRequest', 'SendMessageResponse'],
  SendStreamingMessage: ['SendMessageRequest', 'StreamResponse'],
  GetTask: ['GetTaskRequest', 'Task'],
  ListTasks: ['ListTasksRequest', 'ListTasksResponse'],
  CancelTask: ['CancelTaskRequest', 'Task'],
  SubscribeToTask: ['SubscribeToTaskRequest', 'StreamResponse'],
  CreateTaskPushNotificationConfig: ['TaskPushNotificationConfig', 'TaskPushNotificationConfig'],
  GetTaskPushNotificationConfig: ['GetTaskPushNotificationConfigRequest', 'TaskPushNotificationConfig'],
  ListTaskPushNotificationConfigs: ['ListTaskPushNotificationConfigsRequest', 'ListTaskPushNotificationConfigsResponse'],
  GetExtendedAgentCard: ['GetExtendedAgentCardRequest', 'AgentCard'],
  DeleteTaskPushNotificationConfig: ['DeleteTaskPushNotificationConfigRequest', 'google.protobuf.Empty'],
};

/** Oneofs have at most this many members; a variant's digits in this base pick one per nesting level. */
const BASE = 5;

/**
 * A value for every field of `desc`. A oneof nested under `level` others sets the member that digit
 * `level` of `variant` (base 5) picks, so the variants together set every member of every oneof in every
 * combination of the oneofs above it.
 */
function sample(desc: DescMessage, variant: number, path: string, level = 0): JsonObject {
  const out: JsonObject = {};
  for (const field of desc.fields) {
    if (V11_FIELDS.has(field.jsonName)) continue;
    const inOneof = field.oneof !== undefined && !field.oneof.name.startsWith('_');
    if (inOneof) {
      const members = (field.oneof as NonNullable<DescField['oneof']>).fields;
      if (members[Math.floor(variant / BASE ** level) % members.length] !== field) continue;
    }
    out[field.jsonName] = sampleField(field, variant, `${path}.${field.jsonName}`, inOneof ? level + 1 : level);
  }
  return out;
}

function sampleScalar(field: DescField, path: string, index = 0): JsonValue {
  const typeName = field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum') ? 'enum' : undefined;
  if (typeName) {
    const values = (field.enum as NonNullable<DescField['enum']>).values;
    return (values[1 + (index % (values.length - 1))] ?? values[1])?.name ?? '';
  }
  const scalar = (field as { scalar?: number }).scalar;
  switch (scalar) {
    case 8: return true; // bool
    case 5: return 7 + index; // int32
    case 3: return String(9_000_000_000 + index); // int64
    case 12: return Buffer.from(`${path}#${index}`).toString('base64'); // bytes
    default: return `${path}#${index}`;
  }
}

function sampleMessage(desc: DescMessage, variant: number, path: string, level: number): JsonValue {
  switch (desc.typeName) {
    case 'google.protobuf.Struct': return { key: path, nested: { list: [1, 'two', true, null] } };
    case 'google.protobuf.Value': return { value: path, n: 3.5 };
    case 'google.protobuf.Timestamp': return '2026-12-04T10:20:30.123Z';
    default: return sample(desc, variant, path, level);
  }
}

function sampleField(field: DescField, variant: number, path: string, level: number): JsonValue {
  switch (field.fieldKind) {
    case 'scalar':
    case 'enum':
      return sampleScalar(field, path);
    case 'message':
      return sampleMessage(field.message, variant, path, level);
    case 'list':
      return [0, 1].map((i) => (field.listKind === 'message' ? sampleMessage(field.message, variant + i * BASE ** level, `${path}[${i}]`, level) : sampleScalar(field, path, i)));
    case 'map': {
      const out: JsonObject = {};
      for (const key of ['k1', 'k2']) out[key] = field.mapKind === 'message' ? sampleMessage(field.message, variant, `${path}.${key}`, level) : `${path}.${key}`;
      return out;
    }
  }
}

/** The SDK's decoded object, in ProtoJSON terms (oneofs flattened, enums by name, bytes as base64). */
function asProtoJson(desc: DescMessage, value: Record<string, unknown>): JsonValue {
  if (desc.typeName === 'google.protobuf.Struct' || desc.typeName === 'google.protobuf.Value') return value as JsonValue;
  if (desc.typeName === 'google.protobuf.Timestamp') return new Date(value as unknown as string).toISOString();
  const out: JsonObject = {};
  for (const field of desc.fields) {
    let raw: unknown = value[field.localName];
    if (field.oneof && !field.oneof.name.startsWith('_')) {
      const group = value[field.oneof.localName] as { $case?: string; value?: unknown } | undefined;
      raw = group?.$case === field.localName ? group.value : undefined;
    }
    if (raw === undefined || raw === '' || raw === false || (Array.isArray(raw) && raw.length === 0) || (field.fieldKind === 'map' && Object.keys(raw as object).length === 0)) continue;
    out[field.jsonName] = convert(field, raw);
  }
  return out;
}

function convertOne(field: DescField, raw: unknown, message?: DescMessage): JsonValue {
  if (message) return asProtoJson(message, raw as Record<string, unknown>);
  if (field.fieldKind === 'enum' || (field.fieldKind === 'list' && field.listKind === 'enum')) return field.enum?.values.find((v) => v.number === raw)?.name ?? `#${String(raw)}`;
  if (raw instanceof Uint8Array) return Buffer.from(raw).toString('base64');
  if (typeof raw === 'bigint') return String(raw);
  return raw as JsonValue;
}

function convert(field: DescField, raw: unknown): JsonValue {
  switch (field.fieldKind) {
    case 'message': return convertOne(field, raw, field.message);
    case 'list': return (raw as unknown[]).map((item) => convertOne(field, item, field.listKind === 'message' ? field.message : undefined));
    case 'map': return Object.fromEntries(Object.entries(raw as Record<string, unknown>).map(([k, v]) => [k, convertOne(field, v, field.mapKind === 'message' ? field.message : undefined)]));
    default: return convertOne(field, raw);
  }
}

function descOf(name: string): DescMessage {
  const desc = name.includes('.') ? a2aRegistry().getMessage(name) : a2aMessage(name);
  if (!desc) throw new Error(`no ${name}`);
  return desc;
}

/** How many oneofs deep `desc` nests (a oneof inside a oneof's member counts twice). */
function oneofDepth(desc: DescMessage, seen: readonly string[] = []): number {
  if (seen.includes(desc.typeName)) return 0;
  let depth = 0;
  for (const field of desc.fields) {
    const nested = field.fieldKind === 'message' || (field.fieldKind === 'list' && field.listKind === 'message') || (field.fieldKind === 'map' && field.mapKind === 'message') ? (field as { message: DescMessage }).message : undefined;
    const own = field.oneof !== undefined && !field.oneof.name.startsWith('_') ? 1 : 0;
    depth = Math.max(depth, own + (nested ? oneofDepth(nested, [...seen, desc.typeName]) : 0));
  }
  return depth;
}

const cases = methods.flatMap(({ name, request, response }) => {
  const types = TYPES[name];
  if (!types) throw new Error(`the SDK has a method this test does not know: ${name}`);
  return [
    { method: name, type: types[0], codec: request },
    { method: name, type: types[1], codec: response },
  ];
});

describe('the A2A v1.0 protobuf schema against the official SDK’s codecs', () => {
  it('covers every method of the SDK’s A2AService', () => {
    expect(methods.map((m) => m.name).sort()).toEqual(Object.keys(TYPES).sort());
  });

  it.each(cases)('$method: $type, every field and every oneof member, both ways', ({ type, codec }) => {
    const desc = descOf(type);
    const registry = a2aRegistry();
    const variants = BASE ** oneofDepth(desc);
    let fieldsChecked = 0;
    for (let variant = 0; variant < variants; variant++) {
      const json = sample(desc, variant, type);
      const ours = Buffer.from(toBinary(desc, fromJson(desc, json, { registry })));
      const theirs = codec.deserialize(ours) as Record<string, unknown>;
      expect(asProtoJson(desc, theirs), `variant ${variant}`).toEqual(json);
      const back = toJson(desc, fromBinary(desc, codec.serialize(theirs)), { registry });
      expect(back, `variant ${variant}`).toEqual(json);
      fieldsChecked += JSON.stringify(json).split('":').length - 1;
    }
    if (type !== 'google.protobuf.Empty') expect(fieldsChecked).toBeGreaterThan(0);
  });
});
