/** Largest JSON text of one call result sent to the studio, in bytes. */
export const MAX_RESULT_JSON_BYTES = 256 * 1024;

/**
 * Turns an export's return value into plain JSON for the studio: bigints become decimal strings,
 * byte arrays become number arrays, `undefined` becomes null. A result whose JSON is larger than
 * {@link MAX_RESULT_JSON_BYTES} is replaced by `{ truncated: true, preview }` (the head of its text).
 *
 * @example
 * toJsonResult(5n); // "5"
 */
export function toJsonResult(value: unknown): unknown {
  const text =
    JSON.stringify(value === undefined ? null : value, (_key, v: unknown) => {
      if (typeof v === 'bigint') return v.toString();
      if (ArrayBuffer.isView(v) && !(v instanceof DataView)) return Array.from(v as unknown as ArrayLike<number>);
      if (v instanceof Map) return Object.fromEntries(v);
      return v;
    }) ?? 'null';
  if (Buffer.byteLength(text) > MAX_RESULT_JSON_BYTES)
    return { truncated: true, preview: text.slice(0, MAX_RESULT_JSON_BYTES / 4) };
  return JSON.parse(text) as unknown;
}
