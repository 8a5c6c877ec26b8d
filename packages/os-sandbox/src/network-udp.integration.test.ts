// The udp capability end to end: a sandboxed SOCKS5 UDP client → the launcher's datagram bridge on
// 127.0.0.1:3128/udp in the run's network namespace (served from outside the sandbox, or inside
// it where the launcher cannot make the namespace) → the run's own unix socket → the @trust/egress relay →
// authorizeUdp + address guard → the UDP echo listener of a real peer child process.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowHosts, createMemoryAuditSink } from '@trust/core';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { ensureLauncher } from './launcher.js';
import { probeSandbox } from './probe.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { NODE, NODE_ROOTS, SOCKS_UDP, runIn } from './test-helpers.js';

/**
 * Sends datagrams straight to 127.0.0.1:port (the echo peer's port on the host) and waits a
 * moment for an echo: `GOT …` if one came back, else `NO REPLY` (or `ERR code`).
 */
const DIRECT_UDP = `
const u = require('dgram').createSocket('udp4');
u.on('error', (e) => { console.log('ERR ' + e.code); process.exit(0); });
u.on('message', (m) => { console.log('GOT ' + m); process.exit(0); });
const port = Number(process.argv[1]);
u.send('direct-udp', port, '127.0.0.1', () => u.send('direct-udp', port, '127.0.0.1'));
setTimeout(() => { console.log('NO REPLY'); process.exit(0); }, 1500);
`;

describe('udp capability through the per-run SOCKS5 UDP relay (bubblewrap)', () => {
  let peer: Peer;
  let sb: Sandbox;
  const audit = createMemoryAuditSink();
  const resolve = createStubResolver({ 'api.test': ['127.0.0.1'], 'denied.test': ['127.0.0.1'] });
  const egress = allowHosts(['api.test'], { udp: true });

  beforeAll(async () => {
    expect(existsSync('/usr/bin/bwrap'), 'bubblewrap must be installed').toBe(true);
    peer = await startPeer();
    // 'default' guard mode: the loopback peer is reachable; the strict default is tested below.
    sb = await createSandbox(
      { v: 1, capabilities: ['udp', 'stdout', 'stderr'], systemRoots: NODE_ROOTS },
      { egress, audit, guard: { mode: 'default', resolve } },
    );
  });
  afterAll(async () => {
    await sb?.close();
    await peer?.close();
  });

  it('an allowed peer round-trips; a denied destination is refused, audited and a violation', async () => {
    const r = await runIn(sb, [
      NODE,
      '-e',
      SOCKS_UDP,
      `denied.test:${peer.udpPort}:to-denied`,
      `api.test:${peer.udpPort}:udp-one`,
      `api.test:${peer.udpPort}:udp-two`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('ECHO udp-one');
    expect(r.stdout).toContain('ECHO udp-two');
    expect(r.stdout).not.toContain('to-denied');
    const seen = (await peer.stats()).udpMessages;
    expect(seen).toEqual(expect.arrayContaining(['udp-one', 'udp-two']));
    expect(seen).not.toContain('to-denied');
    const mine = audit.events().filter((e) => e.principal.id === r.exit.runId && e.action === 'egress.udp');
    expect(mine.map((e) => `${e.target} ${e.decision}`).sort()).toEqual([
      `udp://api.test:${peer.udpPort} allow`,
      `udp://denied.test:${peer.udpPort} deny`,
    ]);
    expect(
      mine.every((e) => e.principal.kind === 'process' && (e.details as { via?: string }).via === 'socks5-udp'),
    ).toBe(true);
    expect(r.exit.violations).toEqual([
      expect.objectContaining({
        kind: 'egress',
        action: 'egress.udp',
        code: expect.toBeTrustCode('EGRESS_HOST_NOT_ALLOWED'),
      }),
    ]);
  });

  it('the datagram bridge inside the sandbox (no launcher-made namespace) round-trips the same way', async () => {
    const probe = await probeSandbox({ launcherPath: (await ensureLauncher()).path });
    const inside = await createSandbox(
      { v: 1, capabilities: ['udp', 'stdout', 'stderr'], systemRoots: NODE_ROOTS },
      { egress, audit, guard: { mode: 'default', resolve }, probe: { ...probe, launcherNetns: false } },
    );
    try {
      const r = await runIn(inside, [
        NODE,
        '-e',
        SOCKS_UDP,
        `denied.test:${peer.udpPort}:inside-denied`,
        `api.test:${peer.udpPort}:inside-udp`,
      ]);
      expect(r.stdout).toContain('ECHO inside-udp');
      expect(r.exit.violations).toEqual([expect.objectContaining({ action: 'egress.udp' })]);
      expect((await peer.stats()).udpMessages).not.toContain('inside-denied');
    } finally {
      await inside.close();
    }
  });

  it("the default 'strict' guard refuses a name that resolves to loopback", async () => {
    const strict = await createSandbox(
      { v: 1, capabilities: ['udp', 'stdout', 'stderr'], systemRoots: NODE_ROOTS },
      { egress, audit, guard: { resolve } },
    );
    try {
      // The refused datagram goes first; a reply can never come, so the client is bounded by the run's time limit.
      const r = await runIn(strict, [NODE, '-e', SOCKS_UDP, `api.test:${peer.udpPort}:strict-udp`], {
        timeoutMs: 4000,
      });
      expect(r.stdout).not.toContain('ECHO');
      expect(r.exit.violations).toEqual([
        expect.objectContaining({ action: 'egress.udp', code: expect.toBeTrustCode('EGRESS_LOOPBACK') }),
      ]);
      expect((await peer.stats()).udpMessages).not.toContain('strict-udp');
    } finally {
      await strict.close();
    }
  });

  it('without the grant UDP goes nowhere: ASSOCIATE is refused and there is no route to the host', async () => {
    const httpOnly = await createSandbox(
      { v: 1, capabilities: ['http', 'stdout', 'stderr'], systemRoots: NODE_ROOTS },
      { egress: allowHosts(['api.test'], { udp: true }), audit, guard: { mode: 'default', resolve } },
    );
    try {
      const assoc = await runIn(httpOnly, [NODE, '-e', SOCKS_UDP, `api.test:${peer.udpPort}:no-grant`]);
      expect(assoc.stdout.trim()).toBe('REP 7');
      const direct = await runIn(httpOnly, [NODE, '-e', DIRECT_UDP, String(peer.udpPort)]);
      expect(direct.stdout.trim()).toMatch(/^(NO REPLY|ERR \w+)$/);
      const none = await runIn(sb, [NODE, '-e', DIRECT_UDP, String(peer.udpPort)]);
      expect(none.stdout.trim()).toMatch(/^(NO REPLY|ERR \w+)$/); // even with udp granted, only the relay leads out
      expect((await peer.stats()).udpMessages).not.toContain('direct-udp');
      expect((await peer.stats()).udpMessages).not.toContain('no-grant');
    } finally {
      await httpOnly.close();
    }
  });
});
