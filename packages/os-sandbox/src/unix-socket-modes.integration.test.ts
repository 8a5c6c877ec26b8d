// One AF_UNIX rule in every mode (real bubblewrap): without unixSockets a run cannot create
// AF_UNIX sockets, with them it reaches only the named ones; a mode that cannot enforce this (the
// socat fallback, no private namespace for the launcher, the shared host network) is refused
// before anything runs, unless the policy accepts open-unix-sockets by name.
import { existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { allowHosts } from '@trust/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureLauncher } from './launcher.js';
import { probeSandbox, type SandboxProbe } from './probe.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

const PY = '/usr/bin/python3';
// Prints "<path> <reply>" or "<path> ERR <errno name>" per path, then the same for an abstract
// socket name given with a leading '@'.
const CLIENT = `
import errno, socket, sys
for p in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect('\\0' + p[1:] if p.startswith('@') else p)
        print(p, s.recv(64).decode())
    except OSError as e:
        print(p, 'ERR', errno.errorcode.get(e.errno, e.errno))
`;

async function listen(path: string, reply: string): Promise<Server> {
  const server = createServer((c) => c.end(reply));
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(path, ok));
  return server;
}
const egress = {
  egress: allowHosts(['api.test']),
  guard: { mode: 'default' as const, resolve: async () => ['127.0.0.1'] },
};

describe('unix sockets in every mode (bubblewrap)', () => {
  let probe: SandboxProbe;
  let ws: string;
  let sock: string;
  let abstract: string;
  const servers: Server[] = [];
  beforeAll(async () => {
    expect(existsSync(PY), 'python3 must be installed').toBe(true);
    // Measured with the launcher, as createSandbox does (its private namespace included).
    probe = await probeSandbox({ launcherPath: (await ensureLauncher()).path });
    expect(probe.pinNamespace && probe.netns).toBe(true);
    ws = freshDir('trust-uds-modes-');
    sock = join(ws, 'daemon.sock');
    abstract = `@trust-uds-modes-${process.pid}`;
    servers.push(await listen(sock, 'ws'), await listen(`\0${abstract.slice(1)}`, 'abstract'));
    return () => {
      for (const s of servers) s.close();
      rmSync(ws, { recursive: true, force: true });
    };
  });

  const modes = () =>
    [
      [
        'the socat fallback, with http (its bridge inside needs AF_UNIX)',
        { bridge: 'socat' as const, ...egress },
        ['http'],
      ],
      ['the socat fallback, without network', { bridge: 'socat' as const }, []],
      ['no private namespace for the launcher', { probe: { ...probe, pinNamespace: false } }, []],
      ['the shared host network, with http', { probe: { ...probe, netns: false }, ...egress }, ['http']],
      ['the shared host network, with network', { probe: { ...probe, netns: false } }, ['network']],
    ] as const;

  it(
    'without unixSockets: refused where the mode cannot refuse ' + 'AF_UNIX, EPERM for the command everywhere else',
    async () => {
      const seen: string[] = [];
      for (const [how, options, caps] of modes()) {
        const policy = {
          v: 1 as const,
          capabilities: [`fs:ro:${ws}`, 'stdout', 'stderr', ...caps],
          allowDegraded: ['shared-network' as const],
        };
        let sb: Sandbox;
        try {
          sb = await createSandbox(policy, { ...options, env: { PATH: '/usr/bin:/bin' } });
        } catch (err) {
          expect(err, how).toMatchObject({
            code: expect.toBeTrustCode('SANDBOX_UNIX_SOCKETS_UNENFORCEABLE'),
            hint: expect.stringMatching(/open-unix-sockets/),
          });
          seen.push(`${how}: refused`);
          continue;
        }
        try {
          const r = await runIn(sb, [PY, '-c', CLIENT, sock, abstract]);
          expect(r.stdout.trim().split('\n'), `${how}: ${r.stderr}`).toEqual([
            `${sock} ERR EPERM`,
            `${abstract} ERR EPERM`,
          ]);
          seen.push(`${how}: EPERM`);
        } finally {
          await sb.close();
        }
      }
      expect(seen).toEqual([
        'the socat fallback, with http (its bridge inside needs AF_UNIX): refused',
        'the socat fallback, without network: EPERM',
        'no private namespace for the launcher: EPERM',
        'the shared host network, with http: EPERM',
        'the shared host network, with network: EPERM',
      ]);
    },
  );

  it(
    'with unixSockets: refused in every mode that cannot hide the ' +
      'unnamed ones; the normal mode reaches only the named one',
    async () => {
      for (const [how, options, caps] of modes()) {
        const policy = {
          v: 1 as const,
          capabilities: [`fs:ro:${ws}`, 'stdout', 'stderr', ...caps],
          unixSockets: [sock],
          allowDegraded: ['shared-network' as const],
        };
        await expect(createSandbox(policy, options), how).rejects.toMatchObject({
          code: expect.toBeTrustCode('SANDBOX_UNIX_SOCKETS_UNENFORCEABLE'),
          message: expect.stringMatching(how.includes('shared') ? /abstract unix sockets/ : /private mount namespace/),
        });
      }
      const other = join(ws, 'other.sock');
      servers.push(await listen(other, 'other'));
      const sb = await createSandbox(
        { v: 1, capabilities: [`fs:ro:${ws}`, 'stdout', 'stderr'], unixSockets: [sock] },
        { env: { PATH: '/usr/bin:/bin' } },
      );
      try {
        const r = await runIn(sb, [PY, '-c', CLIENT, sock, other, abstract]);
        expect(r.stdout.trim().split('\n'), r.stderr).toEqual([
          `${sock} ws`,
          `${other} ERR ECONNREFUSED`,
          `${abstract} ERR ECONNREFUSED`,
        ]);
      } finally {
        await sb.close();
      }
    },
  );

  it('open-unix-sockets accepts such a mode by name, and says so in degraded', async () => {
    const sb = await createSandbox(
      { v: 1, capabilities: [`fs:ro:${ws}`, 'stdout', 'stderr', 'http'], allowDegraded: ['open-unix-sockets'] },
      { bridge: 'socat', ...egress, env: { PATH: '/usr/bin:/bin' } },
    );
    try {
      expect(sb.degraded).toContain('open-unix-sockets');
      const r = await runIn(sb, [PY, '-c', CLIENT, sock]);
      expect(r.stdout.trim(), r.stderr).toBe(`${sock} ws`);
    } finally {
      await sb.close();
    }
  });
});
