// The egress bridge on the host side serves every connection of a run from one process: a run
// that opens a thousand connections does not make a thousand host processes outside its PID
// namespace and limits. Beyond the cap, a connection gets a 503 naming the limit. Real bubblewrap
// and python3 inside the sandbox; fails (never skips) without them.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowHosts } from '@trust/core';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { createSandbox, type Sandbox } from './sandbox.js';
import { descendants, runIn } from './test-helpers.js';

const PY = '/usr/bin/python3';
/** Opens N connections to the bridge and holds them; prints how many it holds, then the status line of one more. */
const HOLD = `
import socket, sys, time, resource
n = int(sys.argv[1])
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
held = []
for i in range(n):
    s = socket.create_connection(('127.0.0.1', 3128), timeout=10)
    held.append(s)
print('held', len(held), flush=True)
extra = socket.create_connection(('127.0.0.1', 3128), timeout=10)
extra.settimeout(10)
print(extra.recv(4096).decode().splitlines()[0], flush=True)
time.sleep(float(sys.argv[2]))
`;

describe('host-side relay fan-out', { timeout: 120_000 }, () => {
  let peer: Peer;
  let sb: Sandbox;
  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    expect(existsSync(PY), 'python3 is needed inside the sandbox for this test').toBe(true);
    peer = await startPeer({ routes: { '/x': { kind: 'text', body: 'x' } } });
    sb = await createSandbox(
      { v: 1, capabilities: ['http', 'stdout', 'stderr'], limits: { files: 4096 } },
      {
        egress: allowHosts(['api.test']),
        guard: { mode: 'default', resolve: createStubResolver({ 'api.test': ['127.0.0.1'] }) },
      },
    );
  });
  afterAll(async () => {
    await sb?.close();
    await peer?.close();
  });

  it(
    "1,000 connections from one run leave the host's process count " +
      'bounded, and one over the cap gets a 503 naming it',
    async () => {
      const before = descendants(process.pid).length;
      const p = await sb.spawn([PY, '-c', HOLD, '1000', '4']);
      let out = '';
      p.stdout.on('data', (c: Buffer) => (out += c.toString()));
      let err = '';
      p.stderr.on('data', (c: Buffer) => (err += c.toString()));
      // While all of them are held open: count this process's descendants (server, supervisors,
      // bwrap, relays, the sandbox's own processes).
      for (let i = 0; i < 3000 && !out.includes('HTTP/'); i++) await new Promise((ok) => setTimeout(ok, 10));
      const during = descendants(process.pid).length;
      const exit = await p.exit;
      expect(err).toBe('');
      expect(out).toMatch(/^held 1000\n/);
      expect(out).toMatch(/HTTP\/1\.1 503 Service Unavailable/);
      expect(exit.code).toBe(0);
      expect(during - before).toBeLessThan(40);
    },
  );

  it('traffic through the bridge still flows both ways after the fan-out', async () => {
    const r = await runIn(sb, ['/usr/bin/curl', '-sS', '--max-time', '10', `http://api.test:${peer.httpPort}/x`]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('x');
  });
});
