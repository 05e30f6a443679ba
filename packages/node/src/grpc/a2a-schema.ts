// The A2A v1.0 gRPC messages (package `lf.a2a.v1`), described for @bufbuild/protobuf at run time instead of
// generated code: one line per message, written from the specification's message definitions (names, numbers
// and types; v1.0.1 plus the v1.1 draft's `generation` fields, which a v1.0 peer skips as unknown fields).
// `packages/node/test/grpc-schema.test.ts` holds every message to the official SDK's own codecs, field by
// field, both ways.
//
// A field is `name=number:type`; a type is a scalar (`string`, `bytes`, `bool`, `int32`, `int64`), a
// well-known type (`Struct`, `Value`, `Timestamp`), an enum or a message of this file, or `map<K,V>`. A
// prefix says `*` repeated, `?` optional (proto3 `optional`); a suffix `|name` puts the field in that oneof.
import { create, createFileRegistry } from '@bufbuild/protobuf';
import type { DescMessage, FileRegistry } from '@bufbuild/protobuf';
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_empty,
  file_google_protobuf_struct,
  file_google_protobuf_timestamp,
} from '@bufbuild/protobuf/wkt';
import type { DescriptorProto, FieldDescriptorProto } from '@bufbuild/protobuf/wkt';

/** The protobuf package of A2A v1.0. */
export const A2A_PACKAGE = 'lf.a2a.v1';

const ENUMS: Record<string, readonly string[]> = {
  TaskState: ['UNSPECIFIED', 'SUBMITTED', 'WORKING', 'COMPLETED', 'FAILED', 'CANCELED', 'INPUT_REQUIRED', 'REJECTED', 'AUTH_REQUIRED'].map((s) => `TASK_STATE_${s}`),
  Role: ['ROLE_UNSPECIFIED', 'ROLE_USER', 'ROLE_AGENT'],
};

