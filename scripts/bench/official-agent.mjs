// The bench's official agent: @a2a-js/sdk 1.3.0 (A2A v1.0) running the interop scenario grammar
// (packages/interop/src/official-v1-server.ts), alone in its own process. Run through tsx (it imports
// the interop package's TypeScript sources). Prints `{"url": …, "origin": …}` once listening; exits
// when its stdin closes (the parent went away) or on SIGTERM.
import { startOfficialV1Server } from '../../packages/interop/src/official-v1-server.ts';

const server = await startOfficialV1Server();
process.stdout.write(`${JSON.stringify({ url: server.origin, origin: server.origin })}\n`);

const stop = async () => {
  await server.close();
  process.exit(0);
};
process.stdin.on('end', stop);
process.stdin.resume();
process.on('SIGTERM', stop);
