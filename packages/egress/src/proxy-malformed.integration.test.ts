import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEgressProxy, type EgressProxy } from './proxy.js';
import { allowAll, memorySink, principal } from './test-fixtures.js';

// Regression: malformed requests were answered by closing the connection. They now get a 400
// (431 for oversized headers) with a short reason and `x-trust-deny: EGRESS_REQUEST_MALFORMED`,
// audited. Nothing upstream is dialled: every request here is refused before judging.
const audit = memorySink();
let proxy: EgressProxy;

beforeAll(async () => {
  proxy = await createEgressProxy({
    policy: allowAll,
    audit,
    principal,
    listen: { host: '127.0.0.1', port: 0 },
    guard: { mode: 'strict' },
  });
});
afterAll(async () => proxy.close());

function raw(text: string): Promise<string> {
  const { host, port } = proxy.address as { host: string; port: number };
  return new Promise((resolve, reject) => {
    const s = connect({ host, port }, () => s.write(text));
    let got = '';
    s.on('data', (d) => (got += d.toString('latin1')));
    s.on('close', () => resolve(got));
    s.on('error', reject);
  });
}

describe('the proxy answers malformed requests with a status and a reason', () => {
  it.each([
    [
      'a backslash in the authority',
      'GET http://a.test\\@b.test/ HTTP/1.1\r\nHost: a.test\r\n\r\n',
      400,
      'not allowed (a backslash',
    ],
    ['a backslash in the path', 'GET http://a.test/x\\y HTTP/1.1\r\nHost: a.test\r\n\r\n', 400, 'contains a backslash'],
    [
      'a backslash in a CONNECT target',
      'CONNECT a.test\\b:443 HTTP/1.1\r\nHost: a.test\r\n\r\n',
      400,
      'not allowed (a backslash',
    ],
    [
      'both Content-Length and Transfer-Encoding',
      'POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: ' +
        '3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
      400,
      'Content-Length and Transfer-Encoding',
    ],
    [
      'two Content-Length headers',
      'POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab',
      400,
      'Content-Length and Transfer-Encoding',
    ],
    [
      'a Transfer-Encoding other than chunked',
      'POST http://a.test/ HTTP/1.1\r\nHost: a.test\r\nTransfer-Encoding: gzip\r\n\r\n',
      400,
      'Transfer-Encoding',
    ],
    [
      'a header name with a space',
      'GET http://a.test/ HTTP/1.1\r\nHo st: a.test\r\n\r\n',
      400,
      'header line is malformed',
    ],
    ['an unknown HTTP version', 'GET http://a.test/ HTTP/9.1\r\nHost: a.test\r\n\r\n', 400, 'version'],
    ['a control byte in the target', 'GET http://a.test/\u0001 HTTP/1.1\r\nHost: a.test\r\n\r\n', 400, 'not allowed'],
    [
      'headers over the size limit',
      `GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nx-big: ${'h'.repeat(70 * 1024)}\r\n\r\n`,
      431,
      'too large',
    ],
  ])('%s: a status and a reason, audited', async (_name, request, status, reason) => {
    const before = audit.events.length;
    const reply = await raw(request);
    expect(reply).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
    expect(reply).toContain('x-trust-deny: EGRESS_REQUEST_MALFORMED');
    expect(reply).toContain(reason);
    const added = audit.events.slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      decision: 'deny',
      code: expect.toBeTrustCode('EGRESS_REQUEST_MALFORMED'),
      target: '<malformed>',
    });
  });
});
