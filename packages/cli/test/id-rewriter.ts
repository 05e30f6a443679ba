import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A proxy in front of a testkit agent that gives its task and context ids a hostile suffix. */
export interface IdRewriter {
  /** The proxy's origin (the card it serves points here). */
  url: string;
  /** The ids to rewrite: the scenarios add theirs as they start. */
  ids: Set<string>;
  /** `id` as the client sees it. */
  hostile(id: string): string;
  close(): Promise<void>;
}

/**
 * The testkit agent chooses its own task and context ids (UUIDs); a hostile agent chooses any string.
 * This proxy stands for one: in every answer, each id of `ids` gets `suffix` (as JSON text), and the
 * suffix is taken out of every request again, so the agent still finds its task. The agent's origin
 * in its card becomes the proxy's. JSON-RPC only (HTTP+JSON puts ids in paths).
 */
export async function startIdRewriter(target: string, suffix: string): Promise<IdRewriter> {
  const ids = new Set<string>();
  const jsonSuffix = JSON.stringify(suffix).slice(1, -1);
  let origin = '';
  const rewrite = (text: string): string => {
    let out = text.split(target).join(origin);
    for (const id of ids) out = out.split(`"${id}"`).join(`"${id}${jsonSuffix}"`);
    return out;
  };
  const body = async (stream: IncomingMessage): Promise<string> => {
    const chunks: Buffer[] = [];
    for await (const chunk of stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const sent = (await body(req)).split(jsonSuffix).join('');
    const headers = { ...req.headers, host: new URL(target).host, 'content-length': String(Buffer.byteLength(sent)) };
    delete headers['accept-encoding'];
    const upstream = request(`${target}${req.url ?? '/'}`, { method: req.method, headers });
    upstream.end(sent);
    const answer = await new Promise<IncomingMessage>((resolve, reject) => upstream.on('response', resolve).on('error', reject));
    const outHeaders = { ...answer.headers };
    delete outHeaders['content-length'];
    res.writeHead(answer.statusCode ?? 502, outHeaders);
    if (String(answer.headers['content-type']).includes('text/event-stream')) {
      // Events are rewritten whole (an id never splits across two writes).
      let pending = '';
      answer.setEncoding('utf8');
      for await (const chunk of answer) {
        pending += chunk as string;
        const end = pending.lastIndexOf('\n\n');
        if (end < 0) continue;
        res.write(rewrite(pending.slice(0, end + 2)));
        pending = pending.slice(end + 2);
      }
      res.end(rewrite(pending));
      return;
    }
    res.end(rewrite(await body(answer)));
  };
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => res.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    ids,
    hostile: (id) => `${id}${suffix}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
