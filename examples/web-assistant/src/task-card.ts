import { isInterruptedState, isTerminalState, type CancelOutcome, type ConnectionState, type Part, type TaskEvent, type TaskHandle, type TaskState } from '@a2a-tether/browser';

const textOf = (parts: readonly Part[]): string => parts.map((p) => (p.kind === 'text' ? p.text : `[${p.kind}]`)).join('');

function element<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string> = {}, text = ''): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  node.textContent = text;
  return node;
}

/** One artifact as shown: its text and how many updates built it. */
interface ShownArtifact {
  text: string;
  updates: number;
  box: HTMLElement;
}

/**
 * The card of one task: state, a connection indicator, its artifacts (one box per artifactId, so
 * nothing is shown twice), a reply box at input-required / auth-required, and Cancel. Tests read the
 * data attributes: `data-state`, `data-connection` (and the history in `data-connections`),
 * `data-artifact-id`, `data-chunks`, `data-outcome`.
 */
export class TaskCard {
  readonly root: HTMLElement;
  private readonly stateLabel = element('span', { class: 'state' });
  private readonly connection = element('span', { class: 'connection' });
  private readonly artifacts = element('section', { class: 'artifacts' });
  private readonly replyForm = element('form', { class: 'reply', hidden: '' });
  private readonly cancelButton = element('button', { class: 'cancel', type: 'button' }, 'Cancel');
  private readonly outcome = element('span', { class: 'outcome' });
  private readonly error = element('p', { class: 'error' });
  private readonly shown = new Map<string, ShownArtifact>();
  private readonly history: ConnectionState[] = [];

  constructor(private readonly handle: TaskHandle) {
    this.root = element('article', { class: 'task', 'data-task-id': handle.taskId ?? '' });
    const header = element('header');
    header.append(element('code', {}, handle.taskId ?? ''), this.stateLabel, this.connection);
    const input = element('input', { name: 'reply', placeholder: 'Your answer', autocomplete: 'off' });
    this.replyForm.append(input, element('button', { type: 'submit' }, 'Reply'));
    this.replyForm.addEventListener('submit', (e) => {
      e.preventDefault();
      void this.reply(input.value);
    });
    this.cancelButton.addEventListener('click', () => void this.cancel());
    const actions = element('p');
    actions.append(this.cancelButton, ' ', this.outcome);
    this.root.append(header, this.artifacts, this.replyForm, actions, this.error);
    const view = handle.view;
    this.setState(view.state);
    this.setConnection(view.connection);
    // A resumed task shows what it already has; its events then replace or extend it.
    for (const a of view.artifacts) this.apply({ type: 'artifact', artifactId: a.artifactId, name: a.name, parts: a.parts, append: false, lastChunk: false });
  }

  /** Renders every event until the follow ends, then the final state (or why it failed). */
  async follow(): Promise<void> {
    try {
      // A failed follow makes the loop throw the error done() rejects with, after its last event.
      for await (const event of this.handle.events()) this.apply(event);
      await this.handle.done();
    } catch (error) {
      this.error.textContent = error instanceof Error ? error.message : String(error);
    }
    const view = this.handle.view;
    this.setState(view.state);
    this.setConnection(view.connection);
  }

  private apply(event: TaskEvent): void {
    switch (event.type) {
      case 'status':
        this.setState(event.state, event.message ? textOf(event.message.parts) : undefined);
        break;
      case 'artifact':
        this.showArtifact(event.artifactId, event.name, textOf(event.parts), event.append);
        break;
      case 'connection':
        this.setConnection(event.state, event.state === 'reconnecting' ? ` #${event.attempt ?? 1} in ${event.delayMs ?? 0} ms` : '');
        break;
      case 'message':
        this.showArtifact('message', 'message', textOf(event.message.parts), true);
        break;
      case 'store-error':
        this.error.textContent = `not saved for a reload: ${event.error.message}`;
        break;
    }
  }

  private showArtifact(artifactId: string, name: string | undefined, text: string, append: boolean): void {
    let shown = this.shown.get(artifactId);
    if (shown === undefined) {
      const box = element('div', { class: 'artifact', 'data-artifact-id': artifactId });
      box.append(element('h3'), element('pre'));
      this.artifacts.append(box);
      shown = { text: '', updates: 0, box };
      this.shown.set(artifactId, shown);
    }
    // append: false replaces the artifact (a first chunk, or a snapshot after a gap or a reload).
    shown.text = append ? shown.text + text : text;
    shown.updates = append ? shown.updates + 1 : 1;
    shown.box.dataset['chunks'] = String(shown.updates);
    shown.box.querySelector('h3')!.textContent = `${name ?? artifactId} — ${shown.updates} update(s), ${shown.text.length} characters`;
    shown.box.querySelector('pre')!.textContent = shown.text;
  }

  private setState(state: TaskState, message?: string): void {
    this.root.dataset['state'] = state;
    this.stateLabel.textContent = message ? `${state}: ${message}` : state;
    this.replyForm.hidden = !isInterruptedState(state);
    this.cancelButton.hidden = isTerminalState(state);
  }

  private setConnection(state: ConnectionState, detail = ''): void {
    this.connection.dataset['connection'] = state;
    this.connection.textContent = `${state}${detail}`;
    if (this.history.at(-1) !== state) this.history.push(state);
    this.root.dataset['connections'] = this.history.join(' ');
  }

  private async reply(text: string): Promise<void> {
    this.replyForm.hidden = true;
    try {
      await this.handle.reply(text);
    } catch (error) {
      this.replyForm.hidden = false;
      this.error.textContent = `reply failed: ${error instanceof Error ? error.message : String(error)}`;
    }
  }

  private async cancel(): Promise<void> {
    this.cancelButton.disabled = true;
    this.outcome.textContent = 'cancelling…';
    let outcome: CancelOutcome;
    try {
      outcome = await this.handle.cancel({ reason: 'cancelled from the web assistant' });
    } catch (error) {
      this.cancelButton.disabled = false;
      this.outcome.textContent = `cancel failed: ${error instanceof Error ? error.message : String(error)}`;
      return;
    }
    // Honest: "confirmed" only when the task was seen canceled; otherwise the agent only got the request.
    this.outcome.dataset['outcome'] = outcome.confirmed ? 'confirmed' : 'requested';
    this.outcome.textContent = outcome.confirmed ? 'canceled (confirmed)' : `cancel requested (the task is ${outcome.state})`;
  }
}
