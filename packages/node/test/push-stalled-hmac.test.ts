import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { rm } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import { PUSH_RECEIVER_DEFAULTS } from '../src/index.js';
import { bundleChild } from './helpers/bundle-child.js';
import { spawnLineChild } from './helpers/line-child.js';
import type { LineChild } from './helpers/line-child.js';

// Issue 16: the HMAC path read up to 256 KiB of an unauthenticated body before any check, and held it
// until Node's request timeout (300 s): 1,000 stalled connections cost +252 MB. Now the headers are
// checked first, unverifiable bodies share a byte budget (503 at once past it), and every body has a
// deadline (408). The receiver runs in a child process so that the RSS measured is its own.

const STALLED = 1_000;
const WARM_UP = 1_000;
const DEADLINE_MS = 1_000;
const DECLARED = 250 * 1024; // under maxBodyBytes (256 KiB)
const SENT = 192 * 1024; // most of it, then nothing more

const dirs: string[] = [];
const children: LineChild[] = [];
afterAll(async () => {
  for (const child of children) await child.kill();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

interface Report {
  ended: number;
  statuses: Record<string, number>;
  peakRssGrowth: number;
  heldRssGrowth: number;
  heldHeapGrowth: number;
  peakUnverifiedBytes: number;
}

/**
 * One request with valid-looking, fresh HMAC headers (a forged signature) that sends most of its body
 * and stalls. `ended` resolves when the receiver answered or closed it; `destroy` ends it from our side.
 */
function stall(port: number, index: number, chunk: Buffer, signed = true): { ended: Promise<void>; destroy: () => void } {
  let destroy: () => void = () => {};
  const ended = new Promise<void>((resolve) => {
    const req = request({
      host: '127.0.0.1',
      port,
      path: '/hook',
      method: 'POST',
      agent: false,
      headers: {
        'content-type': 'application/json',
        'content-length': String(DECLARED),
        ...(signed
          ? {
              'webhook-id': `stalled-${index}`,
              'webhook-timestamp': String(Math.floor(Date.now() / 1000)),
              'webhook-signature': `v1,${randomBytes(32).toString('base64')}`,
            }
          : {}),
      },
    });
    destroy = () => req.destroy();
    req.on('response', (res) => {
      res.resume();
      resolve();
    });
    req.on('error', () => resolve());
    req.on('close', () => resolve());
    req.write(chunk);
  });
  return { ended, destroy };
}

/** The child's latest report. */
function lastReport(child: LineChild): Report {
  const line = [...child.lines].reverse().find((text) => text.includes('"ended"'));
  if (line === undefined) throw new Error(`the child reported nothing; stderr: ${child.stderr()}`);
  return JSON.parse(line) as Report;
}

describe('stalled unauthenticated HMAC bodies', () => {
  it(`${STALLED} of them: RSS grows < 16 MB and every one ends (503 at once past the budget, 408 at the deadline)`, { timeout: 120_000 }, async () => {
    const { script, dir } = await bundleChild(new URL('./push/stalled-hmac-child.ts', import.meta.url));
    dirs.push(dir);
    const child = spawnLineChild(script, [String(DEADLINE_MS), String(WARM_UP)]);
    children.push(child);
    const { port } = JSON.parse(await child.waitForLine((line) => line.includes('"port"'), 30_000, 'the port')) as { port: number };

    const chunk = Buffer.alloc(SENT, 0x20); // one buffer shared by every request
    const send = async (count: number, signed: boolean): Promise<ReturnType<typeof stall>[]> => {
      // In waves of 25, 25 ms apart (about 1,000 a second); each stays open until the receiver ends it.
      const sent: ReturnType<typeof stall>[] = [];
      for (let wave = 0; wave < count / 25; wave += 1) {
        for (let i = 0; i < 25; i += 1) sent.push(stall(port, wave * 25 + i, chunk, signed));
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
      return sent;
    };
    // The warm-up: the same shape without credentials, refused from its headers — see the child.
    const warmUp = await send(WARM_UP, false);
    await child.waitForLine((line) => line.includes('"ready"'), 30_000, 'the baseline after the warm-up');
    for (const r of warmUp) r.destroy();
    const requests = await send(STALLED, true);
    // Bounded: with no deadline they would stay open for Node's request timeout (300 s).
    let timer: ReturnType<typeof setTimeout> | undefined;
    const allEnded = await Promise.race([
      Promise.all(requests.map((r) => r.ended)).then(() => true),
      new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), 30_000))),
    ]);
    clearTimeout(timer);
    // The child counts the answers it gave; wait (bounded) for its report to catch up.
    for (let i = 0; i < 20 && lastReport(child).ended < STALLED; i += 1) await new Promise((resolve) => setTimeout(resolve, 100));
    const report = lastReport(child);
    for (const r of requests) r.destroy();
    console.log(
      `stalled HMAC bodies: ${STALLED} requests of ${DECLARED} bytes, ${SENT} sent each: answers ${JSON.stringify(report.statuses)}, ` +
        `${report.ended} ended by the receiver, RSS growth after GC ${(report.heldRssGrowth / 1024 / 1024).toFixed(1)} MB (of which V8 heap ${(report.heldHeapGrowth / 1024 / 1024).toFixed(1)} MB; before GC: ${(report.peakRssGrowth / 1024 / 1024).toFixed(1)} MB), peak unverified bytes ${report.peakUnverifiedBytes}`,
    );
    expect(report.heldRssGrowth).toBeLessThan(16 * 1024 * 1024);
    expect(report.peakUnverifiedBytes).toBeLessThanOrEqual(PUSH_RECEIVER_DEFAULTS.maxUnverifiedBytes);
    expect(allEnded, 'every stalled request ended').toBe(true);
    expect(report.ended).toBe(STALLED);
    // Every request ended, refused at once (503) or cut at its deadline (408), none read to the end.
    expect(Object.keys(report.statuses).sort()).toEqual(['408', '503']);
    expect((report.statuses['408'] ?? 0) + (report.statuses['503'] ?? 0)).toBe(STALLED);
  });
});
