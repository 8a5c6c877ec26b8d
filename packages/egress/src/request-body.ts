import { Readable } from 'node:stream';
import type { BodyInit } from 'undici';

/** What the dispatcher accepts as a request body. */
export type DispatchBody = string | Uint8Array | Readable | FormData | null;

/** True for bodies that can be read only once (and so cannot be replayed on 307/308). */
export function isStreamBody(body: unknown): boolean {
  return (
    typeof body === 'object' &&
    body !== null &&
    (typeof (body as ReadableStream).getReader === 'function' ||
      body instanceof Readable ||
      Symbol.asyncIterator in body)
  );
}

/**
 * Converts a fetch-style body to what the dispatcher sends, and sets the content type fetch
 * would set when the caller did not. Strings, bytes, Blob, URLSearchParams and FormData are
 * replayable; streams are not.
 */
export async function toDispatchBody(body: BodyInit | null | undefined, headers: Headers): Promise<DispatchBody> {
  if (body === null || body === undefined) return null;
  const type = (t: string) => {
    if (!headers.has('content-type') && t !== '') headers.set('content-type', t);
  };
  if (typeof body === 'string') {
    type('text/plain;charset=UTF-8');
    return body;
  }
  if (body instanceof URLSearchParams) {
    type('application/x-www-form-urlencoded;charset=UTF-8');
    return body.toString();
  }
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  if (ArrayBuffer.isView(body)) return new Uint8Array(body.buffer, body.byteOffset, body.byteLength);
  if (typeof Blob !== 'undefined' && body instanceof Blob) {
    type(body.type);
    return new Uint8Array(await body.arrayBuffer());
  }
  if (typeof FormData !== 'undefined' && body instanceof FormData) return body;
  if (typeof (body as ReadableStream).getReader === 'function')
    return Readable.fromWeb(body as import('node:stream/web').ReadableStream);
  if (body instanceof Readable) return body;
  if (typeof body === 'object' && Symbol.asyncIterator in body) return Readable.from(body as AsyncIterable<Uint8Array>);
  throw new TypeError('egress: unsupported request body type');
}
