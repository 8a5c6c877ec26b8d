import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '@trust/core';
import { formatKeyFile, generateSigningKey, readPackageDir, signPackage } from '@trust/wasm-host';
import { workspaceLayout } from '../demo/demo-workspace.js';
import { createStudioPluginSession, type StudioPluginSession } from './studio-plugin-session.js';
import { workspaceControlPaths } from './studio-plugin-fs-guard.js';

// A real componentize-js guest (wasm-host's `probe` fixture: reads and writes files through its
// preopens) in its own worker, signed by a trusted key, asking for fs:rw over the temp folder; the
// studio narrows that to the grant of each load. Real directories, real symlinks, real renames.
const wasmHostDir = join(dirname(fileURLToPath(import.meta.resolve('@trust/wasm-host'))), '..');
const base = realpathSync(mkdtempSync(join(tmpdir(), 'studio-fs-guard-')));
const ws = join(base, 'ws');
const layout = workspaceLayout(ws, false);
const policyFile = join(ws, 'egress-policy.json');
// The probe also imports wasi:http and wasi:sockets, so every load grants http/tcp/udp under this policy.
const POLICY = JSON.stringify({
  v: 1,
  name: 'owner',
  http: { allow: ['127.0.0.1'] },
  tcp: { allow: ['127.0.0.1:9'] },
  udp: { allow: ['127.0.0.1:9'] },
});
const NET = ['http', 'tcp', 'udp'];
/** The grants of a load: rw over `dir`, plus the network the probe imports. */
const rw = (dir: string) => [`fs:rw:${dir}`, ...NET];
const key = generateSigningKey();
const sessions: StudioPluginSession[] = [];

beforeAll(async () => {
  // Built in its own process (jco's WIT reader must not run in a process that hosts plugins); cached.
  execFileSync(process.execPath, [join(wasmHostDir, 'scripts', 'build-fixtures.mjs'), '--only', 'probe'], {
    cwd: wasmHostDir,
    stdio: 'inherit',
  });
  for (const d of [layout.keys, layout.agents, join(layout.plugins, 'sub'), join(ws, 'data', 'x')])
    mkdirSync(d, { recursive: true });
  writeFileSync(policyFile, POLICY);
  const pkg = join(layout.plugins, 'probe');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'probe.wasm'), readFileSync(join(wasmHostDir, '.fixtures', 'probe.wasm')));
  writeFileSync(
    join(pkg, 'package.toml'),
    '[package]\nname = "probe"\nversion = "1.0.0"\n\n[wasm]\ncomponent = "probe.wasm"\n' +
      `capabilities = ["fs:rw:${dirname(base)}", "http", "tcp", "udp"]\n`,
  );
  writeFileSync(join(pkg, 'package.sig'), signPackage(await readPackageDir(pkg), key.privateKey).signature);
}, 300_000);

afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  rmSync(base, { recursive: true, force: true });
});

/** A session as `trust studio` makes it for workspace `root` (whose path may be a symlink). */
async function session(root = ws) {
  const s = await createStudioPluginSession({
    pluginsDir: join(root, 'plugins'),
    trustedKeyTexts: [formatKeyFile(key.publicKey)],
    audit: createMemoryAuditSink(),
    egressPolicyFile: join(root, 'egress-policy.json'),
    controlPaths: workspaceControlPaths(workspaceLayout(root, false)),
    callTimeoutMs: 20_000,
  });
  sessions.push(s);
  return s;
}

const write = (s: StudioPluginSession, id: string, path: string, text: string) =>
  s.pluginCall(id, 'run', ['write', `${path}\n${text}`]);

