import { createA2AError, type A2AClient, type PushNotificationConfig } from '@a2a-tether/node';
import { openClient } from '../agent/open-client.js';
import { field, pushConfigText } from '../output/text.js';
import { wirePushConfig } from '../output/wire.js';
import type { RunContext } from './context.js';

/** The flags of `task push-config create`. */
export interface PushCreateFlags {
  url: string;
  id?: string | undefined;
  token?: string | undefined;
  authScheme?: string | undefined;
  authCredentials?: string | undefined;
}

/** A client whose card offers push notifications (checked before any push request, spec §13.3). */
async function pushClient(context: RunContext): Promise<A2AClient> {
  const client = await openClient(context);
  if (!client.card.capabilities.pushNotifications) {
    throw createA2AError(-32003, `agent "${client.card.name}" does not accept push notifications (capabilities.pushNotifications is false)`);
  }
  return client;
}

function print(context: RunContext, client: A2AClient, configs: PushNotificationConfig[], single: boolean): void {
  const { io, globals } = context;
  const version = client.interface.protocolVersion;
  if (globals.output === 'json') {
    const body = single && configs[0] ? wirePushConfig(configs[0], version) : version === '1.0' ? { configs: configs.map((c) => wirePushConfig(c, version)) } : configs.map((c) => wirePushConfig(c, version));
    io.out(`${JSON.stringify(body, null, 2)}\n`);
    return;
  }
  io.out(configs.map(pushConfigText).join('\n'));
}

/** `task push-config create <taskId> --url <url>`. */
export async function pushCreate(context: RunContext, taskId: string, flags: PushCreateFlags): Promise<void> {
  const client = await pushClient(context);
  const config: PushNotificationConfig = { taskId, url: flags.url };
  if (flags.id) config.id = flags.id;
  if (flags.token) config.token = flags.token;
  if (flags.authScheme) config.authentication = { schemes: [flags.authScheme], ...(flags.authCredentials ? { credentials: flags.authCredentials } : {}) };
  print(context, client, [await client.createPushConfig(config)], true);
}

/** `task push-config get <taskId> <configId>`. */
export async function pushGet(context: RunContext, taskId: string, configId: string): Promise<void> {
  const client = await pushClient(context);
  print(context, client, [await client.getPushConfig(taskId, configId)], true);
}

/** `task push-config list <taskId>`. */
export async function pushList(context: RunContext, taskId: string): Promise<void> {
  const client = await pushClient(context);
  print(context, client, await client.listPushConfigs(taskId), false);
}

/** `task push-config delete <taskId> <configId>`: JSON `{}` (the protocol's empty answer), text `Deleted: true`. */
export async function pushDelete(context: RunContext, taskId: string, configId: string): Promise<void> {
  const client = await pushClient(context);
  await client.deletePushConfig(taskId, configId);
  context.io.out(context.globals.output === 'json' ? '{}\n' : field('Task ID', taskId) + field('Config ID', configId) + field('Deleted', true));
}
