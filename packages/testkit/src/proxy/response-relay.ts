import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { bytesBeforeCut } from './cut-point.js';
import type { CutFault, DripFault, StallFault } from './fault-rule.js';
import type { FaultProxyLogEntry, FaultProxyStats } from './proxy-stats.js';
import { SseBoundaryScanner } from './sse-boundary-scanner.js';

/** How a relayed body finished. */
export type RelayOutcome = 'ended' | 'cut' | 'stalled' | 'client-gone' | 'upstream-failed' | 'closed';

/** What a relay writes to and reports into. */
export interface RelayIo {
  /** The client response; its headers are already sent. */
  res: ServerResponse;
  /** The client connection, for resets. */
  socket: Socket;
  /** Resolves when the client response closes (finished, destroyed or the client went away). */
  clientClosed: Promise<void>;
  /** Aborted when the client goes away or the proxy closes: ends sleeps early. */
  signal: AbortSignal;
  /** Aborted when the proxy closes. */
  proxyClosing: AbortSignal;
  entry: FaultProxyLogEntry;
  stats: FaultProxyStats;
}

/** Reset a TCP connection (RST, not FIN), as a load balancer that drops it does. */
export function resetSocket(socket: Socket): void {
  if (socket.destroyed) return;
  try {
    socket.resetAndDestroy();
  } catch {
    // Not a TCP handle (resetAndDestroy throws ERR_INVALID_HANDLE_TYPE): an abrupt close will do.
    socket.destroy();
  }
}

/**
 * Passes one response body to the client, applying at most one body fault: a cut, a stall or a drip.
 * SSE events are counted on the bytes actually passed, so "after n events" means n events the client
 * received in full.
 */
export class ResponseRelay {
  private readonly scanner: SseBoundaryScanner | undefined;
  private readonly cut: CutFault | undefined;
  private readonly stall: StallFault | undefined;
  private readonly drip: DripFault | undefined;
  /** Stop (cut or stall) after this many events, or after this many bytes. */
  private readonly stopAfterEvents: number | undefined;
  private readonly stopAfterBytes: number | undefined;
  /** For cuts inside an event: bytes of that event held back until its end is known. */
  private held: Buffer | undefined;
  private heldEnds: number[] = [];
  private stalled = false;

  constructor(
    private readonly io: RelayIo,
    fault: CutFault | StallFault | DripFault | undefined,
    sse: boolean,
  ) {
    this.scanner = sse ? new SseBoundaryScanner() : undefined;
    this.cut = fault?.kind === 'cut' ? fault : undefined;
    this.stall = fault?.kind === 'stall' ? fault : undefined;
    this.drip = fault?.kind === 'drip' ? fault : undefined;
    if (this.cut?.afterBytes !== undefined) this.stopAfterBytes = this.cut.afterBytes;
    else if (this.cut !== undefined) this.stopAfterEvents = this.cut.afterEvents ?? 0;
    else if (this.stall !== undefined) this.stopAfterEvents = this.stall.afterEvents ?? 0;
    if (this.drip !== undefined) io.stats.dripped++;
  }

  private get holdsMidEvent(): boolean {
    return this.cut?.within === 'event' || this.cut?.within === 'utf8';
  }

  private get clientGone(): boolean {
    return this.io.res.destroyed;
  }

