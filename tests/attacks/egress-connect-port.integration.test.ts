// Attack: an `http` grant used as an opaque TCP tunnel. The standalone `trust egress proxy`
// (the built binary) with a policy file that allows a host without a port is asked to CONNECT
// to a raw TCP banner service on that host (an SSH/SMTP stand-in on 127.0.0.1). Refused with 403
// and audited; with the port named in the rule the tunnel opens and the banner comes through.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../packages/cli/bin/trust.cjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'trust-connect-port-'));
let banner: Server;
let bannerPort = 0;
let dialled = 0;
const children: ChildProcess[] = [];

beforeAll(async () => {
  banner = createServer((s) => {
    dialled++;
    s.end('SSH-2.0-OpenSSH_9.6 banner\r\n');
  });
  await new Promise<void>((ok) => banner.listen(0, '127.0.0.1', ok));
  bannerPort = (banner.address() as AddressInfo).port;
});
afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await new Promise((ok) => banner.close(ok));
  rmSync(dir, { recursive: true, force: true });
});

/** Starts `trust egress proxy` with `allow` as its http allow list; resolves with its port and audit lines. */
async function startProxy(
  allow: string[],
): Promise<{ port: number; events: () => { decision: string; code?: string; target: string }[] }> {
  const policy = join(dir, `policy-${children.length}.json`);
  writeFileSync(policy, JSON.stringify({ v: 1, http: { allow } }));
  const child = spawn(
    process.execPath,
    [BIN, 'egress', 'proxy', '--policy', policy, '--listen', '127.0.0.1:0', '--json'],
    {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, TRUST_HOME: join(dir, '.trust') },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  children.push(child);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
  const first = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => (out.includes('\n') ? resolve(out.split('\n')[0] as string) : undefined));
    child.on('exit', (c) => reject(new Error(`trust egress proxy exited ${c}`)));
  });
  const port = (JSON.parse(first) as { result: { listen: { port: number } } }).result.listen.port;
  return {
    port,
    events: () =>
      out
        .trimEnd()
        .split('\n')
        .slice(1)
        .map((l) => JSON.parse(l)),
  };
}

function connectThrough(port: number, authority: string): Promise<string> {
  return new Promise((ok, fail) => {
    const s = connect(port, '127.0.0.1', () => s.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n\r\n`));
    let raw = '';
    s.on('data', (d) => (raw += d.toString('latin1')));
    s.on('close', () => ok(raw));
    s.on('error', fail);
  });
}

describe('attack: CONNECT through an http grant to a raw TCP service (trust egress proxy)', () => {
  it('a host rule without a port: 403 with the reason, audited, the service never dialled', async () => {
    const proxy = await startProxy(['127.0.0.1']);
    const before = dialled;
    const reply = await connectThrough(proxy.port, `127.0.0.1:${bannerPort}`);
    expect(reply).toMatch(/^HTTP\/1\.1 403 /);
    expect(reply).toContain('x-trust-deny: EGRESS_TUNNEL_PORT_NOT_ALLOWED');
    expect(reply).not.toContain('SSH-2.0');
    expect(dialled).toBe(before);
    await expect
      .poll(() => proxy.events().at(-1))
      .toMatchObject({
        decision: 'deny',
        code: 'EGRESS_TUNNEL_PORT_NOT_ALLOWED',
        target: `connect://127.0.0.1:${bannerPort}`,
      });
  });

  it('the port named in the rule: the tunnel opens and the banner comes through', async () => {
    const proxy = await startProxy([`127.0.0.1:${bannerPort}`]);
    const reply = await connectThrough(proxy.port, `127.0.0.1:${bannerPort}`);
    expect(reply).toMatch(/^HTTP\/1\.1 200 /);
    expect(reply).toContain('SSH-2.0-OpenSSH_9.6 banner');
    await expect
      .poll(() => proxy.events().at(-1))
      .toMatchObject({ decision: 'allow', target: `connect://127.0.0.1:${bannerPort}` });
  });
});
