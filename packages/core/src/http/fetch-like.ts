/** The subset of WHATWG `fetch` Tether needs; inject undici's, a browser's, or a test double. */
export type FetchLike = (input: string | URL, init?: RequestInit) => Promise<Response>;
