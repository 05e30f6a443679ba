/** What a started official-SDK server exposes to tests and to the frame capture. */
export interface OfficialServer {
  /** `<origin>/.well-known/agent-card.json` */
  readonly cardUrl: string;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly jsonRpcUrl: string;
  /** The REST base; v1 paths hang off it directly, v0.3 paths under `/v1/…`. */
  readonly restUrl: string;
  /** `127.0.0.1:<port>` of the gRPC service, when the server runs one. */
  readonly grpcTarget?: string | undefined;
  /** How many user messages reached the agent executor (for "received exactly once" tests). */
  readonly executions: number;
  /** The messageId of every user message the executor received, in arrival order. */
  readonly receivedMessageIds: readonly string[];
  /** Ends open SSE responses, stops scenario timers and closes the listener. */
  close(): Promise<void>;
}

/** Counts what the executor receives; shared by both servers. */
export class ExecutionLog {
  readonly #messageIds: string[] = [];

  record(messageId: string): void {
    this.#messageIds.push(messageId);
  }

  get count(): number {
    return this.#messageIds.length;
  }

  get messageIds(): readonly string[] {
    return this.#messageIds;
  }
}
