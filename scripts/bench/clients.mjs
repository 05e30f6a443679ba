// The clients the bench measures, behind one interface. Each `create({ url, version })` resolves with
//   run(text)   → reads one task's stream to its end; resolves with { events } it yielded;
//   open(text)  → resolves once the first event arrived, keeps reading in the background;
//                 returns { close(), done } (close stops reading, done settles when reading ended);
//   forget()    → drops what the client keeps about finished tasks (Tether's task store);
//   close()     → closes its connection pool.
// Every client uses undici with the same pool settings (2,048 sockets per origin, no body timeout):
// Tether's createNodeFetch for Tether and the official SDK, an undici Agent for the floor.
/* global AbortController, TextDecoder */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createParser } from 'eventsource-parser';
import { Agent, request } from 'undici';

const root = new URL('../../', import.meta.url);
export const paths = {
  nodeDist: new URL('packages/node/dist/index.js', root),
  otelDist: new URL('packages/otel/dist/index.js', root),
  otelPackage: new URL('packages/otel/package.json', root),
  testkitDist: new URL('packages/testkit/dist/index.js', root),
  sdkDir: new URL('packages/interop/node_modules/@a2a-js/sdk/', root),
};

const { connect, createNodeFetch, RESILIENCE_DEFAULTS } = await import(paths.nodeDist.href);
export const sdkPackage = JSON.parse(readFileSync(new URL('package.json', paths.sdkDir), 'utf8'));
const { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } = await import(
  new URL(sdkPackage.exports['./client'].import, paths.sdkDir).href
);

export const SOCKETS = 2_048;

function nodeFetch() {
  return createNodeFetch({ connections: SOCKETS, keepAliveTimeoutMs: 10_000 });
}

/** Reads an async iterator in the background once its first item arrived. */
async function openIterator(iterator, close) {
  await iterator.next();
  const reading = (async () => {
    for (;;) if ((await iterator.next()).done) return;
  })();
  return { close, done: reading.catch(() => undefined) };
}

/**
 * floor: the least any A2A streaming client must do — POST with undici's request(), split the SSE
 * body with eventsource-parser, JSON.parse each event's data, count it. No validation, no types.
 */
async function createFloor({ url, version }) {
  const dispatcher = new Agent({ connections: SOCKETS, keepAliveTimeout: 10_000, bodyTimeout: 0, headersTimeout: 60_000 });
  const endpoint = `${new URL(url).origin}/a2a/jsonrpc`;
  let id = 0;
  const body = (text) =>
    JSON.stringify(
      version === '1.0'
        ? { jsonrpc: '2.0', id: ++id, method: 'SendStreamingMessage', params: { message: { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } } }
        : {
            jsonrpc: '2.0',
            id: ++id,
            method: 'message/stream',
            params: { message: { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] } },
          },
    );
  const headers = { 'content-type': 'application/json', accept: 'text/event-stream', ...(version === '1.0' ? { 'a2a-version': '1.0' } : {}) };
  const post = async (text, signal) => {
    const response = await request(endpoint, { method: 'POST', headers, body: body(text), dispatcher, signal });
    if (response.statusCode !== 200 || !String(response.headers['content-type']).startsWith('text/event-stream')) {
      throw new Error(`floor: HTTP ${response.statusCode} ${response.headers['content-type']}: ${(await response.body.text()).slice(0, 200)}`);
    }
    return response.body;
  };
  return {
    async run(text) {
      let events = 0;
      const parser = createParser({
        onEvent(event) {
          JSON.parse(event.data);
          events++;
        },
      });
      const decoder = new TextDecoder();
      for await (const chunk of await post(text)) parser.feed(decoder.decode(chunk, { stream: true }));
      return { events };
    },
    async open(text) {
      const controller = new AbortController();
      const stream = await post(text, controller.signal);
      let first;
      const arrived = new Promise((resolve) => (first = resolve));
      const parser = createParser({
        onEvent(event) {
          JSON.parse(event.data);
          first();
        },
      });
      const reading = (async () => {
        const decoder = new TextDecoder();
        for await (const chunk of stream) parser.feed(decoder.decode(chunk, { stream: true }));
      })();
      await Promise.race([arrived, reading]);
      return { close: () => controller.abort(), done: reading.catch(() => undefined) };
    },
    async forget() {},
    close: () => dispatcher.close(),
  };
}

/**
 * Reads the body and throws it away: what the firehose can write to a client that does nothing.
 * Not a client; it shows the server is not the limit.
 */
export async function createDiscard({ url, version }) {
  const dispatcher = new Agent({ connections: SOCKETS, keepAliveTimeout: 10_000, bodyTimeout: 0, headersTimeout: 60_000 });
  const endpoint = `${new URL(url).origin}/a2a/jsonrpc`;
  let id = 0;
  return {
    async run(text) {
      const message = version === '1.0' ? { messageId: randomUUID(), role: 'ROLE_USER', parts: [{ text }] } : { kind: 'message', messageId: randomUUID(), role: 'user', parts: [{ kind: 'text', text }] };
      const response = await request(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream', 'a2a-version': version },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method: version === '1.0' ? 'SendStreamingMessage' : 'message/stream', params: { message } }),
        dispatcher,
      });
      let bytes = 0;
      for await (const chunk of response.body) bytes += chunk.length;
      return bytes;
    },
    close: () => dispatcher.close(),
  };
}