describe('studio plugin fs grants never reach the studio files (real plugin host)', () => {
  it('refuses a grant over the workspace root; the policy file stays as the owner wrote it', async () => {
    const s = await session();
    await expect(s.pluginLoad({ source: 'probe', grants: rw(ws) })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_COVERS_CONTROL',
    );
    await expect(s.pluginLoad({ source: 'probe', grants: rw(base) })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_COVERS_CONTROL',
    );
    expect(s.pluginsLoaded()).toEqual([]);
    expect(readFileSync(policyFile, 'utf8')).toBe(POLICY);
  });

  it('refuses the real workspace directory when the studio names the workspace through a symlink', async () => {
    const link = join(base, 'ws-link');
    symlinkSync(ws, link);
    // The studio's own paths all go through the link; the grant names the real directory.
    const s = await session(link);
    await expect(s.pluginLoad({ source: 'probe', grants: rw(ws) })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_COVERS_CONTROL',
    );
    // A grant through the symlink itself is refused by the host's walk (never followed).
    await expect(s.pluginLoad({ source: 'probe', grants: rw(link) })).rejects.toThrowTrustError(
      'WASM_FS_GRANT_INVALID',
    );
    expect(readFileSync(policyFile, 'utf8')).toBe(POLICY);
  });

  it.each([
    ['plugins/sub', 'plugins folder'],
    ['plugins', 'plugins folder'],
    ['keys', 'trusted keys folder'],
    ['agents', 'agents folder'],
  ])('refuses a grant on %s (%s)', async (rel, label) => {
    const s = await session();
    const grant = rw(join(ws, rel));
    await expect(s.pluginLoad({ source: 'probe', grants: grant })).rejects.toThrow(label);
    await expect(s.pluginLoad({ source: 'probe', grants: grant })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_COVERS_CONTROL',
    );
  });

  it('allows a narrow data folder, and the plugin writes there', async () => {
    const s = await session();
    const x = join(ws, 'data', 'x');
    const { plugin } = await s.pluginLoad({ source: 'probe', grants: rw(x) });
    expect((await write(s, plugin.id, join(x, 'out.txt'), 'written by the plugin')).result).toBe('ok');
    expect(readFileSync(join(x, 'out.txt'), 'utf8')).toBe('written by the plugin');
    // `..` out of its root is refused by the guest filesystem: the policy file is out of reach.
    const escaped = await write(s, plugin.id, join(x, '..', '..', 'egress-policy.json'), 'owned');
    expect(escaped.result).not.toBe('ok');
    expect(readFileSync(policyFile, 'utf8')).toBe(POLICY);
    await s.pluginUnload(plugin.id);
  });

  it('a granted folder swapped for a symlink to the workspace during loads: the policy is never reached', async () => {
    const s = await session();
    const data = join(ws, 'data');
    mkdirSync(join(data, 'race'));
    symlinkSync(ws, join(data, 'race-link'));
    // Another process swaps data/race between the real folder and the symlink as fast as it can.
    const swap = [
      "const { renameSync } = require('node:fs');",
      `const d = ${JSON.stringify(data)};`,
      'for (;;) { try {',
      "renameSync(d + '/race', d + '/race-dir'); renameSync(d + '/race-link', d + '/race');",
      "renameSync(d + '/race', d + '/race-link'); renameSync(d + '/race-dir', d + '/race');",
      '} catch {} }',
    ].join('\n');
    const swapper = spawn(process.execPath, ['-e', swap], { stdio: 'ignore' });
    const outcomes: string[] = [];
    try {
      for (let i = 0; i < 8; i++) {
        try {
          const { plugin } = await s.pluginLoad({ source: 'probe', grants: rw(join(data, 'race')) });
          const r = await write(s, plugin.id, join(data, 'race', 'egress-policy.json'), 'owned');
          outcomes.push(`loaded:${String(r.result ?? r.error?.code)}`);
          await s.pluginUnload(plugin.id);
        } catch (e) {
          outcomes.push(`refused:${(e as { code?: string }).code}`);
        }
      }
    } finally {
      swapper.kill('SIGKILL');
    }
    expect(outcomes.length).toBe(8);
    // A load that finds the folder gone mid-swap skips the grant (a missing directory is skipped):
    // the guest then has no preopen at all and reaches nothing.
    for (const o of outcomes)
      expect(o).toMatch(
        /^(loaded:ok|loaded:ERROR: no-preopen|refused:(WASM_FS_GRANT_INVALID|STUDIO_PLUGIN_GRANT_COVERS_CONTROL))$/,
      );
    expect(readFileSync(policyFile, 'utf8')).toBe(POLICY);
  }, 180_000);
});
