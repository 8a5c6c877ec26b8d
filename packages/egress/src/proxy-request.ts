import type { IncomingMessage } from 'node:http';
import { deny, type Deny } from '@trust/core';

/** Headers that belong to one hop and are never forwarded (RFC 9110 §7.6.1), plus `host`. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  // The proxy answers `Expect: 100-continue` itself (undici refuses to send `expect`), and
  // rewrites `Max-Forwards` (RFC 9110 §7.6.2).
  'expect',
  'max-forwards',
]);

/** The header names a `Connection` header nominates as hop-by-hop, lowercased. */
function nominated(connection: string | readonly string[] | undefined): Set<string> {
  const all = Array.isArray(connection) ? connection.join(',') : String(connection ?? '');
  return new Set(
    all
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== ''),
  );
}

/** A refusal of the request as the client sent it, before anything is judged. */
export interface RequestRefusal {
  readonly status: number;
  readonly decision: Deny;
}

const HINT = 'send one well-formed HTTP/1.1 request (RFC 9112)';

function bad(reason: string, status = 400, hint = HINT): RequestRefusal {
  return {
    status,
    decision: deny('EGRESS_REQUEST_MALFORMED', `egress proxy: malformed request: ${reason}`, {
      rule: 'http-syntax',
      hint,
    }),
  };
}

/**
 * The request shapes the proxy refuses before judging: a backslash in the target (parsers
 * disagree on it), a `Transfer-Encoding` other than `chunked`, `Transfer-Encoding` on HTTP/1.0
 * (RFC 9112 §6.1: faulty framing), more header lines than `maxHeaderCount` (`431`, never a
 * truncated head), an `Expect` other than `100-continue` (`417`), and a `Max-Forwards` that is
 * not a number. Every refusal closes the connection.
 */
export function checkRequest(req: IncomingMessage, maxHeaderCount: number): RequestRefusal | undefined {
  if (req.rawHeaders.length / 2 > maxHeaderCount) {
    return bad(
      `the request has ${req.rawHeaders.length / 2} header lines, more than the limit of ${maxHeaderCount}`,
      431,
      'send fewer header lines',
    );
  }
  if ((req.url ?? '').includes('\\')) {
    return bad('the request target contains a backslash', 400, 'percent-encode it as %5C');
  }
  const te = req.headers['transfer-encoding'];
  if (te !== undefined && req.httpVersion === '1.0') {
    return bad('Transfer-Encoding is not allowed in an HTTP/1.0 request (RFC 9112 §6.1)');
  }
  if (te !== undefined && te.trim().toLowerCase() !== 'chunked') {
    return bad('Transfer-Encoding must be exactly "chunked"');
  }
  const expect = req.headers.expect;
  if (expect !== undefined && expect.trim().toLowerCase() !== '100-continue') {
    return bad('the only expectation supported is "100-continue"', 417, 'remove the Expect header');
  }
  const mf = req.headers['max-forwards'];
  if (mf !== undefined && !/^\d{1,9}$/.test(String(mf).trim())) return bad('Max-Forwards must be a decimal number');
  return undefined;
}

/** `Max-Forwards` of a `TRACE` or `OPTIONS` (RFC 9110 §7.6.2); `undefined` when absent or another method. */
export function maxForwards(req: IncomingMessage, method: string): number | undefined {
  if (method !== 'TRACE' && method !== 'OPTIONS') return undefined;
  const mf = req.headers['max-forwards'];
  return mf === undefined ? undefined : Number(String(mf).trim());
}

/**
 * The request headers to forward: the fixed hop-by-hop list and every header the client's
 * `Connection` nominates are removed; `Max-Forwards`, when honoured, is decremented.
 */
export function forwardHeaders(req: IncomingMessage, forwards: number | undefined): Headers {
  const drop = nominated(req.headers.connection);
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    const name = (req.rawHeaders[i] ?? '').toLowerCase();
    if (!HOP_BY_HOP.has(name) && !drop.has(name)) headers.append(name, req.rawHeaders[i + 1] ?? '');
  }
  if (forwards !== undefined) headers.set('max-forwards', String(forwards - 1));
  return headers;
}

/** The upstream response headers to pass on, without hop-by-hop ones or those its `Connection` nominates. */
export function responseHeaders(headers: Record<string, string | string[] | undefined>): string[] {
  const drop = nominated(headers.connection);
  const out: string[] = [];
  for (const [k, v] of Object.entries(headers)) {
    if (HOP_BY_HOP.has(k) || drop.has(k) || v === undefined) continue;
    for (const one of Array.isArray(v) ? v : [v]) out.push(k, one);
  }
  return out;
}

/**
 * The answer to a `TRACE` or `OPTIONS` whose `Max-Forwards` is 0: the proxy is the final
 * recipient and nothing is forwarded. `TRACE` echoes the request as received (minus
 * `Proxy-Authorization`); `OPTIONS` lists the methods.
 */
export function finalRecipientAnswer(
  req: IncomingMessage,
  method: string,
): { headers: Record<string, string>; body: string } {
  if (method === 'OPTIONS') return { headers: { allow: 'GET, HEAD, POST, PUT, DELETE, PATCH, OPTIONS' }, body: '' };
  let body = `${method} ${req.url ?? ''} HTTP/${req.httpVersion}\r\n`;
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if ((req.rawHeaders[i] ?? '').toLowerCase() === 'proxy-authorization') continue;
    body += `${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}\r\n`;
  }
  return { headers: { 'content-type': 'message/http' }, body: `${body}\r\n` };
}
