import { readFileSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import type { Part } from '@a2a-tether/node';
import { CliError } from '../errors/cli-error.js';

/** One message part flag as given, in command-line order (`--media-type` binds to the one before it). */
export interface PartFlag {
  kind: 'text' | 'file' | 'data';
  value: string;
  mediaType?: string | undefined;
}

/**
 * The ordered part flags of one `send`: commander calls each option's parser in command-line order,
 * so the flags land here in the order given, and `--media-type` finds the part before it.
 */
export class PartFlags {
  readonly flags: PartFlag[] = [];

  add(kind: PartFlag['kind'], value: string): void {
    this.flags.push({ kind, value });
  }

  mediaType(value: string): void {
    const last = this.flags[this.flags.length - 1];
    if (!last) throw CliError.usage('--media-type must follow a part flag (--text, --file or --data)', 'for example: --file report.bin --media-type application/pdf');
    if (last.mediaType !== undefined) throw CliError.usage(`--media-type ${value}: the part before it already has --media-type ${last.mediaType}`);
    last.mediaType = value;
  }
}

const MEDIA_TYPES: Readonly<Record<string, string>> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.html': 'text/html',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.xml': 'application/xml',
  '.zip': 'application/zip',
};

/** Reads the parts: text as is, a file as inline base64 bytes (a URL as a file URI), data as JSON from a file or stdin. */
export function buildParts(flags: readonly PartFlag[], cwd: string, readStdin: () => string): Part[] {
  return flags.map((flag): Part => {
    switch (flag.kind) {
      case 'text':
        return { kind: 'text', text: flag.value, ...(flag.mediaType ? { mediaType: flag.mediaType } : {}) };
      case 'file': {
        if (/^https?:\/\//i.test(flag.value)) {
          return { kind: 'file', uri: flag.value, ...(flag.mediaType ? { mediaType: flag.mediaType } : {}) };
        }
        const path = resolve(cwd, flag.value);
        let bytes: Buffer;
        try {
          bytes = readFileSync(path);
        } catch (error) {
          throw CliError.usage(`--file ${flag.value}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
        }
        const mediaType = flag.mediaType ?? MEDIA_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream';
        return { kind: 'file', bytes: bytes.toString('base64'), filename: basename(path), mediaType };
      }
      case 'data': {
        let text: string;
        try {
          text = flag.value === '-' ? readStdin() : readFileSync(resolve(cwd, flag.value), 'utf8');
        } catch (error) {
          throw CliError.usage(`--data ${flag.value}: cannot read it (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
        }
        let data: unknown;
        try {
          data = JSON.parse(text);
        } catch (error) {
          throw CliError.usage(`--data ${flag.value}: not JSON (${(error as Error).message})`);
        }
        return { kind: 'data', data, ...(flag.mediaType ? { mediaType: flag.mediaType } : {}) };
      }
    }
  });
}
