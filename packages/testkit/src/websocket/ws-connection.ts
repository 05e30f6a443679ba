// A WebSocket server connection (RFC 6455), just enough for tests: the handshake on an HTTP upgrade, text
// messages both ways (client frames masked, fragments joined), ping/pong and close. No extensions.
import { Buffer } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
/** The largest message a test connection takes: 16 MiB. */
const MAX_MESSAGE = 16 * 1024 * 1024;

/** One accepted WebSocket connection. */
export class WsConnection {
  private buffered = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private closed = false;
  onMessage: (text: string) => void = () => undefined;
  /** Called once when the connection ends, however it ends. */
  readonly closeListeners = new Set<() => void>();

  private constructor(private readonly socket: Duplex) {
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.gone());
    socket.on('error', () => this.gone());
  }

  /** Answers the upgrade request (101) and returns the connection, or refuses it (400) and returns undefined. */
  static accept(request: IncomingMessage, socket: Duplex): WsConnection | undefined {
    const key = request.headers['sec-websocket-key'];
    if (typeof key !== 'string' || request.headers.upgrade?.toLowerCase() !== 'websocket') {
      socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
      return undefined;
    }
    const accept = createHash('sha1').update(key + GUID).digest('base64');
    socket.write(`HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`);
    return new WsConnection(socket);
  }

  get isOpen(): boolean {
    return !this.closed;
  }

  /** Sends one text message. */
  send(text: string): void {
    if (this.closed) return;
    this.socket.write(frame(0x1, Buffer.from(text, 'utf8')));
  }

  /** A clean close (status 1000). */
  close(): void {
    if (this.closed) return;
    this.socket.write(frame(0x8, Buffer.from([0x03, 0xe8])));
    this.socket.end();
    this.gone();
  }

  /** Drops the TCP connection without a close frame, as a load balancer or a dead network does. */
  cut(): void {
    this.socket.destroy();
    this.gone();
  }

  private gone(): void {
    if (this.closed) return;
    this.closed = true;
    for (const listener of this.closeListeners) listener();
  }

  private receive(chunk: Buffer): void {
    this.buffered = Buffer.concat([this.buffered, chunk]);
    for (;;) {
      const parsed = parseFrame(this.buffered);
      if (parsed === undefined) return;
      if (parsed === 'too-large') return this.cut();
      this.buffered = this.buffered.subarray(parsed.size);
      const { fin, opcode, payload } = parsed;
      if (opcode === 0x8) return this.close();
      if (opcode === 0x9) {
        this.socket.write(frame(0xa, payload));
        continue;
      }
      if (opcode === 0xa) continue;
      if (opcode === 0x1 || opcode === 0x2 || opcode === 0x0) {
        this.fragments.push(payload);
        if (!fin) continue;
        const text = Buffer.concat(this.fragments).toString('utf8');
        this.fragments = [];
        this.onMessage(text);
      }
    }
  }
}

/** A server frame (unmasked, FIN set). */
function frame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const head = length < 126 ? Buffer.alloc(2) : length < 65_536 ? Buffer.alloc(4) : Buffer.alloc(10);
  head[0] = 0x80 | opcode;
  if (length < 126) head[1] = length;
  else if (length < 65_536) {
    head[1] = 126;
    head.writeUInt16BE(length, 2);
  } else {
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  return Buffer.concat([head, payload]);
}

/** One client frame from the start of `data`, unmasked; undefined until it is whole. */
function parseFrame(data: Buffer): { fin: boolean; opcode: number; payload: Buffer; size: number } | 'too-large' | undefined {
  if (data.length < 2) return undefined;
  const fin = (data[0]! & 0x80) !== 0;
  const opcode = data[0]! & 0x0f;
  const masked = (data[1]! & 0x80) !== 0;
  let length = data[1]! & 0x7f;
  let offset = 2;
  if (length === 126) {
    if (data.length < 4) return undefined;
    length = data.readUInt16BE(2);
    offset = 4;
  } else if (length === 127) {
    if (data.length < 10) return undefined;
    const big = data.readBigUInt64BE(2);
    if (big > BigInt(MAX_MESSAGE)) return 'too-large';
    length = Number(big);
    offset = 10;
  }
  if (length > MAX_MESSAGE) return 'too-large';
  const maskAt = offset;
  if (masked) offset += 4;
  if (data.length < offset + length) return undefined;
  const payload = Buffer.from(data.subarray(offset, offset + length));
  if (masked) for (let i = 0; i < payload.length; i++) payload[i]! ^= data[maskAt + (i % 4)]!;
  return { fin, opcode, payload, size: offset + length };
}
