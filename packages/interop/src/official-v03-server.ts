import express from 'express';
import { AGENT_CARD_PATH } from 'a2a-sdk-v03';
import type { AgentCard } from 'a2a-sdk-v03';
import {
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from 'a2a-sdk-v03/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from 'a2a-sdk-v03/server/express';
import { listenOnLoopback } from './listen-loopback.js';
import { ExecutionLog } from './official-server.js';
import type { OfficialServer } from './official-server.js';
import { ScenarioRunner } from './scenario.js';
import { V03ScenarioExecutor } from './v03-scenario-executor.js';

export interface OfficialV03ServerOptions {
  /** `capabilities.pushNotifications`; false provokes PushNotificationNotSupported (-32003). Default true. */
  readonly pushNotifications?: boolean | undefined;
  /** `supportsAuthenticatedExtendedCard`; false provokes UnsupportedOperation (-32004). Default true. */
  readonly extendedAgentCard?: boolean | undefined;
  /** Express middleware run before the A2A handlers of `/a2a` (to watch requests as the agent sees them). */
  readonly watch?: express.RequestHandler | undefined;
}

const PUSH_TOKEN_HEADER = 'X-A2A-Notification-Token';

function buildCard(jsonRpcUrl: string, restUrl: string, options: OfficialV03ServerOptions): AgentCard {
  return {
    name: 'Tether interop agent (@a2a-js/sdk 0.3.14)',
    description: 'Runs the interop scenario grammar: echo, stream, input, fail, reject, slow.',
    protocolVersion: '0.3.0',
    version: '0.3.14',
    url: jsonRpcUrl,
    preferredTransport: 'JSONRPC',
    additionalInterfaces: [
      { url: jsonRpcUrl, transport: 'JSONRPC' },
      { url: restUrl, transport: 'HTTP+JSON' },
    ],
    capabilities: { streaming: true, pushNotifications: options.pushNotifications ?? true },
    supportsAuthenticatedExtendedCard: options.extendedAgentCard ?? true,
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'scenarios',
        name: 'Scenarios',
        description: 'The first text part selects a scenario: `<name> key=value …`; unknown names echo.',
        tags: ['interop'],
        examples: ['echo hello', 'stream updates=3 chunks=5 delayMs=5', 'input', 'fail', 'reject', 'slow steps=50 delayMs=20'],
      },
    ],
  };
}

/** The extended card differs from the public one, so a test can tell which one it got. */
function extendCard(card: AgentCard): AgentCard {
  return {
    ...card,
    description: `${card.description} (extended card)`,
    skills: [
      ...card.skills,
      { id: 'extended-only', name: 'Extended only', description: 'Listed only on the extended agent card.', tags: ['interop', 'extended'] },
    ],
  };
}

/**
 * Starts @a2a-js/sdk 0.3.14 (A2A v0.3) on 127.0.0.1: JSON-RPC at `/a2a/jsonrpc`,
 * REST at `/a2a/rest` (the SDK's routes are `/v1/…` under it) and the agent card.
 */
export async function startOfficialV03Server(options: OfficialV03ServerOptions = {}): Promise<OfficialServer> {
  const app = express();
  // Listen first: the card must carry the real port, and routes can be mounted afterwards.
  const listener = await listenOnLoopback(app);
  const jsonRpcUrl = `${listener.origin}/a2a/jsonrpc`;
  const restUrl = `${listener.origin}/a2a/rest`;
  const card = buildCard(jsonRpcUrl, restUrl, options);

  const runner = new ScenarioRunner();
  const log = new ExecutionLog();
  const pushStore = new InMemoryPushNotificationStore();
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new V03ScenarioExecutor(runner, log),
    undefined,
    pushStore,
    new DefaultPushNotificationSender(pushStore, { tokenHeaderName: PUSH_TOKEN_HEADER }),
    async () => extendCard(card),
  );

  const userBuilder = UserBuilder.noAuthentication;
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler }));
  if (options.watch) app.use('/a2a', options.watch);
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder }));

  return {
    cardUrl: `${listener.origin}/${AGENT_CARD_PATH}`,
    origin: listener.origin,
    jsonRpcUrl,
    restUrl,
    get executions() {
      return log.count;
    },
    get receivedMessageIds() {
      return log.messageIds;
    },
    async close() {
      runner.close();
      await listener.close();
    },
  };
}
