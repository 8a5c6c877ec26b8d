import type { ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { deny, type Deny } from '@trust/core';

const PHRASES: Readonly<Record<number, string>> = {
  400: 'Bad Request',
  403: 'Forbidden',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  417: 'Expectation Failed',
  431: 'Request Header Fields Too Large',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

function denyBody(d: Deny): string {
  return `${d.reason}${d.hint ? `; ${d.hint}` : ''}\n`;
}

/** A raw HTTP/1.1 answer for a socket that has no response object (tunnels, parse errors). */
function rawAnswer(status: number, d: Deny): string {
  const text = denyBody(d);
  return (
    `HTTP/1.1 ${status} ${PHRASES[status] ?? 'Error'}\r\n` +
    'content-type: text/plain; charset=utf-8\r\n' +
    `x-trust-deny: ${d.code}\r\n` +
    `content-length: ${Buffer.byteLength(text)}\r\n` +
    `connection: close\r\n\r\n${text}`
  );
}

/**
 * Answers a forwarded request with `status`, `x-trust-deny` and the reason; destroys it if the answer already began.
 */
export function refuseHttp(res: ServerResponse, d: Deny, status = 403, extra: Record<string, string> = {}): void {
  if (res.headersSent) return void res.destroy();
  const text = denyBody(d);
  res.writeHead(status, {
    ...extra,
    'content-type': 'text/plain; charset=utf-8',
    'x-trust-deny': d.code,
    'content-length': Buffer.byteLength(text),
    connection: 'close',
  });
  res.end(text);
}

/** Answers a CONNECT that gets no tunnel, and closes the socket. */
export function refuseTunnel(socket: Duplex, d: Deny, status = 403): void {
  socket.end(rawAnswer(status, d));
}

/**
 * The answer to a request the HTTP parser refused (`clientError`): a status and a short reason
 * instead of a silent close. Smuggling shapes (both `Content-Length` and `Transfer-Encoding`,
 * two lengths) and a backslash or control byte in the target each get their own reason.
 */
export function malformedRequest(err: Error & { code?: string }): { status: number; decision: Deny } {
  const code = err.code ?? '';
  const hint = 'send one well-formed HTTP/1.1 request (RFC 9112)';
  const bad = (reason: string, status = 400): { status: number; decision: Deny } => ({
    status,
    decision: deny('EGRESS_REQUEST_MALFORMED', `egress proxy: malformed request: ${reason}`, {
      rule: 'http-syntax',
      hint,
    }),
  });
  if (code === 'HPE_HEADER_OVERFLOW') return bad('the request headers are too large', 431);
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return bad('the request did not arrive in time', 408);
  if (code === 'HPE_INVALID_URL')
    return bad('the request target has a character that is not allowed (a backslash, a space or a control byte)');
  if (code === 'HPE_INVALID_TRANSFER_ENCODING' || code === 'HPE_UNEXPECTED_CONTENT_LENGTH') {
    return bad('conflicting or invalid Content-Length and Transfer-Encoding (send exactly one of them)');
  }
  if (code === 'HPE_INVALID_CONTENT_LENGTH') return bad('the Content-Length is not a number');
  if (
    code === 'HPE_INVALID_HEADER_TOKEN' ||
    code === 'HPE_INVALID_HEADER_VALUE' ||
    code === 'HPE_LF_EXPECTED' ||
    code === 'HPE_CR_EXPECTED'
  )
    return bad('a header line is malformed');
  if (code === 'HPE_INVALID_VERSION') return bad('the HTTP version is not supported');
  if (code === 'HPE_INVALID_METHOD') return bad('the method is not valid');
  if (code === 'HPE_INVALID_CHUNK_SIZE') return bad('a chunk size is malformed');
  return bad(`the request could not be parsed (${code.replace(/[^A-Z0-9_]/g, '') || 'parse error'})`);
}

/** Writes the answer to a parser-refused request on a socket no response has begun on. */
export function refuseMalformed(socket: Duplex, status: number, d: Deny): void {
  socket.end(rawAnswer(status, d));
}
