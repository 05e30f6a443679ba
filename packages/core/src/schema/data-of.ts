import { TetherError } from '../errors/tether-error.js';
import { checkDepth } from '../protocol/depth.js';
import type { Artifact, DataPart, Message, Part, Task } from '../model/types.js';
import type { SchemaIssue, SchemaOutput, StandardSchema } from './standard-schema.js';

/** Which data part {@link dataOf} validates. */
export interface DataOfOptions {
  /** Only this artifact's data parts (of a task). Default: the first artifact that has a data part. */
  artifactId?: string | undefined;
}

/**
 * An agent's data part that did not match the schema it was read with (code `SCHEMA_MISMATCH`), or no data
 * part where one was expected (`part` is then undefined). The part is kept whole, as the agent sent it.
 */
export class SchemaMismatchError extends TetherError {
  static override readonly errorName: string = 'SchemaMismatchError';
  /** The data part as the agent sent it; undefined when there was none. */
  readonly part: DataPart | undefined;
  /** The validator's issues (none when there was no data part). */
  readonly issues: readonly SchemaIssue[];
  /** The artifact the part came from (of a task). */
  readonly artifactId: string | undefined;

  constructor(detail: string, part: DataPart | undefined, issues: readonly SchemaIssue[], artifactId: string | undefined, taskId: string | undefined) {
    super('SCHEMA_MISMATCH', detail, { taskId, isRetryable: false });
    this.part = part;
    this.issues = issues;
    this.artifactId = artifactId;
  }
}

function firstData(parts: readonly Part[]): DataPart | undefined {
  return parts.find((p): p is DataPart => typeof p === 'object' && p !== null && p.kind === 'data');
}

function where(issue: SchemaIssue): string {
  const path = (issue.path ?? []).map((k) => String(typeof k === 'object' ? k.key : k)).join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * The value of an agent's data part, checked by `schema` (any Standard Schema validator: a zod 4 schema, for
 * one) and typed by it. From a task: the first data part of artifact `options.artifactId`, or of the first
 * artifact with a data part; from a message or an artifact: its first data part.
 *
 * @throws {@link SchemaMismatchError} (`SCHEMA_MISMATCH`) when there is no such part or it does not match;
 * the error keeps the part whole and the validator's issues. `INVALID_RESPONSE` (a `DecodeError`) for data
 * nested deeper than `DEFAULTS.maxDepth` levels, before the validator runs.
 */
export async function dataOf<S extends StandardSchema>(source: Task | Message | Artifact, schema: S, options: DataOfOptions = {}): Promise<SchemaOutput<S>> {
  const isTask = typeof source === 'object' && source !== null && (source as Task).kind === 'task' && Array.isArray((source as Task).artifacts);
  if (!isTask && !Array.isArray((source as Message | null)?.parts)) throw new TetherError('INVALID_ARGUMENT', 'dataOf: not a task, a message or an artifact', { maybeDelivered: false });
  if (typeof (schema as Partial<StandardSchema> | null)?.['~standard']?.validate !== 'function') {
    throw new TetherError('INVALID_ARGUMENT', 'dataOf: the schema is not a Standard Schema (no ~standard.validate): zod 4, Valibot, ArkType … are', { maybeDelivered: false });
  }
  if (typeof options !== 'object' || options === null) options = {};
  const taskId = isTask ? (source as Task).id : undefined;
  let part: DataPart | undefined;
  let artifactId: string | undefined;
  if (isTask) {
    for (const artifact of (source as Task).artifacts) {
      if (typeof artifact !== 'object' || artifact === null || !Array.isArray(artifact.parts)) continue;
      if (options.artifactId !== undefined && artifact.artifactId !== options.artifactId) continue;
      part = firstData(artifact.parts);
      artifactId = artifact.artifactId;
      if (part) break;
    }
  } else {
    part = firstData((source as Message).parts);
    artifactId = 'artifactId' in source ? source.artifactId : undefined;
  }
  const of = options.artifactId === undefined ? '' : ` in artifact ${options.artifactId}`;
  if (!part) throw new SchemaMismatchError(`no data part${of} to check against the schema`, undefined, [], artifactId, taskId);
  // A validator walks the value: data built deeper than anything decoded is refused first.
  checkDepth(part.data, 'data');
  const result = await schema['~standard'].validate(part.data);
  if (result.issues) {
    const shown = result.issues.slice(0, 3).map(where).join('; ');
    const more = result.issues.length > 3 ? ` (+${result.issues.length - 3} more)` : '';
    throw new SchemaMismatchError(`the data part${artifactId ? ` of artifact ${artifactId}` : ''} does not match the schema: ${shown}${more}`, part, result.issues, artifactId, taskId);
  }
  return result.value as SchemaOutput<S>;
}
