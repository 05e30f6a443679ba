import express from 'express';

/** Two streams of one task open at once, as the agent saw them. */
export interface DoubleDrive {
  taskId: string;
  /** ms since the watch started. */
  at: number;
  /** The drivers (the `x-tether-worker` header of each open stream). */
  drivers: string[];
}

/**
 * Counts, from the agent's side, the task streams open at each moment (SubscribeToTask over JSON-RPC or
 * REST), per task and per driver (the `x-tether-worker` header): "one driver per task" checked where it
 * matters, at the agent, not in the clients' own reports.
 */
export class SubscriptionWatch {
  readonly #open = new Map<string, Map<number, string>>();
  readonly #started = Date.now();
  #next = 0;
  /** Every moment a second stream of a task opened while another was open. */
  readonly doubles: DoubleDrive[] = [];
  /** Subscriptions opened in all. */
  opened = 0;

  /** The drivers holding a stream of `taskId` open now. */
  drivers(taskId: string): string[] {
    return [...(this.#open.get(taskId)?.values() ?? [])];
  }

  /** Streams open now, in all. */
  get openNow(): number {
    let n = 0;
    for (const streams of this.#open.values()) n += streams.size;
    return n;
  }

  /** Streams open now whose driver's name starts with `prefix` (a worker's every incarnation: `w0#`). */
  heldBy(prefix: string): number {
    let n = 0;
    for (const streams of this.#open.values()) for (const who of streams.values()) if (who.startsWith(prefix)) n += 1;
    return n;
  }

  /** The middleware, for `/a2a` in front of the A2A handlers. */
  readonly middleware: express.RequestHandler = (req, res, next) => {
    const rest = /^\/rest\/(?:v1\/)?tasks\/([^/:]+):subscribe$/.exec(req.path);
    if (rest) {
      this.#track(decodeURIComponent(rest[1] ?? ''), req, res);
      next();
      return;
    }
    if (req.method !== 'POST' || !req.path.startsWith('/jsonrpc')) {
      next();
      return;
    }
    express.json()(req, res, (error?: unknown) => {
      if (error) {
        next(error);
        return;
      }
      const body = req.body as { method?: unknown; params?: { id?: unknown } } | undefined;
      if ((body?.method === 'SubscribeToTask' || body?.method === 'tasks/resubscribe') && typeof body.params?.id === 'string') {
        this.#track(body.params.id, req, res);
      }
      next();
    });
  };

  #track(taskId: string, req: express.Request, res: express.Response): void {
    const driver = String(req.headers['x-tether-worker'] ?? 'unknown');
    const id = this.#next++;
    let streams = this.#open.get(taskId);
    if (!streams) this.#open.set(taskId, (streams = new Map()));
    streams.set(id, driver);
    this.opened += 1;
    if (streams.size > 1) this.doubles.push({ taskId, at: Date.now() - this.#started, drivers: [...streams.values()] });
    res.on('close', () => {
      streams.delete(id);
      if (streams.size === 0 && this.#open.get(taskId) === streams) this.#open.delete(taskId);
    });
  }
}