/** official: @a2a-js/sdk's client, sendMessageStream(); v0.3 through its legacyCompat transport. */
async function createOfficial({ url, version }) {
  const fetch = nodeFetch();
  const legacyCompat = version === '0.3' ? { legacyCompat: { enabled: true } } : {};
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: fetch, ...legacyCompat })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: fetch, ...legacyCompat }),
  });
  const client = await factory.createFromUrl(url);
  // ROLE_USER = 1; a text part in the SDK's (proto) shape.
  const request_ = (text) => ({ message: { messageId: randomUUID(), role: 1, parts: [{ content: { $case: 'text', value: text } }] } });
  return {
    async run(text) {
      let events = 0;
      for await (const _event of client.sendMessageStream(request_(text))) events++;
      return { events };
    },
    async open(text) {
      const controller = new AbortController();
      return openIterator(client.sendMessageStream(request_(text), { signal: controller.signal }), () => controller.abort());
    },
    async forget() {},
    close: () => fetch.dispatcher.close(),
  };
}

async function connectTether({ url, version, resilience, fetch, plugins }) {
  return connect(url, { fetch, cardCache: false, preferredBindings: ['JSONRPC'], protocolVersions: [version], resilience, plugins });
}

/**
 * `@a2a-tether/otel` with the OpenTelemetry SDK as an app would set it up: a tracer provider whose
 * batch processor hands every span to an exporter (in memory here, emptied after each batch).
 */
async function otelPlugins() {
  const { otel } = await import(paths.otelDist.href);
  // The SDK as the otel package resolves it (its ESM build is not loadable by Node as is: the CommonJS one).
  const sdk = createRequire(paths.otelPackage)('@opentelemetry/sdk-trace-base');
  const exporter = new sdk.InMemorySpanExporter();
  const provider = new sdk.BasicTracerProvider({ spanProcessors: [new sdk.BatchSpanProcessor(exporter)] });
  return {
    plugins: [otel({ tracerProvider: provider })],
    flush: async () => {
      await provider.forceFlush();
      exporter.reset();
    },
    shutdown: () => provider.shutdown(),
  };
}

/** Tether raw: client.streamMessage(), iterated with for await. */
async function createRaw({ url, version }) {
  const fetch = nodeFetch();
  const client = await connectTether({ url, version, fetch });
  return {
    async run(text) {
      let events = 0;
      for await (const _event of client.streamMessage(text)) events++;
      return { events };
    },
    async open(text) {
      const stream = client.streamMessage(text);
      return openIterator(stream[Symbol.asyncIterator](), () => stream.abort());
    },
    async forget() {},
    close: () => fetch.dispatcher.close(),
  };
}

/**
 * Tether handle: client.start(), then for await over handle.events() until it ends, then done().
 * `startOptions`: e.g. `{ keepArtifacts: false }` (an app that renders from events only).
 */
async function createHandle({ url, version }, startOptions = {}, tracing) {
  const fetch = nodeFetch();
  const client = await connectTether({ url, version, fetch, plugins: tracing?.plugins });
  return {
    /** `events`: yielded by events() but connection events, counted apart; also awaits done(). */
    async run(text) {
      const handle = await client.start(text, startOptions);
      let events = 0;
      let connectionEvents = 0;
      for await (const event of handle.events()) {
        if (event.type === 'connection') connectionEvents++;
        else events++;
      }
      await handle.done();
      return { events, connectionEvents };
    },
    async open(text) {
      const handle = await client.start(text, startOptions);
      return openIterator(handle.events()[Symbol.asyncIterator](), () => handle.detach());
    },
    /** Detached and finished tasks stay in the store (resumable); an app that is done forgets them. */
    async forget() {
      for (const record of await client.store.list()) await client.store.delete(record.taskId);
      await tracing?.flush();
    },
    close: async () => {
      await tracing?.shutdown();
      await fetch.dispatcher.close();
    },
  };
}

export const CLIENTS = {
  floor: { label: 'floor (undici request + eventsource-parser + JSON.parse)', short: 'floor', create: createFloor },
  official: { label: `official @a2a-js/sdk ${sdkPackage.version} sendMessageStream()`, short: `@a2a-js/sdk ${sdkPackage.version}`, create: createOfficial },
  raw: { label: 'Tether raw client.streamMessage()', short: 'Tether raw', create: createRaw },
  handle: { label: 'Tether handle client.start() + handle.events()', short: 'Tether handle', create: createHandle },
  'handle-events': {
    label: 'Tether handle, keepArtifacts: false (an app that renders from events only)',
    short: 'handle, no kept artifact',
    create: (target) => createHandle(target, { keepArtifacts: false }),
  },
  'handle-otel': {
    label: 'Tether handle with @a2a-tether/otel (OpenTelemetry SDK, batch processor)',
    short: 'handle, traced',
    create: async (target) => createHandle(target, {}, await otelPlugins()),
  },
};

export { connect, createNodeFetch, RESILIENCE_DEFAULTS };
