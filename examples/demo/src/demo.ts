/**
 * Tether demo: an embedded A2A agent (the testkit's fake agent) runs a long task that streams
 * status updates and an artifact in chunks. Tether connects with plain `connect(url)`, negotiates
 * the protocol from the card, streams the task, and checks that the streamed chunks rebuild exactly
 * the artifact the agent holds. Then the same against a v0.3-only agent.
 *
 * Exits non-zero if anything does not add up.
 */
import { connect, type Part, type StreamEvent, type Task } from '@a2a-tether/node';
import { startTestAgent } from '@a2a-tether/testkit';

const quiet = process.argv.includes('--quiet');
const log = (line = ''): void => {
  if (!quiet) console.log(line);
};

function textOf(parts: Part[]): string {
  return parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
}

function describeEvent(event: StreamEvent): string {
  switch (event.kind) {
    case 'task':
      return `task ${event.id.slice(0, 8)}… ${event.status.state}`;
    case 'status-update':
      return `status  ${event.status.state}${event.status.message ? ` — ${textOf(event.status.message.parts)}` : ''}`;
    case 'artifact-update':
      return `chunk   ${event.append ? '+' : '='} "${textOf(event.artifact.parts)}"${event.lastChunk ? ' (last)' : ''}`;
    case 'message':
      return `message ${textOf(event.parts)}`;
  }
}

async function run(label: string, versions: ('1.0' | '0.3')[]): Promise<void> {
  await using agent = await startTestAgent({ versions });
  const client = await connect(agent.url);
  const { binding, protocolVersion, url } = client.interface;
  log(`\n── ${label}: agent "${client.card.name}" at ${agent.url}`);
  log(`   negotiated ${binding} over A2A v${protocolVersion} → ${url}`);

  let streamed = '';
  let taskId = '';
  let finalState = '';
  for await (const event of client.streamMessage('stream updates=4 chunks=8 delayMs=25')) {
    log(`   ${describeEvent(event)}`);
    if (event.kind === 'task') taskId = event.id;
    if (event.kind === 'artifact-update') streamed = event.append ? streamed + textOf(event.artifact.parts) : textOf(event.artifact.parts);
    if (event.kind === 'status-update') finalState = event.status.state;
  }

  const task: Task = await client.getTask(taskId);
  const held = textOf(task.artifacts[0]?.parts ?? []);
  if (finalState !== 'completed' || task.status.state !== 'completed') {
    throw new Error(`${label}: expected completed, stream said ${finalState}, agent says ${task.status.state}`);
  }
  if (streamed !== held || held.length === 0) {
    throw new Error(`${label}: streamed artifact "${streamed}" differs from the agent's "${held}"`);
  }
  log(`   ✔ completed; the ${held.length} streamed characters equal the agent's artifact: "${held}"`);
}

try {
  await run('v1.0 agent', ['1.0', '0.3']);
  await run('v0.3-only agent', ['0.3']);
  console.log('demo: ok (v1.0 and v0.3 streamed and verified)');
} catch (error) {
  console.error('demo: FAILED', error);
  process.exit(1);
}
