import { spawn } from 'node:child_process';
import type { StdioSandbox } from './sandbox-stdio-transport.js';

/**
 * Runs an owner-placed server on the host with the same transport as sandboxed ones (so the
 * same bounded line reader applies): argv array, no shell, only the given env plus `PATH`. No
 * OS limits apply on the host: that is the owner's choice of placement.
 *
 * @example
 * new SandboxStdioTransport(createHostStdio(), ['/usr/bin/node', 'server.mjs'], {});
 */
export function createHostStdio(): StdioSandbox {
  return {
    async spawn(argv, options = {}) {
      const child = spawn(argv[0]!, argv.slice(1), {
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...(options.env ?? {}) },
        stdio: ['pipe', 'pipe', 'pipe'],
        shell: false,
      });
      child.stdin.on('error', () => undefined);
      options.stdin?.pipe(child.stdin);
      const exit = new Promise<unknown>((resolve) => {
        child.once('close', (code, signal) => resolve({ code, signal }));
        child.once('error', (e) => resolve({ code: null, signal: null, error: e.message }));
      });
      return { stdout: child.stdout, stderr: child.stderr, kill: () => child.kill('SIGKILL'), exit };
    },
  };
}