const MESSAGES: Record<string, string> = {
  SendMessageConfiguration: '*accepted_output_modes=1:string task_push_notification_config=2:TaskPushNotificationConfig ?history_length=3:int32 return_immediately=4:bool ?if_generation_match=5:int64',
  Task: 'id=1:string context_id=2:string status=3:TaskStatus *artifacts=4:Artifact *history=5:Message metadata=6:Struct generation=7:int64',
  TaskStatus: 'state=1:TaskState message=2:Message timestamp=3:Timestamp',
  Part: 'text=1:string|content raw=2:bytes|content url=3:string|content data=4:Value|content metadata=5:Struct filename=6:string media_type=7:string',
  Message: 'message_id=1:string context_id=2:string task_id=3:string role=4:Role *parts=5:Part metadata=6:Struct *extensions=7:string *reference_task_ids=8:string',
  Artifact: 'artifact_id=1:string name=2:string description=3:string *parts=4:Part metadata=5:Struct *extensions=6:string',
  TaskStatusUpdateEvent: 'task_id=1:string context_id=2:string status=3:TaskStatus metadata=4:Struct generation=5:int64',
  TaskArtifactUpdateEvent: 'task_id=1:string context_id=2:string artifact=3:Artifact append=4:bool last_chunk=5:bool metadata=6:Struct generation=7:int64',
  AuthenticationInfo: 'scheme=1:string credentials=2:string',
  AgentInterface: 'url=1:string protocol_binding=2:string tenant=3:string protocol_version=4:string',
  AgentCard:
    'name=1:string description=2:string *supported_interfaces=3:AgentInterface provider=4:AgentProvider version=5:string ?documentation_url=6:string capabilities=7:AgentCapabilities ' +
    'security_schemes=8:map<string,SecurityScheme> *security_requirements=9:SecurityRequirement *default_input_modes=10:string *default_output_modes=11:string *skills=12:AgentSkill ' +
    '*signatures=13:AgentCardSignature ?icon_url=14:string',
  AgentProvider: 'url=1:string organization=2:string',
  AgentCapabilities: '?streaming=1:bool ?push_notifications=2:bool *extensions=3:AgentExtension ?extended_agent_card=4:bool',
  AgentExtension: 'uri=1:string description=2:string required=3:bool params=4:Struct',
  AgentSkill: 'id=1:string name=2:string description=3:string *tags=4:string *examples=5:string *input_modes=6:string *output_modes=7:string *security_requirements=8:SecurityRequirement',
  AgentCardSignature: 'protected=1:string signature=2:string header=3:Struct',
  TaskPushNotificationConfig: 'tenant=1:string id=2:string task_id=3:string url=4:string token=5:string authentication=6:AuthenticationInfo',
  StringList: '*list=1:string',
  SecurityRequirement: 'schemes=1:map<string,StringList>',
  SecurityScheme:
    'api_key_security_scheme=1:APIKeySecurityScheme|scheme http_auth_security_scheme=2:HTTPAuthSecurityScheme|scheme oauth2_security_scheme=3:OAuth2SecurityScheme|scheme ' +
    'open_id_connect_security_scheme=4:OpenIdConnectSecurityScheme|scheme mtls_security_scheme=5:MutualTlsSecurityScheme|scheme',
  APIKeySecurityScheme: 'description=1:string location=2:string name=3:string',
  HTTPAuthSecurityScheme: 'description=1:string scheme=2:string bearer_format=3:string',
  OAuth2SecurityScheme: 'description=1:string flows=2:OAuthFlows oauth2_metadata_url=3:string',
  OpenIdConnectSecurityScheme: 'description=1:string open_id_connect_url=2:string',
  MutualTlsSecurityScheme: 'description=1:string',
  OAuthFlows:
    'authorization_code=1:AuthorizationCodeOAuthFlow|flow client_credentials=2:ClientCredentialsOAuthFlow|flow implicit=3:ImplicitOAuthFlow|flow password=4:PasswordOAuthFlow|flow ' +
    'device_code=5:DeviceCodeOAuthFlow|flow',
  AuthorizationCodeOAuthFlow: 'authorization_url=1:string token_url=2:string refresh_url=3:string scopes=4:map<string,string> pkce_required=5:bool',
  ClientCredentialsOAuthFlow: 'token_url=1:string refresh_url=2:string scopes=3:map<string,string>',
  ImplicitOAuthFlow: 'authorization_url=1:string refresh_url=2:string scopes=3:map<string,string>',
  PasswordOAuthFlow: 'token_url=1:string refresh_url=2:string scopes=3:map<string,string>',
  DeviceCodeOAuthFlow: 'device_authorization_url=1:string token_url=2:string refresh_url=3:string scopes=4:map<string,string>',
  SendMessageRequest: 'tenant=1:string message=2:Message configuration=3:SendMessageConfiguration metadata=4:Struct',
  GetTaskRequest: 'tenant=1:string id=2:string ?history_length=3:int32 ?current_generation=4:int64',
  ListTasksRequest:
    'tenant=1:string context_id=2:string status=3:TaskState ?page_size=4:int32 page_token=5:string ?history_length=6:int32 status_timestamp_after=7:Timestamp ?include_artifacts=8:bool',
  ListTasksResponse: '*tasks=1:Task next_page_token=2:string page_size=3:int32 total_size=4:int32',
  CancelTaskRequest: 'tenant=1:string id=2:string metadata=3:Struct',
  GetTaskPushNotificationConfigRequest: 'tenant=1:string task_id=2:string id=3:string',
  DeleteTaskPushNotificationConfigRequest: 'tenant=1:string task_id=2:string id=3:string',
  SubscribeToTaskRequest: 'tenant=1:string id=2:string',
  ListTaskPushNotificationConfigsRequest: 'tenant=4:string task_id=1:string page_size=2:int32 page_token=3:string',
  GetExtendedAgentCardRequest: 'tenant=1:string',
  SendMessageResponse: 'task=1:Task|payload message=2:Message|payload',
  StreamResponse: 'task=1:Task|payload message=2:Message|payload status_update=3:TaskStatusUpdateEvent|payload artifact_update=4:TaskArtifactUpdateEvent|payload',
  ListTaskPushNotificationConfigsResponse: '*configs=1:TaskPushNotificationConfig next_page_token=2:string',
};

const SCALARS: Record<string, FieldDescriptorProto_Type> = {
  string: FieldDescriptorProto_Type.STRING,
  bytes: FieldDescriptorProto_Type.BYTES,
  bool: FieldDescriptorProto_Type.BOOL,
  int32: FieldDescriptorProto_Type.INT32,
  int64: FieldDescriptorProto_Type.INT64,
};
const WELL_KNOWN: Record<string, string> = { Struct: '.google.protobuf.Struct', Value: '.google.protobuf.Value', Timestamp: '.google.protobuf.Timestamp' };

/** `snake_case` → `lowerCamelCase`, as protoc derives a field's JSON name. */
function jsonName(name: string): string {
  return name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
}

function typeOf(type: string): Pick<FieldDescriptorProto, 'type' | 'typeName'> {
  const scalar = SCALARS[type];
  if (scalar !== undefined) return { type: scalar, typeName: '' };
  const known = WELL_KNOWN[type];
  if (known !== undefined) return { type: FieldDescriptorProto_Type.MESSAGE, typeName: known };
  if (ENUMS[type]) return { type: FieldDescriptorProto_Type.ENUM, typeName: `.${A2A_PACKAGE}.${type}` };
  if (MESSAGES[type] === undefined) throw new Error(`a2a-schema: unknown type ${type}`);
  return { type: FieldDescriptorProto_Type.MESSAGE, typeName: `.${A2A_PACKAGE}.${type}` };
}

