import { useEffect, useMemo, useState, type FormEvent } from 'react';
import { createIndexedDbTaskStore, type Message } from '@a2a-tether/browser';
import { TetherProvider, useAgent, useTasks } from '@a2a-tether/react';
import { TaskCard } from './TaskCard.js';

/** Prompts in the testkit agent's scenario syntax (packages/testkit/src/agent/scenarios.ts). */
const SAMPLES: readonly (readonly [label: string, text: string])[] = [
  ['Long answer in 40 chunks', 'stream updates=4 chunks=40 delayMs=150'],
  ['A question back to you', 'input'],
  ['Slow task (to cancel)', 'slow steps=300 delayMs=100'],
];

const options = {
  // The tasks survive a reload (IndexedDB), and every tab of the page lists every task.
  store: createIndexedDbTaskStore({ dbName: 'web-assistant' }),
  tabs: true, // one tab streams each task; the other tabs follow it over that tab's connection
};

const textOf = (message: Message): string => message.parts.map((p) => (p.kind === 'text' ? p.text : `[${p.kind}]`)).join('');

/** The assistant: a prompt box, and every task of this browser as a turn of the conversation, newest first. */
export function App({ agentUrl }: { agentUrl: string | null }) {
  const agent = useAgent(agentUrl ?? undefined, options);
  const { records, loading, error: listError } = useTasks(agent.client);
  const [text, setText] = useState('');
  const [problem, setProblem] = useState('');
  // Direct answers (the agent created no task) are not tasks: this tab keeps them.
  const [answers, setAnswers] = useState<{ prompt: string; text: string }[]>([]);

  // Ready once connected and the task list was read (the check waits for it).
  useEffect(() => {
    document.body.dataset['ready'] = agent.status === 'ready' && !loading ? 'true' : agent.status === 'error' ? 'error' : '';
  }, [agent.status, loading]);

  const newestFirst = useMemo(() => [...records].reverse(), [records]);

  if (agentUrl === null) {
    return <p id="status">No agent: open this page with ?agent=&lt;agent URL&gt; (`npx --yes pnpm@10.34.8 web` prints the link).</p>;
  }
  if (agent.status !== 'ready') {
    return (
      <p id="status" className={agent.error ? 'error' : undefined}>
        {agent.error ? `Could not connect: ${agent.error.message}` : `Connecting to ${agentUrl}…`}
      </p>
    );
  }
  const client = agent.client!;

  const send = (e: FormEvent): void => {
    e.preventDefault();
    const prompt = text.trim();
    if (prompt === '') return;
    setText('');
    setProblem('');
    // The prompt is kept in the task's record (tags): every tab, and this one after a reload, shows it.
    agent.start(prompt, { tags: { prompt } }).then(
      (handle) => {
        if (handle.kind === 'message' && handle.message) setAnswers((list) => [{ prompt, text: textOf(handle.message!) }, ...list]);
      },
      (error: unknown) => setProblem(`Send failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };

  return (
    <TetherProvider client={client}>
      <h1>Tether web assistant</h1>
      <p id="status">
        Connected to {client.card.name} at {agentUrl} ({client.interface.binding}, A2A v{client.interface.protocolVersion}). {records.length} task(s) in this
        browser.
      </p>
      <p className="tabs-note">Open this page in more tabs: each lists every task, and the agent still sees one connection per task.</p>
      <form className="ask" onSubmit={send}>
        <input name="text" value={text} onChange={(e) => setText(e.target.value)} placeholder="Ask the agent (try a sample below)" autoComplete="off" />
        <button type="submit">Send</button>
      </form>
      <div className="samples">
        {SAMPLES.map(([label, sample]) => (
          <button key={label} type="button" title={sample} onClick={() => setText(sample)}>
            {label}
          </button>
        ))}
      </div>
      {problem && <p className="error">{problem}</p>}
      {listError && <p className="error">The task list could not be read: {listError.message}</p>}
      <main id="tasks">
        {answers.map((a, i) => (
          <article key={`answer-${i}`} className="task">
            <p className="prompt">{a.prompt}</p>
            <p className="answer-message">agent: {a.text}</p>
          </article>
        ))}
        {newestFirst.map((record) => (
          <TaskCard key={record.taskId} taskId={record.taskId} prompt={record.tags?.['prompt']} />
        ))}
      </main>
    </TetherProvider>
  );
}
