import { TetherError } from '@a2a-tether/core';
import type { PushListener } from './push-notice.js';
import type { PushRegistry, Registration } from './push-registry.js';
import { tokenSha256, type PushRelay, type RelayRegistration } from './push-relay.js';
import type { PushRegistration } from './receiver-types.js';

const SETTLED = Promise.resolve();

function nonEmpty(what: string, value: string | undefined): void {
  if (value === '') throw new TetherError('INVALID_ARGUMENT', `PushReceiver.${what} must not be empty`);
}

/**
 * The receiver's registrations as apps and the engine make them: `register()` handles, the registrations
 * `expect(taskId)` keeps under their task id (what `forget(taskId)` finds), and their copies in the relay
 * (registered, re-registered once bound, unregistered), so other replicas find them.
 */
export class RegistrationBook {
  relay: PushRelay | undefined;
  readonly #registry: PushRegistry;
  readonly #now: () => number;
  readonly #onError: (error: unknown) => void;
  readonly #expected = new Map<string, Registration>();

  constructor(registry: PushRegistry, now: () => number, onError: (error: unknown) => void) {
    this.#registry = registry;
    this.#now = now;
    this.#onError = onError;
  }

  /** Shares every registration, those made before too, through `relay` from now on. */
  share(relay: PushRelay): void {
    this.relay = relay;
    for (const registration of this.#registry.all()) void this.#publish(registration);
  }

  register(token: string, taskId: string | undefined): PushRegistration {
    nonEmpty('register: token', token);
    nonEmpty('register: taskId', taskId);
    return this.#handle(this.#registry.add(tokenSha256(token), taskId));
  }

  expect(taskId: string, token: string | undefined): void {
    nonEmpty('expect: taskId', taskId);
    nonEmpty('expect: token', token);
    const sha = token === undefined ? undefined : tokenSha256(token);
    const previous = this.#expected.get(taskId);
    if (previous?.live === true && previous.tokenSha256 === sha) return;
    // Another token for the task: its listeners stay.
    const listeners = [...(previous?.listeners ?? [])];
    if (previous !== undefined) this.#drop(previous);
    const registration = this.#registry.add(sha, taskId);
    this.#expected.set(taskId, registration);
    for (const listener of listeners) this.#registry.subscribe(registration, listener);
    void this.#publish(registration);
  }

  forget(taskId: string): void {
    const registration = this.#expected.get(taskId);
    this.#expected.delete(taskId);
    if (registration !== undefined) this.#drop(registration);
  }

  subscribe(taskId: string, listener: PushListener): () => void {
    const stops = this.#registry.boundTo(taskId).map((registration) => this.#registry.subscribe(registration, listener));
    return () => {
      for (const stop of stops) stop();
    };
  }

  close(): void {
    void this.relay?.close();
    this.#expected.clear();
    this.#registry.clear();
  }

  #handle(registration: Registration): PushRegistration {
    const registry = this.#registry;
    const ready = this.#publish(registration);
    return {
      get taskId() {
        return registration.taskId;
      },
      ready,
      bind: (taskId) => {
        nonEmpty('bind: taskId', taskId);
        if (registration.taskId === taskId || !registration.live) return;
        if (registration.taskId !== undefined) throw new TetherError('INVALID_ARGUMENT', `PushRegistration.bind: already bound to another task`);
        registry.bind(registration, taskId, this.#now());
        void this.#publish(registration);
      },
      subscribe: (listener) => registry.subscribe(registration, listener),
      forget: () => this.#drop(registration),
    };
  }

  #drop(registration: Registration): void {
    if (!registration.live) return;
    this.#registry.forget(registration, this.#now());
    this.relay?.unregister(shared(registration)).catch(this.#onError);
  }

  #publish(registration: Registration): Promise<void> {
    return this.relay === undefined ? SETTLED : this.relay.register(shared(registration)).catch(this.#onError);
  }
}

function shared(registration: Registration): RelayRegistration {
  return { tokenSha256: registration.tokenSha256, taskId: registration.taskId };
}
