import { deserialize, serialize } from 'node:v8';
import { TrustError } from '@trust/core';

/**
 * Frames between the host and an agent's SQL process, over a plain pipe (the child's stdin and
 * stdout): `[u32 LE length of the rest][u8 codec][payload]`. Codec 1 is UTF-8 JSON, the fast path
 * for the usual message (a few rows of text and numbers); codec 2 is V8's structured clone, for
 * a message that holds what JSON cannot carry exactly (blobs, NaN/±Infinity, -0). The sender
 * picks; the receiver accepts both. Message objects carry their own version (`v`).
 */
export const CODEC_JSON = 1;
export const CODEC_V8 = 2;
/** A frame larger than this is refused: results are capped far below (max_sql_result_bytes ≤ 64 MiB). */
export const MAX_FRAME_BYTES = 512 * 1024 * 1024;

/** Would JSON change this value? Scans arrays and plain objects (rows) one level deep. */
export function needsStructuredClone(value: unknown): boolean {
  if (value instanceof Uint8Array) return true;
  if (typeof value === 'number') return !Number.isFinite(value) || Object.is(value, -0);
  if (typeof value === 'bigint') return true;
  return false;
}

/** Encodes one message; `binary` forces the structured-clone codec. */
export function encodeFrame(message: unknown, binary: boolean): Buffer {
  if (!binary) {
    const json = JSON.stringify(message);
    const len = Buffer.byteLength(json);
    const out = Buffer.allocUnsafe(5 + len);
    out.writeUInt32LE(len + 1, 0);
    out[4] = CODEC_JSON;
    out.write(json, 5, 'utf8');
    return out;
  }
  const body = serialize(message);
  const out = Buffer.allocUnsafe(5 + body.length);
  out.writeUInt32LE(body.length + 1, 0);
  out[4] = CODEC_V8;
  body.copy(out, 5);
  return out;
}

function decodeBody(frame: Buffer): unknown {
  const codec = frame[0];
  if (codec === CODEC_JSON) return JSON.parse(frame.toString('utf8', 1));
  if (codec === CODEC_V8) return deserialize(frame.subarray(1));
  throw new TrustError('SQL_HOST_FAILED', `unknown frame codec ${String(codec)} on the SQL channel`, {
    hint: 'the SQL process and the host come from different builds; rebuild the package',
  });
}

/**
 * Returns a push function: give it each chunk read from the pipe, it calls `onMessage` once per
 * complete frame, in order. Chunks are joined only once a whole frame is there (a large answer
 * arrives in many small reads). Throws `SQL_HOST_FAILED` on a malformed frame.
 */
export function createFrameReader(onMessage: (message: unknown) => void): (chunk: Buffer) => void {
  let chunks: Buffer[] = [];
  let have = 0;
  let need = 0; // bytes of the current frame incl. its 4-byte header, once the header is known
  return (chunk) => {
    chunks.push(chunk);
    have += chunk.length;
    for (;;) {
      if (need === 0) {
        if (have < 4) return;
        if (chunks[0]!.length < 4) chunks = [Buffer.concat(chunks, have)];
        const len = chunks[0]!.readUInt32LE(0);
        if (len < 1 || len > MAX_FRAME_BYTES)
          throw new TrustError('SQL_HOST_FAILED', `malformed frame of ${len} bytes on the SQL channel`);
        need = 4 + len;
      }
      if (have < need) return;
      const buf = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, have);
      const frame = buf.subarray(4, need);
      const rest = buf.subarray(need);
      chunks = rest.length > 0 ? [rest] : [];
      have = rest.length;
      need = 0;
      onMessage(decodeBody(frame));
    }
  };
}
