export interface ShapeChunk {
  /** Relative to the repository root. */
  path: string;
  /** The app's own entry chunk (not one reached by `import()`). */
  entry: boolean;
  minifiedBytes: number;
  gzipBytes: number;
  code: string;
  /** The files bundled into it (the packages' dist files, relative to the repository root). */
  inputs: string[];
  staticImports: string[];
  dynamicImports: string[];
}
export interface ShapeTotal {
  gzipBytes: number;
  minifiedBytes: number;
  chunks: ShapeChunk[];
}
export const INITIAL_BUDGET_BYTES: number;
export const INITIAL_TARGET_BYTES: number;
/**
 * `initial`: the app's entry and its static imports. `duringCardRequest`: what connect() imports while the card
 * request is out (the task engine, the card reader). `v1JsonRpcAfterCard`: what a v1.0 JSON-RPC card adds after that.
 * `app`: the app's source (default: connect, start a task, await done()).
 */
export function measureInitialLoad(app?: string): Promise<{ initial: ShapeTotal; duringCardRequest: ShapeTotal; v1JsonRpcAfterCard: ShapeTotal; all: ShapeTotal }>;
