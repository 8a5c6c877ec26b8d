import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatKeyFile, generateSigningKey, readPackageDir, signPackage } from '@trust/wasm-host';
import { BIN, createTempHome } from './run-cli.test-helper.js';
import { studioSchema } from './json-schemas.js';
import { sampleComponent, sampleManifest } from '@trust/workspace';

// The built `trust studio <workspace>`: the fs guard is wired with the workspace's control paths
// and the trust home. A signed package in plugins/ declares fs:rw over the whole temp home; each
// load narrows it, and the control API answers as the studio page sees it.
const tmp = createTempHome();
const home = realpathSync(tmp.home);
const ws = join(home, 'ws');
const trustHome = join(home, '.trust');
let child: ChildProcess | undefined;
let api: (path: string, body: unknown) => Promise<{ status: number; json: { error?: { code: string } } }>;

beforeAll(async () => {
  const key = generateSigningKey();
  for (const d of [join(ws, 'agents'), join(ws, 'keys'), join(ws, 'data', 'x'), join(trustHome, 'cache')])
    mkdirSync(d, { recursive: true });
  writeFileSync(join(ws, 'keys', 'demo-signing.pub'), formatKeyFile(key.publicKey));
  const pkg = join(ws, 'plugins', 'wide');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(
    join(pkg, 'package.toml'),
    sampleManifest('wide').replace('capabilities = []', `capabilities = ["fs:rw:${home}"]`),
  );
  writeFileSync(join(pkg, 'plugin.wasm'), sampleComponent());
  writeFileSync(join(pkg, 'package.sig'), signPackage(await readPackageDir(pkg), key.privateKey).signature);
  const c = spawn(process.execPath, [BIN, 'studio', ws, '--json'], {
    cwd: home,
    env: { PATH: process.env.PATH ?? '', HOME: home, TRUST_HOME: trustHome },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child = c;
  let out = '';
  let err = '';
  c.stderr?.setEncoding('utf8').on('data', (d: string) => (err += d));
  const first = await new Promise<string>((resolve, reject) => {
    c.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      if (out.includes('\n')) resolve(out.split('\n')[0] as string);
    });
    c.on('exit', (code) => reject(new Error(`studio exited ${code}: ${err}`)));
  });
  const doc = studioSchema.parse(JSON.parse(first)).result;
  const token = doc.url.split('#token=')[1] as string;
  api = async (path, body) => {
    const res = await fetch(`http://127.0.0.1:${doc.port}/api/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as { error?: { code: string } } };
  };
}, 60_000);

afterAll(() => {
  child?.kill('SIGTERM');
  tmp.cleanup();
});

describe('trust studio: a plugin fs grant never reaches the studio files (built binary)', () => {
  it.each([
    ['the workspace', ws],
    ['the folder above it', home],
    ['the trusted keys folder', join(ws, 'keys')],
    ['the agents folder', join(ws, 'agents')],
    ['the plugin cache', join(trustHome, 'cache')],
    ['the trust home', trustHome],
  ])('refuses a grant over %s', async (_what, dir) => {
    const r = await api('/plugins/load', { source: 'wide', grants: [`fs:rw:${dir}`] });
    expect(r.status).toBe(400);
    expect(r.json.error).toHaveTrustCode('STUDIO_PLUGIN_GRANT_COVERS_CONTROL');
  });

  it('loads with a grant on a data folder inside the workspace', async () => {
    const r = await api('/plugins/load', { source: 'wide', grants: [`fs:rw:${join(ws, 'data', 'x')}`] });
    expect(r.json.error).toBeUndefined();
    expect(r.status).toBe(200);
  });
});
