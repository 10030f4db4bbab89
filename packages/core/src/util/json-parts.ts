/**
 * JSON texts grouped in order into JSON arrays of at most `bytes` (UTF-8, the brackets and commas
 * included) and `count` texts each; a text larger than `bytes` on its own makes an array of its
 * own. The socket's batched frames and the update feed's items are built this way.
 */
export function jsonArrays(texts: readonly string[], limits: { bytes: number; count?: number }): { text: string; count: number }[] {
  const arrays: { text: string; count: number }[] = [];
  const count = limits.count ?? Number.POSITIVE_INFINITY;
  let part: string[] = [];
  let bytes = 2;
  const close = () => {
    arrays.push({ text: `[${part.join(",")}]`, count: part.length });
    part = [];
    bytes = 2;
  };
  for (const text of texts) {
    const size = Buffer.byteLength(text) + 1;
    if (part.length > 0 && (part.length === count || bytes + size > limits.bytes)) close();
    part.push(text);
    bytes += size;
  }
  if (part.length > 0) close();
  return arrays;
}
