import { useEffect, useRef, useState, type FormEvent } from 'react';
import { isTerminalState, type ConnectionState, type Part } from '@a2a-tether/browser';
import { useTask } from '@a2a-tether/react';

const textOf = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : `[${p.kind}]`)).join('');

/**
 * One task as a turn of the conversation: the prompt, the agent's answer as it grows (one box per
 * artifact), progress, the connection indicator, the pause to answer, and Cancel. The check reads the data
 * attributes: `data-task-id`, `data-state`, `data-connection` (its history in `data-connections`),
 * `data-artifact-id`, `data-chunks`, `data-parts`, `data-bytes`, `data-outcome`.
 */
export function TaskCard({ taskId, prompt }: { taskId: string; prompt: string | undefined }) {
  const task = useTask(taskId);
  const [answer, setAnswer] = useState('');
  const [outcome, setOutcome] = useState<{ kind: 'confirmed' | 'requested' | ''; text: string }>({ kind: '', text: '' });
  const [actionError, setActionError] = useState('');
  // The connection states this card went through (for the check; the indicator shows the latest).
  const history = useRef<ConnectionState[]>([]);
  if (history.current.at(-1) !== task.connection) history.current = [...history.current, task.connection];

  const reply = (e: FormEvent): void => {
    e.preventDefault();
    task.reply(answer).then(
      () => setAnswer(''),
      (error: unknown) => setActionError(`reply failed: ${error instanceof Error ? error.message : String(error)}`),
    );
  };
  const cancel = (): void => {
    setOutcome({ kind: '', text: 'cancelling…' });
    // Honest: "confirmed" only when the task was seen canceled; otherwise the agent only got the request.
    task.cancel({ reason: 'cancelled from the web assistant' }).then(
      (o) => setOutcome(o.confirmed ? { kind: 'confirmed', text: 'canceled (confirmed)' } : { kind: 'requested', text: `cancel requested (the task is ${o.state})` }),
      (error: unknown) => setOutcome({ kind: '', text: `cancel failed: ${error instanceof Error ? error.message : String(error)}` }),
    );
  };
  useEffect(() => setActionError(''), [task.state]);

  const status = task.view?.statusMessage ? textOf(task.view.statusMessage.parts) : '';
  return (
    <article className="task" data-task-id={taskId} data-state={task.state} data-connections={history.current.join(' ')}>
      <p className="prompt">{prompt ?? '(prompt not kept)'}</p>
      <header>
        <code>{taskId.slice(0, 8)}</code>
        <span className="state">{status && !task.pause ? `${task.state}: ${status}` : task.state}</span>
        <span className="connection" data-connection={task.connection}>
          {task.connection}
        </span>
        <span className="progress" data-parts={task.progress.parts} data-bytes={task.progress.bytes}>
          {task.progress.parts} chunks, {task.progress.bytes} bytes
        </span>
      </header>
      <section className="artifacts">
        {task.view?.artifacts.map((a) => (
          <div key={a.artifactId} className="artifact" data-artifact-id={a.artifactId} data-chunks={a.parts.length}>
            <h3>
              {a.name ?? a.artifactId} — {a.parts.length} chunk(s)
            </h3>
            <pre>{textOf(a.parts)}</pre>
          </div>
        ))}
      </section>
      {task.pause && (
        <form className="reply pause" onSubmit={reply}>
          <p className="question">The agent asks: {task.pause.message ? textOf(task.pause.message.parts) : `(${task.pause.state})`}</p>
          <input name="reply" value={answer} onChange={(e) => setAnswer(e.target.value)} placeholder="Your answer" autoComplete="off" />
          <button type="submit">Reply</button>
        </form>
      )}
      <p>
        {!isTerminalState(task.state) && task.state !== 'unknown' && (
          <button className="cancel" type="button" onClick={cancel} disabled={outcome.text === 'cancelling…'}>
            Cancel
          </button>
        )}{' '}
        <span className="outcome" data-outcome={outcome.kind}>
          {outcome.text}
        </span>
      </p>
      {(task.error || actionError) && <p className="error">{actionError || task.error?.message}</p>}
    </article>
  );
}
