import type { AgentCard, ProtocolVersion } from '../card/card-types.js';
import { redact } from '../errors/redact.js';
import { TetherError } from '../errors/tether-error.js';
import type { Message } from '../model/types.js';
import type { SendParams } from '../protocol/encoder.js';
import type { CallOptions, SendOptions, SubscribeOptions, Transport } from '../transport/transport.js';
import type { AgentFacts, FollowContext } from './follow-context.js';
import { StreamSlots } from './stream-slots.js';

/** What the engine needs of the client that follows tasks: its calls, and what its card says now. */
export interface EngineHost {
  /** Runs a call on the client's current interface, falling back as the client's own calls do; never retried. */
  run<T>(call: (transport: Transport) => Promise<T>): Promise<T>;
  /** The card as the client has it now (the extended one once fetched), where it was found, and the version in use. */
  agent(): { card: AgentCard; cardUrl: string; protocolVersion: ProtocolVersion };
}

/** The client's settings the engine follows tasks with (`connect()`'s options, defaults applied). */
export type FollowSettings = Omit<FollowContext, 'client' | 'owner' | 'following' | 'streamSlots' | 'gate'> & {
  /** This client's name as a lease owner. */
  leaseOwner: string;
  /** The streams the client may hold open at once. */
  maxStreams: number;
  /** `connect(url, { experimental: { generations } })`. */
  generations: boolean;
};

function sendParams(message: Message, options: SendOptions): SendParams {
  const out: SendParams = { message, blocking: !(options.returnImmediately ?? false) };
  if (options.acceptedOutputModes !== undefined) out.acceptedOutputModes = options.acceptedOutputModes;
  if (options.historyLength !== undefined) out.historyLength = options.historyLength;
  if (options.pushNotification !== undefined) out.pushNotification = options.pushNotification;
  if (options.metadata !== undefined) out.metadata = options.metadata;
  if (options.ifGenerationMatch !== undefined) out.ifGenerationMatch = options.ifGenerationMatch;
  return out;
}

/** What the engine reads of the agent's card. */
function agentFacts({ card, cardUrl, protocolVersion }: ReturnType<EngineHost['agent']>): AgentFacts {
  return {
    // What task records keep: credential-like query values (a key put in the URL) redacted.
    url: redact(cardUrl),
    streaming: card.capabilities.streaming === true,
    listTasks: protocolVersion === '1.0',
    subscribeSnapshot: protocolVersion === '1.0',
    push: card.capabilities.pushNotifications === true,
  };
}

/**
 * What every task of one client shares. Its operations go straight to the transport, without the retries
 * of the client's public methods: the engine's budget, scheduler and request ceiling decide every retry (D2).
 * Built here, in the engine's own chunk, so that a web app loads none of it before its first request (D26).
 */
export function followContext(host: EngineHost, settings: FollowSettings): FollowContext {
  const run = <T>(call: (transport: Transport) => Promise<T>): Promise<T> => host.run(call);
  const { leaseOwner, maxStreams, generations, ...shared } = settings;
  const gate = generations ? shared.parts.generations : undefined;
  if (generations && !gate) throw new TetherError('INVALID_ARGUMENT', 'experimental.generations: not in this build');
  const following: FollowContext['following'] = new Map();
  // A task's requests continue its follow's trace (unless the call names one).
  const traced = <O extends CallOptions>(taskId: string | undefined, options: O): O => {
    const trace = taskId === undefined || options.traceContext ? undefined : following.get(taskId)?.options.traceContext;
    return trace ? { ...options, traceContext: trace } : options;
  };
  let seen: ReturnType<EngineHost['agent']> | undefined;
  let facts: AgentFacts | undefined;
  return {
    ...shared,
    client: {
      get agent(): AgentFacts {
        const now = host.agent();
        // Read on every reduction of every follow: made again only when the card (or its version) changed.
        if (!facts || seen?.card !== now.card || seen.cardUrl !== now.cardUrl || seen.protocolVersion !== now.protocolVersion) {
          seen = now;
          facts = agentFacts(now);
        }
        return facts;
      },
      sendMessage: (message, options) => run((t) => t.sendMessage(sendParams(message, options), traced(message.taskId, options))),
      openStream: (message, options, signal) => run((t) => t.openStream(sendParams(message, options), traced(message.taskId, options), signal)),
      openSubscription: (taskId, lastEventId, signal) => run((t) => t.openSubscription(taskId, traced<SubscribeOptions>(taskId, { lastEventId }), signal)),
      getTask: (taskId, options) => run((t) => t.getTask(taskId, options.historyLength, traced(taskId, options))),
      listTasks: (query, options) => run((t) => t.listTasks(query, options)),
      cancelTask: (taskId, options) => run((t) => t.cancelTask(taskId, options.metadata, traced(taskId, options))),
      createPushConfig: (config, options) => run((t) => t.createPushConfig(config, traced(config.taskId, options))),
      deletePushConfig: (taskId, configId, options) => run((t) => t.deletePushConfig(taskId, configId, traced(taskId, options))),
    },
    owner: leaseOwner,
    gate,
    following,
    streamSlots: new StreamSlots(maxStreams),
  };
}
