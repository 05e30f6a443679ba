import { Buffer } from 'node:buffer';
import { request as httpRequest } from 'node:http';
import type { ClientRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { TaskEvent, TestPushConfig } from './model.js';
import { eventToItem } from './stream-session.js';
import type { TaskEntry } from './task-registry.js';
import { encodeV03Task } from './wire-v03-jsonrpc.js';
import { encodeV1StreamItem } from './wire-v1.js';

const PUSH_TIMEOUT_MS = 5_000;

/**
 * Delivers push notifications the way the official servers do: one POST per task event, fire-and-forget,
 * no retry. v1 configs get the event as a StreamResponse (`application/a2a+json`); v0.3 configs get the
 * whole Task in JSON-RPC shape (`application/json`). Posts to one config go out in order.
 */
export class PushSender {
  /** Deliveries that failed (network error or non-2xx). */
  failures = 0;
  private readonly queues = new Map<string, Promise<void>>();
  private readonly inflight = new Set<ClientRequest>();
  private closed = false;

  deliver(entry: TaskEntry, event: TaskEvent): void {
    if (this.closed || entry.pushConfigs.size === 0) return;
    // Bodies are built now: a v0.3 Task must show the state as of this event, not of the delivery.
    const v1Body = JSON.stringify(encodeV1StreamItem(eventToItem(event, true)));
    const v03Body = JSON.stringify(encodeV03Task(entry.snapshot()));
    for (const config of entry.pushConfigs.values()) {
      const body = config.dialect === '1.0' ? v1Body : v03Body;
      const key = `${config.taskId}/${config.id}`;
      const previous = this.queues.get(key) ?? Promise.resolve();
      const next = previous.then(() => this.post(config, body));
      this.queues.set(key, next);
      void next.then(() => {
        if (this.queues.get(key) === next) this.queues.delete(key);
      });
    }
  }

  /** Stop delivering and abort requests in flight. */
  close(): void {
    this.closed = true;
    for (const req of this.inflight) req.destroy();
    this.inflight.clear();
    this.queues.clear();
  }

  private post(config: TestPushConfig, body: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let settled = false;
      const settle = (ok: boolean): void => {
        if (settled) return;
        settled = true;
        this.inflight.delete(req);
        if (!ok && !this.closed) this.failures++;
        resolve();
      };
      const headers: Record<string, string | number> = {
        'Content-Type': config.dialect === '1.0' ? 'application/a2a+json' : 'application/json',
        'Content-Length': Buffer.byteLength(body),
      };
      if (config.token !== undefined) headers['X-A2A-Notification-Token'] = config.token;
      const scheme = config.authentication?.schemes[0];
      if (scheme !== undefined) {
        headers['Authorization'] = `${scheme} ${config.authentication?.credentials ?? ''}`.trim();
      }
      let req: ClientRequest;
      try {
        const url = new URL(config.url);
        const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
        req = send(url, { method: 'POST', headers, agent: false, timeout: PUSH_TIMEOUT_MS }, (res) => {
          res.resume();
          res.on('end', () => settle(res.statusCode !== undefined && res.statusCode >= 200 && res.statusCode < 300));
          res.on('error', () => settle(false));
        });
      } catch {
        if (!this.closed) this.failures++;
        resolve();
        return;
      }
      this.inflight.add(req);
      req.on('timeout', () => req.destroy(new Error('push timeout')));
      req.on('error', () => settle(false));
      req.end(body);
    });
  }
}
