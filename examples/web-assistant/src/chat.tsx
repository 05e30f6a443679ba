import { StrictMode, useEffect, useMemo, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';
import { useChat } from '@ai-sdk/react';
import type { UIMessage } from 'ai';
import { createIndexedDbTaskStore } from '@a2a-tether/browser';
import { createIndexedDbChatStore } from '@a2a-tether/browser/chats';
import { A2AChatTransport, type A2AUIDataTypes } from '@a2a-tether/ai-sdk';
import { useAgent } from '@a2a-tether/react';

type ChatMessage = UIMessage<unknown, A2AUIDataTypes>;

const options = { store: createIndexedDbTaskStore({ dbName: 'web-assistant-chat' }), tabs: true };
// The chat's messages, beside the task records: a reload shows the whole chat.
const chats = createIndexedDbChatStore({ dbName: 'web-assistant-chat' });

/** The chat's id, kept across reloads ("New chat" forgets it). Each turn's task is tagged with it in IndexedDB. */
function chatId(): string {
  const kept = localStorage.getItem('chat-id');
  if (kept) return kept;
  const id = crypto.randomUUID();
  localStorage.setItem('chat-id', id);
  return id;
}

function Chat({ agentUrl }: { agentUrl: string }) {
  const agent = useAgent(agentUrl, options);
  const transport = useMemo(() => (agent.client ? new A2AChatTransport<ChatMessage>({ client: agent.client, messages: chats }) : undefined), [agent.client]);
  useEffect(() => {
    document.body.dataset['ready'] = agent.status === 'ready' ? 'true' : agent.status === 'error' ? 'error' : '';
  }, [agent.status]);
  const id = useMemo(chatId, []);
  // The chat as it was kept (the user's messages, the answers, a pause's question), before useChat starts.
  const [initial, setInitial] = useState<ChatMessage[]>();
  useEffect(() => void transport?.loadMessages(id).then(setInitial), [transport, id]);
  if (agent.status === 'error') return <p className="error">Could not connect: {agent.error?.message}</p>;
  if (!transport || !initial) return <p>Connecting to {agentUrl}…</p>;
  return <Conversation transport={transport} id={id} initial={initial} />;
}

/** A report's Markdown, headings and paragraphs (the demo agent writes `#`/`##` sections). */
function Report({ text }: { text: string }) {
  return (
    <div className="report" data-report={text}>
      {text.split('\n').map((line, i) =>
        line.startsWith('## ') ? <h3 key={i}>{line.slice(3)}</h3> : line.startsWith('# ') ? <h2 key={i}>{line.slice(2)}</h2> : line === '' ? null : <p key={i}>{line}</p>,
      )}
    </div>
  );
}

function Part({ part, paused }: { part: ChatMessage['parts'][number]; paused: boolean }) {
  if (part.type === 'text') return part.text.startsWith('# ') ? <Report text={part.text} /> : <span className="text">{part.text}</span>;
  if (part.type === 'file') return <a className="file" href={part.url} download={part.filename ?? 'report.md'}>Download {part.filename ?? `the attached file (${part.mediaType})`}</a>;
  // The pause says it all: its status line would repeat the question.
  if (part.type === 'data-a2a-status' && paused) return null;
  if (part.type === 'data-a2a-status') return <div className="status" data-state={part.data.state}>{part.data.state}{part.data.text ? `: ${part.data.text}` : ''}</div>;
  // The question itself is the message's text; the pause part says what the next message does.
  if (part.type === 'data-a2a-pause') return <div className="pause" data-pause={part.data.state}>{part.data.text ? '' : `${part.data.state} — `}Your next message answers it.</div>;
  return null;
}

function Conversation({ transport, id, initial }: { transport: A2AChatTransport<ChatMessage>; id: string; initial: ChatMessage[] }) {
  // resume: true — on load, the turn that was running (if any) continues: the same task, replayed from its beginning.
  // Only Stop cancels it: a reload, a navigation, an unmount and StrictMode's double effects never do.
  const { messages, sendMessage, stop, status, error } = useChat<ChatMessage>({ id, messages: initial, transport, resume: true });
  const [text, setText] = useState('');
  const last = messages.at(-1);
  const pause = last?.role === 'assistant' ? last.parts.find((p) => p.type === 'data-a2a-pause') : undefined;

  const send = (e: FormEvent): void => {
    e.preventDefault();
    if (text.trim() === '') return;
    void sendMessage({ text });
    setText('');
  };
  return (
    <>
      <header>
        <h1>Report assistant</h1>
        <p>
          Ask for a report: the agent plans, asks who it is for, writes it section by section and attaches it as a file. Each turn is an A2A task kept in
          IndexedDB: reload in the middle of an answer and it continues; only Stop cancels.{' '}
          <button
            type="button"
            onClick={() => {
              localStorage.removeItem('chat-id');
              void chats.delete(id).then(() => location.reload());
            }}
          >
            New chat
          </button>
        </p>
      </header>
      <main id="messages" data-status={status}>
        {messages.map((m) => (
          <div key={m.id} className={`msg ${m.role}`} data-role={m.role} data-id={m.id}>
            {m.parts.map((part, i) => (
              <Part key={i} part={part} paused={m.parts.some((p) => p.type === 'data-a2a-pause')} />
            ))}
          </div>
        ))}
      </main>
      {error && <p className="error">{error.message}</p>}
      <form onSubmit={send}>
        <input name="text" value={text} onChange={(e) => setText(e.target.value)} placeholder={pause ? 'Your answer' : 'e.g. Plan the move of our app to Postgres'} autoComplete="off" />
        <button type="submit">Send</button>
        {(status === 'streaming' || status === 'submitted') && <button type="button" className="stop" onClick={() => void stop()}>Stop</button>}
      </form>
    </>
  );
}

// The agent through the app's relay (server/relay.ts, on this origin); `?agent=<url>` points the page at another agent.
const agentUrl = new URLSearchParams(location.search).get('agent') ?? new URL('/api/a2a/assistant', location.href).href;
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Chat agentUrl={agentUrl} />
  </StrictMode>,
);
