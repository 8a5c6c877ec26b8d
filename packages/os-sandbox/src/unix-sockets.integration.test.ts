// Host unix sockets with real bubblewrap: a read-only bind does not stop connect(), so without
// unixSockets the seccomp program refuses socket(AF_UNIX) (socketpair keeps working), and a
// named socket is reachable at its own path.
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { createServer as createHttpServer } from 'node:http';
import { allowHosts } from '@trust/core';
import { describe, expect, it } from 'vitest';
import { ensureLauncher } from './launcher.js';
import { probeSandbox } from './probe.js';
import { createSandbox } from './sandbox.js';
import { freshDir, runIn } from './test-helpers.js';

const PY = '/usr/bin/python3';
// Prints, per socket path argument, "<path> <reply>" or "<path> ERR <errno name>"; then whether
// socketpair works.
const CLIENT = `
import errno, socket, sys
for p in sys.argv[1:]:
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(p)
        print(p, s.recv(64).decode())
    except OSError as e:
        print(p, 'ERR', errno.errorcode.get(e.errno, e.errno))
a, b = socket.socketpair()
a.send(b'pair')
print('socketpair', b.recv(4).decode())
`;

async function listen(path: string, reply: string): Promise<Server> {
  const server = createServer((c) => c.end(reply));
  await new Promise<void>((ok, fail) => server.once('error', fail).listen(path, ok));
  return server;
}

describe('host unix sockets (bubblewrap)', () => {
  it(
    'are refused by default in the workspace, in an fs:ro grant and ' +
      'elsewhere; only the named ones are reachable; socketpair works',
    async () => {
      expect(existsSync(PY), 'python3 must be installed').toBe(true);
      const ws = freshDir('trust-uds-ws-');
      const ro = freshDir('trust-uds-ro-');
      const outside = freshDir('trust-uds-out-');
      const paths = { ws: join(ws, 'daemon.sock'), ro: join(ro, 'agent.sock'), out: join(outside, 'app.sock') };
      const servers = await Promise.all([listen(paths.ws, 'ws'), listen(paths.ro, 'ro'), listen(paths.out, 'out')]);
      const caps = [`fs:rw:${ws}`, `fs:ro:${ro}`, 'stdout', 'stderr'];
      const run = async (unixSockets: string[]): Promise<string[]> => {
        const sb = await createSandbox({ v: 1, capabilities: caps, unixSockets }, { env: { PATH: '/usr/bin:/bin' } });
        try {
          const r = await runIn(sb, [PY, '-c', CLIENT, paths.ws, paths.ro, paths.out]);
          expect(r.exit.code, r.stderr).toBe(0);
          return r.stdout.trim().split('\n');
        } finally {
          await sb.close();
        }
      };
      try {
        expect(await run([])).toEqual([
          `${paths.ws} ERR EPERM`,
          `${paths.ro} ERR EPERM`,
          `${paths.out} ERR EPERM`,
          'socketpair pair',
        ]);
        const named = await run([paths.ws, paths.out]);
        expect(named).toEqual([
          `${paths.ws} ws`,
          `${paths.ro} ERR ECONNREFUSED`,
          `${paths.out} out`,
          'socketpair pair',
        ]);
        // AF_UNIX is allowed now, yet an unnamed socket in the workspace or the fs:ro grant is seen
        // through the run's overlay (another inode, no listener): refused.
        const other = await run([paths.out]);
        expect(other).toEqual([
          `${paths.ws} ERR ECONNREFUSED`,
          `${paths.ro} ERR ECONNREFUSED`,
          `${paths.out} out`,
          'socketpair pair',
        ]);
        const onlyRo = await run([paths.ro]);
        expect(onlyRo).toEqual([
          `${paths.ws} ERR ECONNREFUSED`,
          `${paths.ro} ro`,
          `${paths.out} ERR ENOENT`,
          'socketpair pair',
        ]);
      } finally {
        for (const s of servers) s.close();
        for (const d of [ws, ro, outside]) rmSync(d, { recursive: true, force: true });
      }
    },
  );

  it('a named path that is not a listening socket is refused at spawn', async () => {
    const ws = freshDir('trust-uds-missing-');
    mkdirSync(join(ws, 'dir'));
    for (const path of [join(ws, 'none.sock'), join(ws, 'dir')]) {
      const sb = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`], unixSockets: [path] });
      try {
        await expect(sb.spawn(['/bin/true'])).rejects.toHaveTrustCode('SANDBOX_UNIX_SOCKET_INVALID');
      } finally {
        await sb.close();
      }
    }
    rmSync(ws, { recursive: true, force: true });
  });

  it(
    'with the egress bridge inside the sandbox, the bridge works ' + 'and the command still gets EPERM for AF_UNIX',
    async () => {
      const ws = freshDir('trust-uds-bridge-');
      const sockPath = join(ws, 'daemon.sock');
      const server = await listen(sockPath, 'ws');
      const peer = createHttpServer((_q, s) => s.end('proxied'));
      await new Promise<void>((ok) => peer.listen(0, '127.0.0.1', ok));
      const port = (peer.address() as { port: number }).port;
      const probe = await probeSandbox({ launcherPath: (await ensureLauncher()).path });
      const sb = await createSandbox(
        { v: 1, capabilities: [`fs:rw:${ws}`, 'http', 'stdout', 'stderr'] },
        {
          egress: allowHosts(['api.test']),
          guard: { mode: 'default', resolve: async () => ['127.0.0.1'] },
          probe: { ...probe, launcherNetns: false },
          env: { PATH: '/usr/bin:/bin' },
        },
      );
      try {
        const script = `${CLIENT}
import urllib.request
print(urllib.request.urlopen('http://api.test:${port}/').read().decode())`;
        const r = await runIn(sb, [PY, '-c', script, sockPath]);
        expect(r.stdout.trim().split('\n'), r.stderr).toEqual([`${sockPath} ERR EPERM`, 'socketpair pair', 'proxied']);
      } finally {
        await sb.close();
        server.close();
        peer.close();
        rmSync(ws, { recursive: true, force: true });
      }
    },
  );
});
