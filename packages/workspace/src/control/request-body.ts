import type { IncomingMessage } from 'node:http';
import { DEFAULT_MAX_JSON_DEPTH, TrustError, checkJsonText } from '@trust/core';
import { controlError } from './control-error.js';

/**
 * Reads a JSON request body of at most `limit` bytes. A declared Content-Length over the limit is
 * refused before reading; a streamed body is cut off as soon as it passes the limit. Only
 * `application/json` is accepted, so an HTML form can never post to the API.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  const declared = Number(req.headers['content-length'] ?? '0');
  if (declared > limit) throw tooLarge(limit);
  if (type !== 'application/json') {
    if (declared === 0 && req.headers['transfer-encoding'] === undefined) return {};
    throw controlError(
      'CONTROL_UNSUPPORTED_MEDIA_TYPE',
      `content type "${type}" is refused`,
      'send the body as application/json',
    );
  }
  const text = await readLimited(req, limit);
  if (text.trim() === '') return {};
  // Nesting is checked on the text, before JSON.parse and the route schemas (both recursive).
  const shape = checkJsonText(text, { maxDepth: DEFAULT_MAX_JSON_DEPTH });
  if (!shape.allow)
    throw new TrustError(shape.code, `the request body ${shape.reason.replace(/^the input /, '')}`, {
      decision: shape,
      ...(shape.hint === undefined ? {} : { hint: shape.hint }),
    });
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw controlError(
      'CONTROL_BAD_REQUEST',
      'the request body is not valid JSON',
      'send a JSON object, e.g. {"text":"hello"}',
    );
  }
}

/** Reads a body as text, up to `limit` bytes, whatever its content type. */
export function readLimited(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        done = true;
        req.pause();
        reject(tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!done) resolve(Buffer.concat(chunks).toString('utf8'));
    });
    req.on('error', (err) => {
      if (!done) reject(err);
    });
  });
}

function tooLarge(limit: number) {
  return controlError(
    'CONTROL_BODY_TOO_LARGE',
    `the request body is larger than ${limit} bytes`,
    'send a smaller body',
  );
}
