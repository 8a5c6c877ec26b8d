import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, createTempHome } from './run-cli.test-helper.js';
import { studioSchema } from './json-schemas.js';

// Starts the real `trust studio` (control server + built studio) in a temporary TRUST_HOME.
const tmp = createTempHome();
afterAll(() => tmp.cleanup());

function startStudio(): Promise<{
  child: ChildProcess;
  doc: ReturnType<typeof studioSchema.parse>;
  stderr: () => string;
}> {
  const child = spawn(process.execPath, [BIN, 'studio', '--json'], {
    cwd: tmp.home,
    env: { PATH: process.env.PATH ?? '', HOME: tmp.home, TRUST_HOME: tmp.trustHome },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  return new Promise((resolve, reject) => {
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n'))
        resolve({ child, doc: studioSchema.parse(JSON.parse(out.split('\n')[0] as string)), stderr: () => err });
    });
    child.on('exit', (c) => reject(new Error(`studio exited ${c}: ${err}`)));
  });
}

function stop(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    child.on('exit', (c) => resolve(c));
    child.kill('SIGINT');
  });
}

/** The parts of the API's answers this test reads. */
interface ApiJson {
  readonly agents?: readonly { readonly description: string }[];
  readonly provided?: boolean;
  readonly runs?: readonly unknown[];
  readonly plugins?: readonly unknown[];
  readonly tasks?: readonly { readonly id: string }[];
  readonly file?: { readonly content: string };
  readonly chain?: { readonly ok: boolean };
}

async function api(
  port: number,
  token: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: ApiJson }> {
  const res = await fetch(`http://127.0.0.1:${port}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as ApiJson };
}

describe('trust studio (built binary, demo workspace)', () => {
  it(
    'creates the demo workspace on first run, serves the studio ' + 'and the API behind the token, and stops on SIGINT',
    async () => {
      const { child, doc, stderr } = await startStudio();
      try {
        expect(doc.result).toMatchObject({ demo: true, created: true, agents: ['demo-helper'] });
        const ws = doc.result.workspace;
        expect(ws).toBe(join(tmp.trustHome, 'demo'));
        expect(existsSync(join(ws, 'plugins', 'hello', 'package.sig'))).toBe(true);
        expect(existsSync(join(ws, 'sandbox-policy.json'))).toBe(true);
        expect(statSync(join(ws, '.control-token')).mode & 0o777).toBe(0o600);
        expect(stderr()).toContain('creating the demo workspace');
        expect(stderr()).toContain('sample sandbox run: /bin/echo hello from the sandbox');
        expect(stderr()).not.toContain('sample sandbox run skipped');

        const { port } = doc.result;
        const token = doc.result.url.split('#token=')[1] as string;
        const page = await fetch(`http://127.0.0.1:${port}/`);
        expect(page.status).toBe(200);
        expect(await page.text()).toContain('<title>trust studio</title>');
        expect((await fetch(`http://127.0.0.1:${port}/api/v1/agents`)).status).toBe(401);

        const agents = await api(port, token, 'GET', '/agents');
        expect(agents.json.agents?.[0]?.description).toContain('DEMO');
        const runs = await api(port, token, 'GET', '/sandbox-runs');
        expect(runs.json.provided).toBe(true);
        expect(runs.json.runs).toEqual([
          expect.objectContaining({
            command: '/bin/echo hello from the sandbox',
            exitCode: 0,
            timedOut: false,
            violations: [],
            policy: expect.objectContaining({ capabilities: ['stdout', 'stderr', 'env:LANG'] }),
          }),
        ]);
        const plugins = await api(port, token, 'GET', '/plugins');
        expect(plugins.json.plugins?.[0]).toMatchObject({ name: 'hello', signature: { status: 'valid' } });

        const sent = await api(port, token, 'POST', '/agents/demo-helper/chat', { text: 'remember the milk' });
        expect(sent.status).toBe(200);
        const tasks = (await api(port, token, 'GET', '/tasks')).json.tasks;
        expect(tasks).toEqual([expect.objectContaining({ tool: 'fs_write', status: 'pending' })]);
        expect((await api(port, token, 'POST', `/agents/demo-helper/tasks/${tasks?.[0]?.id}/approve`, {})).status).toBe(
          200,
        );
        let file: { status: number; json: ApiJson } = { status: 0, json: {} };
        for (let i = 0; i < 100 && file.status !== 200; i++) {
          file = await api(port, token, 'GET', '/agents/demo-helper/files/notes.md');
          if (file.status !== 200) await new Promise((r) => setTimeout(r, 50));
        }
        expect(file.json.file?.content).toBe('remember the milk\n');
        const audit = await api(port, token, 'GET', '/agents/demo-helper/audit');
        expect(audit.json.chain?.ok).toBe(true);
      } finally {
        expect(await stop(child)).toBe(0);
      }
    },
  );

  it('reuses the demo workspace on the next run', async () => {
    const { child, doc } = await startStudio();
    try {
      expect(doc.result).toMatchObject({ demo: true, created: false });
    } finally {
      expect(await stop(child)).toBe(0);
    }
  });
});