  /** Relay `body` to the client. Resolves once the response is over, including a stall's end. */
  async run(body: AsyncIterable<Uint8Array> | Iterable<Uint8Array>): Promise<RelayOutcome> {
    try {
      if (this.stopAfterEvents === 0 || this.stopAfterBytes === 0) {
        if (this.holdsMidEvent) this.held = Buffer.alloc(0);
        else if (this.cut !== undefined) return await this.cutNow();
        else this.startStall();
      }
      for await (const chunk of body) {
        if (this.clientGone) return 'client-gone';
        // A stalled response keeps reading (and dropping) the agent's bytes: the agent runs on.
        if (this.stalled) continue;
        const outcome = await this.relayChunk(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if (outcome !== undefined) return outcome;
      }
    } catch {
      if (this.io.proxyClosing.aborted) return 'closed';
      if (this.clientGone) return 'client-gone';
      // The agent's side failed mid-body: pass the failure on as abruptly as it came.
      resetSocket(this.io.socket);
      return 'upstream-failed';
    }
    return this.finish();
  }

  /** Relay one chunk; returns an outcome when the response is over. */
  private async relayChunk(chunk: Buffer): Promise<RelayOutcome | undefined> {
    const ends = this.scanner?.scan(chunk) ?? [];
    if (this.held !== undefined) return this.hold(chunk, ends);
    let stopAt: number | undefined;
    if (this.stopAfterBytes !== undefined) {
      const room = this.stopAfterBytes - this.io.entry.bytesForwarded;
      if (chunk.length >= room) stopAt = room;
    } else if (this.stopAfterEvents !== undefined) {
      stopAt = ends[this.stopAfterEvents - this.io.entry.eventsForwarded - 1];
    }
    if (stopAt === undefined) {
      await this.pass(chunk, ends);
      return this.clientGone ? 'client-gone' : undefined;
    }
    const at = stopAt;
    await this.pass(chunk.subarray(0, at), ends.filter((end) => end <= at));
    if (this.clientGone) return 'client-gone';
    if (this.holdsMidEvent) {
      this.held = Buffer.alloc(0);
      return this.hold(
        chunk.subarray(at),
        ends.filter((end) => end > at).map((end) => end - at),
      );
    }
    if (this.cut !== undefined) return this.cutNow();
    this.startStall();
    return undefined;
  }

  /** Collect the event to cut inside until its end is known, then send part of it and cut. */
  private async hold(chunk: Buffer, ends: number[]): Promise<RelayOutcome | undefined> {
    const held = this.held ?? Buffer.alloc(0);
    this.heldEnds.push(...ends.map((end) => end + held.length));
    this.held = Buffer.concat([held, chunk]);
    const end = this.heldEnds[0];
    if (end === undefined) return undefined;
    return this.cutInside(this.held.subarray(0, end));
  }

  private async cutInside(event: Buffer): Promise<RelayOutcome> {
    const within = this.cut?.within === 'utf8' ? 'utf8' : 'event';
    await this.pass(event.subarray(0, bytesBeforeCut(event, within)), []);
    return this.cutNow();
  }

  /** The agent's body ended. A pending cut or stall happens here instead of the clean end. */
  private async finish(): Promise<RelayOutcome> {
    if (this.clientGone) return 'client-gone';
    if (this.held !== undefined && this.held.length > 0) return this.cutInside(this.held);
    if (this.cut !== undefined) return this.cutNow();
    if (this.stall !== undefined) {
      if (!this.stalled) this.startStall();
      await this.untilClientGone();
      return 'stalled';
    }
    this.io.res.end();
    return 'ended';
  }

  private startStall(): void {
    this.stalled = true;
    this.io.stats.stalls++;
  }

  private untilClientGone(): Promise<void> {
    const closing = this.io.proxyClosing;
    if (closing.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      // Unhooked either way: one listener per stall on the proxy's long-lived signal would pile up.
      const onClosing = (): void => resolve();
      closing.addEventListener('abort', onClosing, { once: true });
      void this.io.clientClosed.then(() => {
        closing.removeEventListener('abort', onClosing);
        resolve();
      });
    });
  }

  private async cutNow(): Promise<RelayOutcome> {
    const mode = this.cut?.mode ?? 'reset';
    if (mode === 'reset') {
      // Node corks response writes until the next tick; let them reach the socket before the RST.
      await nextTurn();
      resetSocket(this.io.socket);
    } else {
      this.io.res.end();
    }
    this.io.stats.cuts[mode]++;
    return 'cut';
  }

  /** Send `bytes`, counting the events that end in them (offsets in `ends`). Drips when asked to. */
  private async pass(bytes: Buffer, ends: readonly number[]): Promise<void> {
    const step = this.drip?.bytesPerWrite ?? Math.max(bytes.length, 1);
    for (let from = 0; from < bytes.length && !this.clientGone; from += step) {
      if (this.drip !== undefined && this.io.entry.writes > 0) {
        await sleep(this.drip.intervalMs, undefined, { signal: this.io.signal });
      }
      const to = Math.min(from + step, bytes.length);
      await this.write(bytes.subarray(from, to));
      this.io.entry.eventsForwarded += ends.filter((end) => end > from && end <= to).length;
    }
  }

  /** One write; resolves once it reached the socket (or the client is gone), which also paces the agent. */
  private async write(bytes: Buffer): Promise<void> {
    if (this.clientGone) return;
    this.io.entry.writes++;
    this.io.entry.bytesForwarded += bytes.length;
    this.io.stats.bytesForwarded += bytes.length;
    // The callback does not fire when the socket is destroyed meanwhile, hence the race with close.
    await Promise.race([new Promise<void>((resolve) => this.io.res.write(bytes, () => resolve())), this.io.clientClosed]);
  }
}
