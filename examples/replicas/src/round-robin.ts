// The load balancer in front of the replicas' push receivers, in a few lines of node:http: each webhook
// call goes to the next replica in turn, whichever task it is for — so with three replicas, two pushes in
// three reach a replica that does not follow the task. Like a real load balancer it skips a replica that
// refuses the connection (one that died), and tries the next.
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RoundRobinProxy {
  /** `http://127.0.0.1:<port>/a2a/push`: the webhook URL every replica gives the agent. */
  readonly url: string;
  /** The receivers' ports, in rotation order (filled in as the replicas come up). */
  readonly targets: number[];
  /** The status of every answer passed back to the agent, in order (502: no replica answered). */
  readonly statuses: number[];
  close(): Promise<void>;
}

export async function startRoundRobinProxy(): Promise<RoundRobinProxy> {
  const targets: number[] = [];
  const statuses: number[] = [];
  let next = 0;

  const server = createServer((req, res) => {
    // Read the whole body first (pushes are small), so the call can be sent again to another replica.
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const tryTarget = (triesLeft: number): void => {
        const port = targets[next++ % targets.length];
        if (port === undefined || triesLeft === 0) {
          statuses.push(502);
          res.writeHead(502).end();
          return;
        }
        let answered = false;
        const forward = request({ host: '127.0.0.1', port, method: req.method, path: req.url, headers: req.headers, agent: false }, (answer) => {
          answered = true;
          statuses.push(answer.statusCode ?? 0);
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        // No answer from this replica (it is gone): the next one. Cut off mid-answer: cut the agent off too.
        forward.on('error', () => (answered ? res.destroy() : tryTarget(triesLeft - 1)));
        forward.end(body);
      };
      tryTarget(targets.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}/a2a/push`,
    targets,
    statuses,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
