import type { RequestInfo, RequestOutcome, StreamEvent, TetherPlugin } from '@a2a-tether/node';
import { wireSendResult, wireStreamEvent, type WireVersion } from '../output/wire.js';

/**
 * `--debug`'s view of the protocol messages received: each unary answer that is a task or a message,
 * and each stream event, as protocol JSON in the interface's version (written back from what Tether
 * decoded, so fields Tether does not model are absent). `write` masks credentials.
 */
export function wireLogPlugin(write: (line: string) => void): TetherPlugin {
  const version = (request: RequestInfo): WireVersion => (request.protocolVersion === '0.3' ? '0.3' : '1.0');
  return {
    name: 'tether-cli-wire-log',
    onResponse(request: RequestInfo, outcome: RequestOutcome): void {
      if (outcome.result) write(`← ${request.operation} #${request.id} ${JSON.stringify(wireSendResult(outcome.result, version(request)))}`);
    },
    onStreamEvent(event: StreamEvent, request: RequestInfo): void {
      write(`← ${request.operation} #${request.id} event ${JSON.stringify(wireStreamEvent(event, version(request)))}`);
    },
  };
}
