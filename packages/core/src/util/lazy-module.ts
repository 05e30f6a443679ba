import { TetherError } from '../errors/tether-error.js';

/**
 * Code that is imported only when first needed — or ahead of that, while something else waits on the
 * network: bundlers split every `import()` into a chunk of its own (issue 17, D23, D26). Loaded once per
 * page or process. A page that cannot fetch the chunk (offline, or a deploy replaced it) gets a
 * `NETWORK` error from the call that needed it, and the next call loads it again.
 */
export class LazyModule<M> {
  private loaded: M | undefined;
  private loading: Promise<M> | undefined;

  /** `what` names the code in the error of a failed load ("Tether's task engine"). */
  constructor(
    private readonly what: string,
    private readonly load: () => Promise<M>,
  ) {}

  /** The module, when its code is here already (a call on it then waits for nothing). */
  get now(): M | undefined {
    return this.loaded;
  }

  /** The module, its code loaded first if need be. */
  get(): Promise<M> {
    if (this.loaded !== undefined) return Promise.resolve(this.loaded);
    this.loading ??= this.load().then(
      (module) => (this.loaded = module),
      (error: unknown) => {
        this.loading = undefined;
        throw new TetherError('NETWORK', `could not load ${this.what}: ${error instanceof Error ? error.message : String(error)}`, {
          cause: error,
          maybeDelivered: false,
        });
      },
    );
    return this.loading;
  }

  /** Starts loading now, for a call that comes later; a failure here waits for that call. */
  preload(): void {
    this.get().catch(() => undefined);
  }
}
