// One replica of push-relay-guards.test.ts in a process of its own, so the test can kill it (SIGKILL: no
// cleanup runs): `<redisUrl> <prefix> <taskId> <token>`. A push receiver on 127.0.0.1 shares a Redis task
// store's relay, registers the task with its token, answers the pushes handed to it, and prints `ready`
// once the registration is stored.
import { createServer } from 'node:http';
import { createPushReceiver } from '../../src/index.js';
import { createRedisTaskStore } from '../../src/redis-entry.js';

const [url = '', prefix = '', taskId = '', token = ''] = process.argv.slice(2);
const store = await createRedisTaskStore({ url, prefix });
const receiver = createPushReceiver({ token: 'receiver-wide-3b1f', relay: store.pushRelay() });
createServer(receiver.nodeHandler).listen(0, '127.0.0.1');
receiver.expect(taskId, { token });
receiver.subscribe(taskId, () => undefined);
await new Promise((resolve) => setTimeout(resolve, 200)); // the registration is written in the background
process.stdout.write('ready\n');
