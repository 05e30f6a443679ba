import { oneLine } from './terminal-safe.js';
import type { AgentCard, Artifact, Message, Part, PushNotificationConfig, Task, TaskRecord } from '@a2a-tether/node';

// The `text` floor of the a2a-cli specification (§11.2): one `Label: value` field per line, the same
// labels every time, no terminal control sequences; content that needs several lines is a block — its
// own `Label:` line, the content, a blank line — and blocks come after the fields, never between them.
// An agent's line breaks are shown as `\n` in a field and kept in a block's content (CRLF read as LF);
// every other control character is escaped visibly where the run writes (output/terminal-safe.ts).

/** One `Label: value` line (the value on one line). */
export function field(label: string, value: string | number | boolean): string {
  return `${label}: ${oneLine(String(value))}\n`;
}

/** A block: its label line (on one line), the content, a blank line. */
export function block(label: string, content: string): string {
  const body = content.replace(/\r\n/g, '\n').replace(/\n+$/, '');
  return `${oneLine(label)}:\n${body}\n\n`;
}

/** The text of a message's text parts, joined. */
export function messageText(message: Message | undefined): string {
  return (message?.parts ?? []).map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

function fileSize(part: Part & { kind: 'file' }): string {
  if (part.bytes === undefined) return `uri ${oneLine(part.uri)}`;
  const bytes = Math.floor((part.bytes.replace(/=+$/, '').length * 3) / 4);
  return `${bytes} bytes`;
}

/** One part as a block's content: text as is, data as formatted JSON, a file by name, media type and size (one line). */
export function partContent(part: Part): string {
  switch (part.kind) {
    case 'text':
      return part.text;
    case 'data':
      return JSON.stringify(part.data, null, 2);
    case 'file':
      return `[file ${oneLine(part.filename ?? '(unnamed)')}, ${oneLine(part.mediaType ?? 'application/octet-stream')}, ${fileSize(part)}]`;
  }
}

/** An artifact as a block (with `verbose`, a block per part with its kind and media type). */
export function artifactBlocks(artifact: Artifact, verbose: boolean): string {
  const title = `Artifact ${artifact.name ?? artifact.artifactId}`;
  if (!verbose) {
    // Text parts are one text (chunks of one answer); other parts stand on their own lines.
    const lines: string[] = [];
    let text = '';
    for (const part of artifact.parts) {
      if (part.kind === 'text') text += part.text;
      else {
        if (text !== '') lines.push(text);
        text = '';
        lines.push(partContent(part));
      }
    }
    if (text !== '') lines.push(text);
    return block(title, lines.join('\n'));
  }
  return artifact.parts
    .map((part, i) => block(`${title} part ${i + 1} (${part.kind}${part.mediaType ? `, ${part.mediaType}` : ''})`, partContent(part)))
    .join('');
}

/** The fields every task report carries: ids and state, the status message on one line. */
export function taskFields(task: Task): string {
  let out = field('Task ID', task.id) + field('Context ID', task.contextId) + field('State', task.status.state);
  const status = messageText(task.status.message);
  if (status !== '') out += field('Status Message', status);
  if (task.status.timestamp) out += field('Timestamp', task.status.timestamp);
  out += field('Artifacts', task.artifacts.length);
  return out;
}

/** A whole task: fields (then `extra` fields), then a block per artifact (and per history message with `verbose`). */
export function taskText(task: Task, verbose: boolean, extra = ''): string {
  let out = taskFields(task) + extra;
  out += task.artifacts.map((a) => artifactBlocks(a, verbose)).join('');
  if (verbose) {
    out += task.history.map((m, i) => block(`History ${i + 1} (${m.role})`, m.parts.map(partContent).join('\n'))).join('');
  }
  return out;
}

/** A direct message answer: its ids and role as fields, its content as a block. */
export function messageReport(message: Message, verbose: boolean): string {
  let out = field('Message ID', message.messageId) + field('Role', message.role);
  if (message.contextId) out += field('Context ID', message.contextId);
  if (message.taskId) out += field('Task ID', message.taskId);
  if (verbose) out += message.parts.map((p, i) => block(`Part ${i + 1} (${p.kind}${p.mediaType ? `, ${p.mediaType}` : ''})`, partContent(p))).join('');
  else out += block('Message', message.parts.map(partContent).join('\n'));
  return out;
}

/** An agent card: identity, capabilities, interfaces, security schemes, skills. */
export function cardText(card: AgentCard, cardUrl: string, verbose: boolean): string {
  let out = field('Name', card.name) + field('Card URL', cardUrl);
  if (card.version) out += field('Version', card.version);
  if (card.description) out += field('Description', card.description);
  out += field('Streaming', card.capabilities.streaming === true);
  out += field('Push Notifications', card.capabilities.pushNotifications === true);
  out += field('Extended Card', card.capabilities.extendedAgentCard === true);
  for (const iface of card.interfaces) out += field('Interface', `${iface.binding} ${iface.protocolVersion} ${iface.url}${iface.tenant ? ` tenant=${iface.tenant}` : ''}`);
  for (const name of Object.keys(card.securitySchemes ?? {})) out += field('Security Scheme', name);
  for (const skill of card.skills ?? []) out += field('Skill', `${skill.id}${skill.name ? ` (${skill.name})` : ''}`);
  if (verbose) out += block('Card', JSON.stringify(card.raw ?? card, null, 2));
  return out;
}

/** A push configuration's fields (its token is never printed). */
export function pushConfigText(config: PushNotificationConfig): string {
  let out = field('Task ID', config.taskId);
  if (config.id !== undefined) out += field('Config ID', config.id);
  out += field('URL', config.url);
  if (config.token !== undefined) out += field('Token', '(set)');
  if (config.authentication) out += field('Authentication', config.authentication.schemes.join(', '));
  return out;
}

/** A local task record (the Tether extension `task list --local`). */
export function recordText(record: TaskRecord): string {
  let out = field('Task ID', record.taskId) + field('Context ID', record.contextId || '(unknown)') + field('State', record.state);
  out += field('Agent', record.agentUrl);
  out += field('Outcome', record.outcome ? (record.outcome.kind === 'finished' ? `finished ${record.outcome.state}` : 'lost') : 'none (resumable)');
  if (record.lastError) out += field('Last Error', `${record.lastError.code}: ${record.lastError.message}`);
  out += field('Updated', new Date(record.updatedAt).toISOString());
  return out;
}
