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
      <h1>Tether chat</h1>
      <p className="meta">
        useChat over A2A: each turn is a task kept in IndexedDB. Reload in the middle of an answer: it continues (the agent gets no second message).{' '}
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
      <main id="messages" data-status={status}>
        {messages.map((m) => (
          <div key={m.id} className={`msg ${m.role}`} data-role={m.role} data-id={m.id}>
            {m.parts.map((part, i) => {
              if (part.type === 'text') return <span key={i} className="text">{part.text}</span>;
              // The pause says it all: its status line would repeat the question.
              if (part.type === 'data-a2a-status' && m.parts.some((p) => p.type === 'data-a2a-pause')) return null;
              if (part.type === 'data-a2a-status') return <div key={i} className="status" data-state={part.data.state}>{part.data.state}{part.data.text ? `: ${part.data.text}` : ''}</div>;
              // The question itself is the message's text; the pause part says what the next message does.
              if (part.type === 'data-a2a-pause') return <div key={i} className="pause" data-pause={part.data.state}>{part.data.text ? '' : `${part.data.state} — `}Your next message answers it.</div>;
              return null;
            })}
          </div>
        ))}
      </main>
      {error && <p className="error">{error.message}</p>}
      <form onSubmit={send}>
        <input name="text" value={text} onChange={(e) => setText(e.target.value)} placeholder={pause ? 'Your answer' : 'Ask the agent (e.g. stream updates=2 chunks=30 delayMs=100, or input)'} autoComplete="off" />
        <button type="submit">Send</button>
        {(status === 'streaming' || status === 'submitted') && <button type="button" className="stop" onClick={() => void stop()}>Stop</button>}
      </form>
    </>
  );
}

const agentUrl = new URLSearchParams(location.search).get('agent');
createRoot(document.getElementById('root')!).render(
  <StrictMode>{agentUrl ? <Chat agentUrl={agentUrl} /> : <p>No agent: open this page with ?agent=&lt;agent URL&gt;.</p>}</StrictMode>,
);
