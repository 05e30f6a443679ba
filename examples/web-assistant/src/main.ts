import { connect, createIndexedDbTaskStore, type A2AClient, type TaskHandle, type TaskRecord } from '@a2a-tether/browser';
import { TaskCard } from './task-card.js';

/** Prompts in the testkit agent's scenario syntax (packages/testkit/src/agent/scenarios.ts). */
const SAMPLES: readonly (readonly [label: string, text: string])[] = [
  ['Long answer in 40 chunks', 'stream updates=4 chunks=40 delayMs=150'],
  ['A question back to you', 'input'],
  ['Slow task (to cancel)', 'slow steps=300 delayMs=100'],
];

const status = document.querySelector<HTMLElement>('#status')!;
const tasks = document.querySelector<HTMLElement>('#tasks')!;
const form = document.querySelector<HTMLFormElement>('form.ask')!;
const samples = document.querySelector<HTMLElement>('.samples')!;

/** Tasks this tab shows a card for. */
const shown = new Set<string>();
/** This tab's sends not answered yet. */
let starting: Promise<unknown> = Promise.resolve();

function show(handle: TaskHandle): void {
  if (handle.kind === 'message') {
    const answer = document.createElement('p');
    answer.textContent = `agent: ${handle.message?.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') ?? ''}`;
    tasks.prepend(answer);
    return;
  }
  if (handle.taskId !== undefined) {
    if (shown.has(handle.taskId)) return;
    shown.add(handle.taskId);
  }
  const card = new TaskCard(handle);
  tasks.prepend(card.root);
  void card.follow();
}

async function main(agentUrl: string): Promise<void> {
  const client: A2AClient = await connect(agentUrl, {
    // The tasks survive a reload: on load, resumeAll() follows every live one again.
    store: createIndexedDbTaskStore({ dbName: 'web-assistant' }),
    tabs: true, // one tab streams each task; the other tabs of the assistant follow it
  });
  status.textContent = `Connected to ${client.card.name} at ${agentUrl} (${client.interface.binding}, A2A v${client.interface.protocolVersion}).`;
  const resumed = await client.resumeAll();
  for (const handle of resumed) show(handle);
  if (resumed.length > 0) status.textContent += ` Resumed ${resumed.length} task(s).`;
  // A task another tab starts shows here too, without a reload: this tab attaches to it (it mirrors the
  // tab that streams it; no second connection).
  client.watchTasks((records) => {
    // After this tab's own sends: a task it is starting is listed before start() resolves.
    void starting.then(() => attach(records));
  });
  const attach = (records: readonly TaskRecord[]): void => {
    for (const record of records) {
      if (shown.has(record.taskId) || record.outcome !== undefined) continue;
      shown.add(record.taskId);
      client.resume(record.taskId).then(
        (handle) => {
          shown.delete(record.taskId);
          show(handle);
        },
        () => shown.delete(record.taskId),
      );
    }
  };
  document.body.dataset['ready'] = 'true';

  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const input = form.elements.namedItem('text') as HTMLInputElement;
    const text = input.value.trim();
    if (text === '') return;
    input.value = '';
    const started = client.start(text).then(show, (error: unknown) => {
      status.textContent = `Send failed: ${error instanceof Error ? error.message : String(error)}`;
    });
    starting = Promise.all([starting, started]);
  });
}

for (const [label, text] of SAMPLES) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = label;
  button.title = text;
  button.addEventListener('click', () => {
    (form.elements.namedItem('text') as HTMLInputElement).value = text;
  });
  samples.append(button);
}

const agentUrl = new URLSearchParams(location.search).get('agent');
if (agentUrl === null) {
  status.textContent = 'No agent: open this page with ?agent=<agent URL> (`npx --yes pnpm@10.34.8 web` prints the link).';
} else {
  main(agentUrl).catch((error: unknown) => {
    status.textContent = `Could not connect: ${error instanceof Error ? error.message : String(error)}`;
    status.classList.add('error');
    document.body.dataset['ready'] = 'error';
  });
}
