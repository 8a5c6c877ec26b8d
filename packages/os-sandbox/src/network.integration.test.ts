// The http capability end to end: sandboxed curl → the loopback bridge of the run's network
// namespace (served from outside the sandbox by the launcher, or inside it where the launcher
// cannot make the namespace) → the run's own unix socket → @trust/egress proxy → policy + address
// guard → a real loopback peer.
import { existsSync, readFileSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowHosts, createMemoryAuditSink } from '@trust/core';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { ensureLauncher } from './launcher.js';
import { probeSandbox } from './probe.js';
import { createSandbox, type Sandbox, type SandboxProcess } from './sandbox.js';
import { alive, descendants, named, NODE, NODE_ROOTS, runIn } from './test-helpers.js';

const CURL = '/usr/bin/curl';

describe('http capability through the per-run egress proxy (bubblewrap)', () => {
  let peer: Peer;
  let sb: Sandbox;
  let strict: Sandbox;
  const audit = createMemoryAuditSink();
  const resolve = createStubResolver({
    'api.test': ['127.0.0.1'],
    'denied.test': ['127.0.0.1'],
    'meta.test': ['169.254.169.254'],
  });

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    expect(existsSync(CURL), 'curl is needed inside the sandbox for this test').toBe(true);
    peer = await startPeer({ routes: { '/hello': { kind: 'text', body: 'hello-through-proxy' } } });
    const egress = allowHosts(['api.test', 'meta.test']);
    // 'default' guard mode: loopback peers are reachable (the peer is on 127.0.0.1), metadata never.
    sb = await createSandbox(
      { v: 1, capabilities: ['http', 'stdout', 'stderr'] },
      { egress, audit, guard: { mode: 'default', resolve } },
    );
    // The policy default: 'strict' — loopback, private and metadata addresses are refused after DNS.
    strict = await createSandbox(
      { v: 1, capabilities: ['http', 'stdout', 'stderr'] },
      { egress, audit, guard: { resolve } },
    );
  });
  afterAll(async () => {
    await sb?.close();
    await strict?.close();
    await peer?.close();
  });

  it('an allowed host works against the real local peer, and the run is audited as its own principal', async () => {
    const r = await runIn(sb, [CURL, '-sS', '--max-time', '10', `http://api.test:${peer.httpPort}/hello`]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('hello-through-proxy');
    expect(r.exit.code).toBe(0);
    const mine = audit.events().filter((e) => e.principal.id === r.exit.runId);
    expect(mine.map((e) => `${e.action}:${e.decision}`)).toEqual([
      'sandbox.spawn:allow',
      'egress.http:allow',
      'sandbox.exit:allow',
    ]);
    expect(mine.every((e) => e.principal.kind === 'process')).toBe(true);
  });

  it('HTTPS-style CONNECT tunnels go through the same policy, to 443 or a port the rule names', async () => {
    // A rule without a port allows CONNECT on 443 only: the peer's port is refused with the reason.
    const portless = await runIn(sb, [
      CURL,
      '-sS',
      '--max-time',
      '10',
      '-p',
      '-o',
      '/dev/null',
      '-w',
      '%{http_connect}',
      `http://api.test:${peer.httpPort}/hello`,
    ]);
    expect(portless.stdout).toBe('403');
    const named = await createSandbox(
      { v: 1, capabilities: ['http', 'stdout', 'stderr'] },
      { egress: allowHosts([`api.test:${peer.httpPort}`]), guard: { mode: 'default', resolve } },
    );
    try {
      const r = await runIn(named, [
        CURL,
        '-sS',
        '--max-time',
        '10',
        '-p',
        '-o',
        '/dev/null',
        '-w',
        '%{http_connect}',
        `http://api.test:${peer.httpPort}/hello`,
      ]);
      expect(r.stdout).toBe('200');
    } finally {
      await named.close();
    }
    const denied = await runIn(sb, [
      CURL,
      '-sS',
      '--max-time',
      '10',
      '-p',
      `http://denied.test:${peer.httpPort}/hello`,
    ]);
    expect(denied.exit.code).not.toBe(0);
    expect(denied.stderr).toMatch(/403/);
  });

  it('a denied host gets a clear 403 with the reason, recorded as a violation', async () => {
    const r = await runIn(sb, [CURL, '-sS', '--max-time', '10', '-i', `http://denied.test:${peer.httpPort}/hello`]);
    expect(r.stdout).toMatch(/^HTTP\/1\.1 403/);
    expect(r.stdout).toMatch(/x-trust-deny: \w+/i);
    expect(r.stdout).toMatch(/denied\.test/);
    expect(r.exit.violations).toEqual([expect.objectContaining({ kind: 'egress', action: 'egress.http' })]);
    expect((await peer.requests()).some((q) => q.headers.host?.startsWith('denied.test'))).toBe(false);
  });

  it('strict mode refuses a name that resolves to loopback, and metadata in every mode', async () => {
    const loop = await runIn(strict, [CURL, '-sS', '--max-time', '10', '-i', `http://api.test:${peer.httpPort}/hello`]);
    expect(loop.stdout).toMatch(/^HTTP\/1\.1 403/);
    expect(loop.stdout).not.toContain('hello-through-proxy');
    const meta = await runIn(sb, [CURL, '-sS', '--max-time', '10', '-i', 'http://meta.test/latest/meta-data/']);
    expect(meta.stdout).toMatch(/^HTTP\/1\.1 403/);
    expect(meta.exit.violations.length).toBe(1);
  });

  it('still has no direct route: the proxy is the only way out', async () => {
    const r = await runIn(sb, [
      CURL,
      '-sS',
      '--max-time',
      '5',
      '--noproxy',
      '*',
      `http://127.0.0.1:${peer.httpPort}/hello`,
    ]);
    expect(r.exit.code).not.toBe(0);
    expect(r.stdout).not.toContain('hello-through-proxy');
  });

  it('the socat fallback bridge (no C compiler) carries the same traffic through the same policy', async () => {
    // Its bridge inside needs AF_UNIX, which nothing refuses to the command then: accepted by name.
    const viaSocat = await createSandbox(
      { v: 1, capabilities: ['http', 'stdout', 'stderr'], allowDegraded: ['open-unix-sockets'] },
      { egress: allowHosts(['api.test']), guard: { mode: 'default', resolve }, bridge: 'socat' },
    );
    try {
      const ok = await runIn(viaSocat, [CURL, '-sS', '--max-time', '10', `http://api.test:${peer.httpPort}/hello`]);
      expect(ok.stdout).toBe('hello-through-proxy');
      const no = await runIn(viaSocat, [
        CURL,
        '-sS',
        '--max-time',
        '10',
        '-i',
        `http://denied.test:${peer.httpPort}/hello`,
      ]);
      expect(no.stdout).toMatch(/^HTTP\/1\.1 403/);
    } finally {
      await viaSocat.close();
    }
  });

  it('the bridge lives outside the sandbox: neither the proxy socket nor the launcher is visible inside', async () => {
    const r = await runIn(sb, ['/bin/sh', '-c', 'ls -A /sandbox; echo "home:$HOME"']);
    expect(r.stdout.split('\n').filter(Boolean)).toEqual(['home', 'home:/sandbox/home']);
  });

  it(
    'where the launcher cannot make the network namespace, the ' + 'bridge runs inside and carries the same traffic',
    async () => {
      const launcher = await ensureLauncher();
      const probe = await probeSandbox({ launcherPath: launcher.path });
      expect(probe.launcherNetns).toBe(true);
      const inside = await createSandbox(
        { v: 1, capabilities: ['http', 'stdout', 'stderr'] },
        {
          egress: allowHosts(['api.test']),
          audit,
          guard: { mode: 'default', resolve },
          probe: { ...probe, launcherNetns: false },
        },
      );
      try {
        const ok = await runIn(inside, [CURL, '-sS', '--max-time', '10', `http://api.test:${peer.httpPort}/hello`]);
        expect(ok.stdout).toBe('hello-through-proxy');
        expect(
          audit
            .events()
            .filter((e) => e.principal.id === ok.exit.runId && e.action === 'egress.http')
            .map((e) => e.decision),
        ).toEqual(['allow']);
        const no = await runIn(inside, [
          CURL,
          '-sS',
          '--max-time',
          '10',
          '-i',
          `http://denied.test:${peer.httpPort}/hello`,
        ]);
        expect(no.stdout).toMatch(/^HTTP\/1\.1 403/);
        const direct = await runIn(inside, [
          CURL,
          '-sS',
          '--max-time',
          '5',
          '--noproxy',
          '*',
          `http://127.0.0.1:${peer.httpPort}/hello`,
        ]);
        expect(direct.stdout).not.toContain('hello-through-proxy');
        const seen = await runIn(inside, ['/bin/sh', '-c', 'ls -A /sandbox']);
        expect(seen.stdout.split('\n').filter(Boolean).sort()).toEqual(['egress.sock', 'home', 'launcher']);
      } finally {
        await inside.close();
      }
    },
  );

  it(
    'the relays outside the sandbox are confined, end with the run, ' +
      'and with it when its supervising launcher is killed',
    async () => {
      const own = await createSandbox(
        { v: 1, capabilities: ['http', 'stdout', 'stderr'] },
        { egress: allowHosts(['api.test']), guard: { mode: 'default', resolve } },
      );
      const gone = async (pids: number[]): Promise<number[]> => {
        for (let i = 0; i < 400 && pids.some(alive); i++) await new Promise((ok) => setTimeout(ok, 25));
        return pids.filter(alive);
      };
      const started = async (): Promise<{ p: SandboxProcess; relays: number[] }> => {
        const p = await own.spawn(['/bin/sh', '-c', `echo ready; exec sleep 30`]);
        // Once the command runs, bwrap is set up (its --die-with-parent armed) and the relay listens.
        await new Promise((ok) => p.stdout.once('data', ok));
        // The run's relays, named so by the launcher (its mount helper may still be exiting now).
        return { p, relays: named(descendants(p.pid), 'trust-relay') };
      };
      try {
        const ok = await runIn(own, [CURL, '-sS', '--max-time', '10', `http://api.test:${peer.httpPort}/hello`]);
        expect(ok.stdout).toBe('hello-through-proxy');
        // kill(): the supervisor ends the run and reaps what is left, relays included.
        const a = await started();
        expect(a.relays).toHaveLength(1);
        // Each relay is confined: rooted in the run's private directory (its socket and nothing
        // else), with no capability and no way to gain one.
        for (const r of a.relays) {
          const status = readFileSync(`/proc/${r}/status`, 'utf8');
          expect(status).toMatch(/^CapEff:\s+0+$/m);
          expect(status).toMatch(/^NoNewPrivs:\s+1$/m);
          expect(readlinkSync(`/proc/${r}/root`)).toMatch(/\/trust-sandbox-[^/]+\/run-\d+$/);
        }
        a.p.kill();
        await a.p.exit;
        expect(a.relays.filter(alive)).toEqual([]);
        // The supervisor SIGKILLed mid-run: bwrap dies with it, and the relay with bwrap.
        const b = await started();
        expect(b.relays).toHaveLength(1);
        process.kill(b.p.pid, 'SIGKILL');
        await b.p.exit;
        expect(await gone(b.relays)).toEqual([]);
      } finally {
        await own.close();
      }
    },
  );

  it('tcp goes through CONNECT and authorizeTcp: an allowed peer echoes, another is refused', async () => {
    const tcp = await createSandbox(
      { v: 1, capabilities: ['tcp', 'stdout', 'stderr'], systemRoots: NODE_ROOTS },
      { egress: allowHosts(['api.test'], { tcp: true }), audit, guard: { mode: 'default', resolve } },
    );
    const probe = (host: string) =>
      `const r=require('http').request({host:'127.0.0.1',port:3128,method:'CONNECT',path:'${host}:${peer.tcpPort}'});` +
      "r.on('connect',(res,s)=>{if(res.statusCode!==200){console.log('STATUS',res.statusCode);process.exit(0)}" +
      "s.write('ping-tcp');s.on('data',d=>{console.log('ECHO',String(d));s.destroy()})});" +
      `r.on('response',res=>console.log('STATUS',res.statusCode));r.on('error',e=>console.log('ERR',e.code));r.end();`;
    try {
      const ok = await runIn(tcp, [NODE, '-e', probe('api.test')]);
      expect(ok.stdout).toContain('ECHO ping-tcp');
      const no = await runIn(tcp, [NODE, '-e', probe('denied.test')]);
      expect(no.stdout).toContain('STATUS 403');
      expect(no.exit.violations).toHaveLength(1);
      const ev = audit.events().filter((e) => e.principal.id === ok.exit.runId && e.action.startsWith('egress.'));
      expect(ev.length).toBe(1);
      expect(ev[0]?.decision).toBe('allow');
    } finally {
      await tcp.close();
    }
  });

  it('concurrent runs each get their own listener and principal', async () => {
    const runs = await Promise.all(
      [1, 2, 3].map(() => runIn(sb, [CURL, '-sS', '--max-time', '10', `http://api.test:${peer.httpPort}/hello`])),
    );
    expect(runs.map((r) => r.stdout)).toEqual(['hello-through-proxy', 'hello-through-proxy', 'hello-through-proxy']);
    const ids = new Set(runs.map((r) => r.exit.runId));
    expect(ids.size).toBe(3);
    for (const id of ids) {
      expect(audit.events().filter((e) => e.principal.id === id && e.action === 'egress.http').length).toBe(1);
    }
  });
});
