import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from 'node:net';
import { createEgressProxy, type EgressProxy } from './proxy.js';
import { allowAll, memorySink, principal } from './test-fixtures.js';

// Red-team regression: a refused CONNECT must not write its raw authority (userinfo, path,
// query) into the audit log. Only the proxy listener is real; nothing upstream is dialled.
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

function rawConnect(authority: string): Promise<string> {
  const { host, port } = proxy.address as { host: string; port: number };
  return new Promise((resolve, reject) => {
    const s = connect({ host, port }, () => s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let text = '';
    s.on('data', (d) => (text += d.toString('latin1')));
    s.on('close', () => resolve(text));
    s.on('error', reject);
  });
}

describe('attack: CONNECT authority with userinfo or a path leaks into the audit log', () => {
  it.each([
    ['userinfo', 'user:PASSWORD@127.0.0.1:443', 'PASSWORD'],
    ['path and query', '127.0.0.1:443/?token=SECRETTOKEN', 'SECRETTOKEN'],
    ['no port', 'SECRETHOST.test', 'SECRETHOST'],
    ['port out of range', 'SECRETHOST.test:70000', 'SECRETHOST'],
  ])('%s: 400 with EGRESS_TARGET_INVALID, audited as connect://<invalid>', async (_name, authority, secret) => {
    const before = audit.events.length;
    const reply = await rawConnect(authority);
    expect(reply).toMatch(/^HTTP\/1\.1 400 /);
    expect(reply).toContain('x-trust-deny: EGRESS_TARGET_INVALID');
    expect(reply).not.toContain(secret);
    const added = audit.events.slice(before);
    expect(added).toHaveLength(1);
    expect(added[0]).toMatchObject({
      target: 'connect://<invalid>',
      decision: 'deny',
      code: expect.toBeTrustCode('EGRESS_TARGET_INVALID'),
    });
    expect(JSON.stringify(added)).not.toContain(secret);
  });

  it('a fragment never reaches the audit log (the HTTP parser drops the connection first)', async () => {
    const before = audit.events.length;
    const reply = await rawConnect('127.0.0.1:443#SECRETFRAG');
    expect(reply).not.toContain('SECRETFRAG');
    expect(JSON.stringify(audit.events.slice(before))).not.toContain('SECRETFRAG');
  });

  it('a well-formed authority is judged normally and audited as host:port', async () => {
    const before = audit.events.length;
    const reply = await rawConnect('127.0.0.1:443');
    expect(reply).toContain('x-trust-deny: EGRESS_LOOPBACK');
    expect(audit.events.slice(before)[0]).toMatchObject({
      target: 'connect://127.0.0.1:443',
      code: expect.toBeTrustCode('EGRESS_LOOPBACK'),
    });
  });
});
