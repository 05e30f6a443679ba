import type { IncomingMessage, ServerResponse } from 'node:http';
import { once } from 'node:events';
import { Readable } from 'node:stream';

/** Options of {@link toNodeHandler}. */
export interface NodeHandlerOptions {
  /** The origin requests arrive at, e.g. `https://app.example`. Default: `http://` and the `Host` header. */
  origin?: string | undefined;
}

/**
 * A Web-standard handler (a relay route) as a `node:http` request listener — `createServer(toNodeHandler(relay))`,
 * or a route of Express / Fastify (`(req, res) => handler(req, res)`). The request's signal aborts when the
 * client goes away (so does the agent's request); a response stream that fails cuts the connection rather
 * than ending it cleanly, so the browser knows to resume.
 */
export function toNodeHandler(handler: (request: Request) => Promise<Response>, options: NodeHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const abort = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort();
    });
    const origin = options.origin ?? `http://${req.headers.host ?? 'localhost'}`;
    const headers = new Headers();
    for (const [name, value] of Object.entries(req.headersDistinct)) for (const v of value ?? []) headers.append(name, v);
    const hasBody = req.method !== 'GET' && req.method !== 'HEAD';
    const request = new Request(new URL(req.url ?? '/', origin), {
      method: req.method ?? 'GET',
      headers,
      signal: abort.signal,
      ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
    } as RequestInit);
    void (async () => {
      const response = await handler(request);
      res.writeHead(response.status, [...response.headers].flat());
      if (response.body === null) {
        res.end();
        return;
      }
      res.flushHeaders();
      for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
        if (!res.write(chunk)) await once(res, 'drain');
      }
      res.end();
    })().catch(() => res.destroy());
  };
}
