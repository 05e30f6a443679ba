/** A body read whole within its bound, or `undefined` when it is larger. */
export async function readBounded(body: ReadableStream<Uint8Array> | null, limit: number, declaredLength: string | null): Promise<Uint8Array<ArrayBuffer> | undefined> {
  if (body === null) return new Uint8Array();
  if (declaredLength !== null && Number(declaredLength) > limit) {
    await body.cancel().catch(() => undefined);
    return undefined;
  }
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.byteLength;
  }
  return out;
}