function entryName(field: string): string {
  const camel = jsonName(field);
  return `${camel.charAt(0).toUpperCase()}${camel.slice(1)}Entry`;
}

function messageProto(name: string, spec: string): Omit<DescriptorProto, '$typeName'> {
  const fields: Array<Partial<FieldDescriptorProto>> = [];
  const nested: Array<Omit<DescriptorProto, '$typeName'>> = [];
  const oneofs: string[] = [];
  const synthetic: string[] = [];
  for (const token of spec.split(/\s+/)) {
    const match = /^([*?]?)([a-z0-9_]+)=(\d+):([A-Za-z0-9<>,]+?)(?:\|([a-z_]+))?$/.exec(token);
    if (!match) throw new Error(`a2a-schema: cannot read ${name}.${token}`);
    const [, prefix, fieldName = '', number, type = '', oneof] = match;
    const field: Partial<FieldDescriptorProto> = { name: fieldName, number: Number(number), jsonName: jsonName(fieldName), label: FieldDescriptorProto_Label.OPTIONAL };
    const map = /^map<(\w+),(\w+)>$/.exec(type);
    if (map) {
      const entry = entryName(fieldName);
      nested.push({ ...emptyMessage(entry), field: [entryField('key', 1, map[1] ?? ''), entryField('value', 2, map[2] ?? '')].map(fieldProto), options: { mapEntry: true } as DescriptorProto['options'] });
      Object.assign(field, { type: FieldDescriptorProto_Type.MESSAGE, typeName: `.${A2A_PACKAGE}.${name}.${entry}`, label: FieldDescriptorProto_Label.REPEATED });
    } else Object.assign(field, typeOf(type));
    if (prefix === '*') field.label = FieldDescriptorProto_Label.REPEATED;
    if (oneof !== undefined) {
      if (!oneofs.includes(oneof)) oneofs.push(oneof);
      field.oneofIndex = oneofs.indexOf(oneof);
    }
    if (prefix === '?') {
      synthetic.push(`_${fieldName}`);
      Object.assign(field, { proto3Optional: true, oneofIndex: -synthetic.length });
    }
    fields.push(field);
  }
  // Synthetic oneofs of proto3 `optional` fields come after the real ones.
  for (const field of fields) if (field.proto3Optional) field.oneofIndex = oneofs.length + -(field.oneofIndex ?? 0) - 1;
  return { ...emptyMessage(name), field: fields.map(fieldProto), nestedType: nested as DescriptorProto[], oneofDecl: [...oneofs, ...synthetic].map((n) => ({ name: n })) as DescriptorProto['oneofDecl'] };
}

function entryField(name: string, number: number, type: string): Partial<FieldDescriptorProto> {
  return { name, number, jsonName: name, label: FieldDescriptorProto_Label.OPTIONAL, ...typeOf(type) };
}

function fieldProto(field: Partial<FieldDescriptorProto>): FieldDescriptorProto {
  return field as FieldDescriptorProto;
}

function emptyMessage(name: string): Omit<DescriptorProto, '$typeName'> {
  return { name, field: [], nestedType: [], enumType: [], extensionRange: [], extension: [], oneofDecl: [], reservedRange: [], reservedName: [] } as unknown as Omit<DescriptorProto, '$typeName'>;
}

let registry: FileRegistry | undefined;

/** The registry of every A2A v1.0 message (built once, on first use). */
export function a2aRegistry(): FileRegistry {
  if (registry) return registry;
  const file = create(FileDescriptorProtoSchema, {
    name: 'tether/a2a-v1.proto',
    package: A2A_PACKAGE,
    syntax: 'proto3',
    dependency: ['google/protobuf/empty.proto', 'google/protobuf/struct.proto', 'google/protobuf/timestamp.proto'],
    messageType: Object.entries(MESSAGES).map(([name, spec]) => messageProto(name, spec)),
    enumType: Object.entries(ENUMS).map(([name, values]) => ({ name, value: values.map((value, number) => ({ name: value, number })) })),
  } as Parameters<typeof create<typeof FileDescriptorProtoSchema>>[1]);
  const known = [file_google_protobuf_empty, file_google_protobuf_struct, file_google_protobuf_timestamp];
  registry = createFileRegistry(file, (name) => known.find((f) => f.proto.name === name));
  return registry;
}

/** One A2A message's descriptor, e.g. `a2aMessage('Task')`. */
export function a2aMessage(name: string): DescMessage {
  const desc = a2aRegistry().getMessage(`${A2A_PACKAGE}.${name}`);
  if (!desc) throw new Error(`a2a-schema: no message ${name}`);
  return desc;
}
