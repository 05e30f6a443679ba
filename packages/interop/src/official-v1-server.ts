import express from 'express';
import { A2A_PROTOCOL_VERSION, AGENT_CARD_PATH } from '@a2a-js/sdk';
import type { AgentCard, AgentCardSignatureGenerator, AgentInterface } from '@a2a-js/sdk';
import { duplicateInterfacesForLegacy } from '@a2a-js/sdk/compat/v0_3';
import { createLegacyAwarePushNotificationSender } from '@a2a-js/sdk/compat/v0_3/server';
import {
  DefaultPushNotificationSender,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
} from '@a2a-js/sdk/server';
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from '@a2a-js/sdk/server/express';
import { A2AService, grpcService, UserBuilder as GrpcUserBuilder } from '@a2a-js/sdk/server/grpc';
import * as grpc from '@grpc/grpc-js';
import { listenOnLoopback } from './listen-loopback.js';
import { ExecutionLog } from './official-server.js';
import type { OfficialServer } from './official-server.js';
import { ScenarioRunner } from './scenario.js';
import { V1ScenarioExecutor } from './v1-scenario-executor.js';

export interface OfficialV1ServerOptions {
  /**
   * Also enable the SDK's v0.3 compatibility layer: the card declares every binding at
   * 0.3 as well, and each handler accepts v0.3 requests (no `A2A-Version`, or `0.3`).
   * Default false.
   */
  readonly legacyCompat?: boolean | undefined;
  /** `capabilities.pushNotifications`; false provokes PushNotificationNotSupported (-32003). Default true. */
  readonly pushNotifications?: boolean | undefined;
  /** `capabilities.extendedAgentCard`; false provokes UnsupportedOperation (-32004). Default true. */
  readonly extendedAgentCard?: boolean | undefined;
  /** Signs the public and the extended card on every request (the SDK's `generateAgentCardSignature(…)`). Default none. */
  readonly cardSigner?: AgentCardSignatureGenerator | undefined;
  /** Express middleware run before the A2A handlers of `/a2a` (to watch requests as the agent sees them). */
  readonly watch?: express.RequestHandler | undefined;
  /**
   * Also serve the SDK's gRPC service (`@a2a-js/sdk/server/grpc`) on 127.0.0.1, listed first on the card as
   * `GRPC` 1.0. `advertise(port)` gives the interface's `url` (default `127.0.0.1:<port>`): a test can put a
   * fault proxy in front of it.
   */
  readonly grpc?: boolean | { advertise?: (port: number) => string | Promise<string> } | undefined;
}

const PUSH_TOKEN_HEADER = 'X-A2A-Notification-Token';

function buildCard(jsonRpcUrl: string, restUrl: string, options: OfficialV1ServerOptions, grpcUrl?: string): AgentCard {
  const interfaces: AgentInterface[] = [
    ...(grpcUrl === undefined ? [] : [{ url: grpcUrl, protocolBinding: 'GRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION }]),
    { url: jsonRpcUrl, protocolBinding: 'JSONRPC', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
    { url: restUrl, protocolBinding: 'HTTP+JSON', tenant: '', protocolVersion: A2A_PROTOCOL_VERSION },
  ];
  return {
    name: 'Tether interop agent (@a2a-js/sdk 1.3.0)',
    description: 'Runs the interop scenario grammar: echo, stream, input, fail, reject, slow.',
    supportedInterfaces: options.legacyCompat
      ? duplicateInterfacesForLegacy(interfaces, ['JSONRPC', 'HTTP+JSON'])
      : interfaces,
    provider: undefined,
    version: '1.3.0',
    capabilities: {
      streaming: true,
      pushNotifications: options.pushNotifications ?? true,
      extensions: [],
      extendedAgentCard: options.extendedAgentCard ?? true,
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [
      {
        id: 'scenarios',
        name: 'Scenarios',
        description: 'The first text part selects a scenario: `<name> key=value …`; unknown names echo.',
        tags: ['interop'],
        examples: ['echo hello', 'stream updates=3 chunks=5 delayMs=5', 'input', 'fail', 'reject', 'slow steps=50 delayMs=20'],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}

/** The extended card differs from the public one, so a test can tell which one it got. */
function extendCard(card: AgentCard): AgentCard {
  return {
    ...card,
    description: `${card.description} (extended card)`,
    skills: [
      ...card.skills,
      {
        id: 'extended-only',
        name: 'Extended only',
        description: 'Listed only on the extended agent card.',
        tags: ['interop', 'extended'],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      },
    ],
  };
}

/** Starts @a2a-js/sdk 1.3.0 (A2A v1.0) on 127.0.0.1 with JSON-RPC, REST and the agent card. */
export async function startOfficialV1Server(options: OfficialV1ServerOptions = {}): Promise<OfficialServer> {
  const app = express();
  // Listen first: the card must carry the real port, and routes can be mounted afterwards.
  const listener = await listenOnLoopback(app);
  const jsonRpcUrl = `${listener.origin}/a2a/jsonrpc`;
  const restUrl = `${listener.origin}/a2a/rest`;
  const grpcServer = options.grpc ? new grpc.Server() : undefined;
  const grpcPort = grpcServer
    ? await new Promise<number>((resolve, reject) => grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (error, port) => (error ? reject(error) : resolve(port))))
    : undefined;
  const advertise = typeof options.grpc === 'object' ? options.grpc.advertise : undefined;
  const grpcUrl = grpcPort === undefined ? undefined : advertise ? await advertise(grpcPort) : `127.0.0.1:${grpcPort}`;
  const card = buildCard(jsonRpcUrl, restUrl, options, grpcUrl);

  const runner = new ScenarioRunner();
  const log = new ExecutionLog();
  const pushStore = new InMemoryPushNotificationStore();
  const senderOptions = { tokenHeaderName: PUSH_TOKEN_HEADER };
  // With compat on, webhooks registered over v0.3 must keep receiving v0.3-shaped bodies.
  const pushSender = options.legacyCompat
    ? createLegacyAwarePushNotificationSender(pushStore, senderOptions)
    : new DefaultPushNotificationSender(pushStore, senderOptions);
  const requestHandler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    new V1ScenarioExecutor(runner, log),
    undefined,
    pushStore,
    pushSender,
    async () => extendCard(card),
    options.cardSigner,
  );

  const legacyCompat = { enabled: options.legacyCompat ?? false };
  const userBuilder = UserBuilder.noAuthentication;
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: requestHandler, legacyCompat }));
  if (options.watch) app.use('/a2a', options.watch);
  app.use('/a2a/jsonrpc', jsonRpcHandler({ requestHandler, userBuilder, legacyCompat }));
  app.use('/a2a/rest', restHandler({ requestHandler, userBuilder, legacyCompat }));
  grpcServer?.addService(A2AService, grpcService({ requestHandler, userBuilder: GrpcUserBuilder.noAuthentication }));


  return {
    cardUrl: `${listener.origin}/${AGENT_CARD_PATH}`,
    origin: listener.origin,
    jsonRpcUrl,
    restUrl,
    grpcTarget: grpcPort === undefined ? undefined : `127.0.0.1:${grpcPort}`,
    get executions() {
      return log.count;
    },
    get receivedMessageIds() {
      return log.messageIds;
    },
    async close() {
      runner.close();
      grpcServer?.forceShutdown();
      await listener.close();
    },
  };
}
