import { execFileSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryAuditSink } from '@trust/core';
import { formatKeyFile, generateSigningKey, readPackageDir, signPackage } from '@trust/wasm-host';
import { createStudioPluginSession, type StudioPluginSession } from './studio-plugin-session.js';
import { PLUGIN_EGRESS_POLICY_FILE } from './studio-plugin-egress.js';

// A real componentize-js guest (wasm-host's `fetcher` fixture: fetch() over wasi:http) in its own
// worker, signed by a trusted key, asking for `http`; two real loopback peers in this process.
const wasmHostDir = join(dirname(fileURLToPath(import.meta.resolve('@trust/wasm-host'))), '..');
const dir = mkdtempSync(join(tmpdir(), 'studio-plugin-egress-'));
const plugins = join(dir, 'plugins');
const policyFile = join(dir, PLUGIN_EGRESS_POLICY_FILE);
const key = generateSigningKey();
const servers: Server[] = [];
const sessions: StudioPluginSession[] = [];
let allowedPort = 0;
let deniedPort = 0;

async function listen(body: string): Promise<number> {
  const s = createServer((_req, res) => res.end(body));
  servers.push(s);
  await new Promise<void>((done) => s.listen(0, '127.0.0.1', done));
  return (s.address() as AddressInfo).port;
}

beforeAll(async () => {
  // Built in its own process (jco's WIT reader must not run in a process that hosts plugins); cached.
  execFileSync(process.execPath, [join(wasmHostDir, 'scripts', 'build-fixtures.mjs'), '--only', 'fetcher'], {
    cwd: wasmHostDir,
    stdio: 'inherit',
  });
  const pkg = join(plugins, 'fetcher');
  mkdirSync(pkg, { recursive: true });
  writeFileSync(join(pkg, 'fetcher.wasm'), readFileSync(join(wasmHostDir, '.fixtures', 'fetcher.wasm')));
  writeFileSync(
    join(pkg, 'package.toml'),
    '[package]\nname = "fetcher"\nversion = "1.0.0"\n\n' +
      '[wasm]\ncomponent = "fetcher.wasm"\ncapabilities = ["http", "tcp"]\n',
  );
  writeFileSync(join(pkg, 'package.sig'), signPackage(await readPackageDir(pkg), key.privateKey).signature);
  allowedPort = await listen('hello from the allowed peer');
  deniedPort = await listen('the denied peer must never answer');
}, 300_000);

afterAll(async () => {
  await Promise.all(sessions.map((s) => s.close()));
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
  rmSync(dir, { recursive: true, force: true });
});

async function session(protectedPorts: readonly number[] = []) {
  const audit = createMemoryAuditSink();
  const s = await createStudioPluginSession({
    pluginsDir: plugins,
    trustedKeyTexts: [formatKeyFile(key.publicKey)],
    audit,
    egressPolicyFile: policyFile,
    protectedPorts: () => protectedPorts,
    callTimeoutMs: 20_000,
  });
  sessions.push(s);
  return { s, audit };
}

const writePolicy = (policy: unknown) => writeFileSync(policyFile, JSON.stringify(policy));
const policyOf = () => ({
  v: 1,
  name: 'plugins',
  http: { allow: ['127.0.0.1'], deny: [`127.0.0.1:${deniedPort}`] },
  guard: { mode: 'allow-local' },
});
const fetchArg = (port: number) => JSON.stringify({ url: `http://127.0.0.1:${port}/` });

describe('studio plugins with network grants (real worker, real egress, real loopback peers)', () => {
  it('refuses http without a workspace policy, with the code and where to put one (fail closed)', async () => {
    rmSync(policyFile, { force: true });
    const { s } = await session();
    await expect(s.pluginLoad({ source: 'fetcher', grants: ['http'] })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_EGRESS_POLICY_MISSING',
    );
    await expect(s.pluginLoad({ source: 'fetcher', grants: ['http'] })).rejects.toMatchObject({
      hint: expect.stringContaining(`write the policy to ${policyFile}`),
    });
    expect(s.pluginsLoaded()).toEqual([]);
    // The file is read at each load: once the owner writes it, the same session loads the plugin.
    writePolicy(policyOf());
    expect((await s.pluginLoad({ source: 'fetcher', grants: ['http'] })).plugin.capabilities).toEqual(['http']);
  });

  it('refuses a policy the core validator refuses, and grants wider than the policy', async () => {
    const { s } = await session();
    writePolicy({ v: 1, htp: { allow: ['127.0.0.1'] } });
    await expect(s.pluginLoad({ source: 'fetcher', grants: ['http'] })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_EGRESS_POLICY_INVALID',
    );
    writePolicy(policyOf());
    // The policy has no tcp section: a tcp grant would be wider than it; refused, never narrowed.
    await expect(s.pluginLoad({ source: 'fetcher', grants: ['http', 'tcp'] })).rejects.toThrowTrustError(
      'STUDIO_PLUGIN_GRANT_WIDER_THAN_POLICY',
    );
    expect(s.pluginsLoaded()).toEqual([]);
  });

  it('each request goes through egress under the policy: allowed reaches the peer, denied names its rule', async () => {
    writePolicy(policyOf());
    const { s, audit } = await session();
    const { plugin } = await s.pluginLoad({ source: 'fetcher', grants: ['http'] });
    expect(plugin.egress).toMatchObject({ file: policyFile, name: 'plugins' });
    expect(plugin.egress?.rules.map((r) => r.path)).toEqual(['http.allow', 'http.deny', 'guard']);
    const ok = await s.pluginCall(plugin.id, 'run', ['fetch', fetchArg(allowedPort)]);
    expect(JSON.parse(ok.result as string)).toEqual({ status: 200, body: 'hello from the allowed peer' });
    expect(ok.decisions).toEqual([
      expect.objectContaining({ action: 'egress.http', decision: 'allow', rule: 'plugins:http.allow:127.0.0.1' }),
    ]);
    const no = await s.pluginCall(plugin.id, 'run', ['fetch', fetchArg(deniedPort)]);
    expect(no.result).toMatch(/^ERROR: /);
    expect(no.decisions).toEqual([
      expect.objectContaining({
        action: 'egress.http',
        decision: 'deny',
        rule: 'plugins:http.deny',
        code: expect.toBeTrustCode('EGRESS_HOST_DENIED'),
      }),
    ]);
    // The same decisions went to the audit sink the studio writes (its hash-chained edge log).
    const events = audit.events().filter((e) => e.action === 'egress.http');
    expect(events.map((e) => [e.principal.id, e.decision])).toEqual([
      [plugin.id, 'allow'],
      [plugin.id, 'deny'],
    ]);
    await s.pluginUnload(plugin.id);
  }, 120_000);

  it('never reaches a protected port (the control server), whatever the policy allows', async () => {
    writePolicy(policyOf());
    const { s } = await session([allowedPort]);
    const { plugin } = await s.pluginLoad({ source: 'fetcher', grants: ['http'] });
    const call = await s.pluginCall(plugin.id, 'run', ['fetch', fetchArg(allowedPort)]);
    expect(call.result).toMatch(/^ERROR: /);
    expect(call.decisions).toEqual([
      expect.objectContaining({
        action: 'egress.http',
        decision: 'deny',
        code: expect.toBeTrustCode('EGRESS_PROTECTED_PORT'),
        rule: 'protected-port',
      }),
    ]);
  }, 120_000);
});
