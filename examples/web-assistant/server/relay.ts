/**
 * The relay route of the example (docs/relay.md): the page talks to `/api/a2a/assistant` on its own
 * origin, and the relay passes the calls on to the agent — which sends no CORS headers and may need
 * credentials the browser never sees. The same relay runs in Vite's dev server (the plugin below) and
 * in the production server (server/production.ts).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createRelay, toNodeHandler } from '@a2a-tether/node/relay';
import type { Plugin } from 'vite';

/** Where the relay is mounted; the page connects to `${RELAY_PATH}/assistant`. */
export const RELAY_PATH = '/api/a2a';

/** The relay for the agent at `agentUrl`, as a Node request handler; `next()` for paths outside it. */
export function relayMiddleware(agentUrl: string): (req: IncomingMessage, res: ServerResponse, next: () => void) => void {
  const relay = createRelay({
    basePath: RELAY_PATH,
    agents: {
      // A real agent's credentials go here (e.g. `headers: { authorization: `Bearer ${process.env.AGENT_TOKEN}` }`).
      assistant: { url: agentUrl },
    },
    // The app's signed-in user (its session). The demo has no sign-in: one user, so every tab sees every task.
    owner: () => 'demo-user',
    // Several tabs of the page each follow their tasks: more than one user's default allowance.
    limits: { requestsPerMinute: 6000, streamsPerOwner: 32 },
  });
  const handle = toNodeHandler(relay);
  return (req, res, next) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (path === RELAY_PATH || path.startsWith(`${RELAY_PATH}/`)) handle(req, res);
    else next();
  };
}

/** A Vite plugin that mounts the relay on the dev server (`vite`, `pnpm start`) and on `vite preview`. */
export function relayPlugin(agentUrl: string): Plugin {
  return {
    name: 'a2a-relay',
    configureServer(server) {
      server.middlewares.use(relayMiddleware(agentUrl));
    },
    configurePreviewServer(server) {
      server.middlewares.use(relayMiddleware(agentUrl));
    },
  };
}
