import { PassThrough, type Readable } from 'node:stream';

/** A stream that keeps at most `limit` bytes of its source and remembers whether it cut. */
export interface CappedOutput {
  readonly stream: Readable;
  /** True once bytes were dropped because of the cap. */
  truncated(): boolean;
  /** Bytes seen from the source, kept or not. */
  total(): number;
}

/**
 * Forwards at most `limit` bytes from `source` to a new stream and drops the rest, while still
 * draining the source so the process never blocks on a full pipe. A bounded buffer: a caller
 * that never reads holds at most `limit` bytes.
 */
export function capOutput(source: Readable | null, limit: number): CappedOutput {
  const out = new PassThrough({ highWaterMark: Math.max(16 * 1024, Math.min(limit, 1024 * 1024)) });
  let kept = 0;
  let seen = 0;
  let cut = false;
  if (!source) {
    out.end();
  } else {
    source.on('data', (chunk: Buffer) => {
      seen += chunk.length;
      if (kept >= limit) {
        cut = true;
        return;
      }
      const room = limit - kept;
      const piece = chunk.length > room ? chunk.subarray(0, room) : chunk;
      if (piece.length < chunk.length) cut = true;
      kept += piece.length;
      // Without a cap (a service run, whose reader consumes as it goes) a reader that pauses holds
      // the process back: the pipe fills and the server waits, instead of this buffer growing.
      if (!out.write(piece) && limit === Infinity) {
        source.pause();
        out.once('drain', () => source.resume());
      }
    });
    source.on('end', () => out.end());
    source.on('error', (err) => out.destroy(err));
  }
  return { stream: out, truncated: () => cut, total: () => seen };
}

/**
 * Reads a stream to the end as UTF-8 (a helper for callers and tests).
 *
 * @example
 * const out = await readAll(proc.stdout);
 */
export async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
