export interface BrowserBundle {
  minifiedBytes: number;
  gzipBytes: number;
  code: string;
  inputs: { path: string; bytes: number }[];
}
export function measureBrowserBundle(): Promise<BrowserBundle>;
