import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import type { TrustError } from '@trust/core';

/**
 * Wraps the dispatcher's body as a web stream that decodes gzip/deflate/br (as fetch does) and
 * enforces the size cap on decoded bytes while streaming. Errors are mapped by `mapError`.
 */
export function boundedBody(
  source: Readable,
  contentEncoding: string | undefined,
  maxBytes: number,
  tooLarge: () => TrustError,
  mapError: (e: unknown) => TrustError,
  onDone: () => void = () => {},
): ReadableStream<Uint8Array> {
  const enc = (contentEncoding ?? '').trim().toLowerCase();
  const decoder =
    enc === 'gzip' || enc === 'x-gzip'
      ? createGunzip()
      : enc === 'deflate'
        ? createInflate()
        : enc === 'br'
          ? createBrotliDecompress()
          : undefined;
  const stream: Readable =
    decoder === undefined ? source : (pipeline(source, decoder, () => {}) as unknown as Readable);
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer>;
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const { done, value } = await iterator.next();
        if (done) {
          onDone();
          return controller.close();
        }
        total += value.byteLength;
        if (total > maxBytes) {
          controller.error(tooLarge());
          onDone();
          source.destroy();
          stream.destroy();
          return;
        }
        controller.enqueue(new Uint8Array(value.buffer, value.byteOffset, value.byteLength));
      } catch (e) {
        controller.error(mapError(e));
        onDone();
      }
    },
    cancel() {
      onDone();
      source.destroy();
      stream.destroy();
    },
  });
}
