import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, request, type Server } from 'node:http';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, createTempHome, runCli } from './run-cli.test-helper.js';
import { egressFetchSchema, egressProxySchema, failureSchema } from './json-schemas.js';

// A loopback HTTP peer started by the test; nothing leaves 127.0.0.1.
const tmp = createTempHome();
let server: Server;
let port = 0;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url} auth=${req.headers['x-api-key'] ?? ''}`);
    res.setHeader('content-type', 'text/plain');
    res.end(`hello \u001b[31mfrom\u001b[0m ${req.url}`);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
  writeFileSync(
    join(tmp.home, 'allow.json'),
    JSON.stringify({
      v: 1,
      http: {
        allow: [`127.0.0.1:${port}`],
        inject: [{ hosts: [`127.0.0.1:${port}`], headers: { 'x-api-key': { env: 'PEER_KEY' } } }],
      },
    }),
  );
  writeFileSync(join(tmp.home, 'deny.json'), JSON.stringify({ v: 1, http: { allow: ['api.example.com'] } }));
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  tmp.cleanup();
});

describe('trust egress fetch (built binary)', () => {
  it('fetches an allowed URL, injects the credential the caller never sees, and returns the audit event', async () => {
    const r = await runCli(['egress', 'fetch', `http://127.0.0.1:${port}/zen`, '--policy', 'allow.json', '--json'], {
      home: tmp.home,
      env: { PEER_KEY: 'k-secret' },
    });
    expect(r.code).toBe(0);
    const doc = egressFetchSchema.parse(r.json());
    expect(doc.result.status).toBe(200);
    expect(doc.result.body).toContain('/zen');
    expect(seen.at(-1)).toBe('GET /zen auth=k-secret');
    expect(doc.result.audit.some((e) => e.decision === 'allow')).toBe(true);
    expect(r.stdout).not.toContain('k-secret');
  });

  it('escapes the body on a terminal only; piped output is byte for byte', async () => {
    const r = await runCli(['egress', 'fetch', `http://127.0.0.1:${port}/raw`, '--policy', 'allow.json'], {
      home: tmp.home,
      env: { PEER_KEY: 'x' },
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('hello \u001b[31mfrom\u001b[0m /raw');
    expect(r.stderr).toMatch(/audit .*allow/);
  });

  it('denies a destination the policy does not allow, with exit 126 and without contacting it', async () => {
    const before = seen.length;
    const r = await runCli(['egress', 'fetch', `http://127.0.0.1:${port}/nope`, '--policy', 'deny.json', '--json'], {
      home: tmp.home,
    });
    expect(r.code).toBe(126);
    expect(failureSchema.parse(r.json()).error.exitCode).toBe(126);
    expect(seen.length).toBe(before);
  });

  it.each([
    [['egress', 'fetch', 'http://127.0.0.1/'], 2, 'CLI_USAGE_MISSING_OPTION'],
    [['egress', 'fetch', 'http://127.0.0.1/', '--policy', 'missing.json'], 1, 'CLI_FILE_NOT_FOUND'],
    [['egress', 'fetch', 'http://127.0.0.1/', '--policy', 'allow.json'], 1, 'POLICY_SECRET_MISSING'],
  ])('%j exits %i with %s', async (argv, exit, code) => {
    const r = await runCli([...argv, '--json'], { home: tmp.home });
    expect(r.code).toBe(exit);
    expect(failureSchema.parse(r.json()).error.code).toBe(code);
  });
});

function viaProxy(proxyPort: number, target: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: proxyPort, method: 'GET', path: target, headers: { host: new URL(target).host } },
      (res) => {
        let body = '';
        res
          .setEncoding('utf8')
          .on('data', (d: string) => (body += d))
          .on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('trust egress proxy (built binary)', () => {
  it('serves allowed requests, refuses others with 403, streams audit lines and stops on SIGINT', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'egress', 'proxy', '--policy', 'allow.json', '--listen', '127.0.0.1:0', '--json'],
      {
        cwd: tmp.home,
        env: { PATH: process.env.PATH ?? '', HOME: tmp.home, TRUST_HOME: join(tmp.home, '.trust'), PEER_KEY: 'k2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const first = await new Promise<string>((resolve, reject) => {
      const check = () => (out.includes('\n') ? resolve(out.split('\n')[0] as string) : undefined);
      child.stdout.on('data', check);
      child.on('exit', (c) => reject(new Error(`proxy exited ${c}`)));
    });
    const doc = egressProxySchema.parse(JSON.parse(first));
    const proxyPort = (doc.result.listen as { port: number }).port;
    const ok = await viaProxy(proxyPort, `http://127.0.0.1:${port}/through-proxy`);
    expect(ok.status).toBe(200);
    expect(seen.at(-1)).toBe('GET /through-proxy auth=k2');
    const denied = await viaProxy(proxyPort, 'http://10.0.0.5/');
    expect(denied.status).toBe(403);
    const code = await new Promise<number | null>((resolve) => {
      child.on('exit', (c) => resolve(c));
      child.kill('SIGINT');
    });
    expect(code).toBe(0);
    const events = out
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => JSON.parse(l) as { decision: string });
    expect(events.map((e) => e.decision)).toEqual(expect.arrayContaining(['allow', 'deny']));
  });

  it('takes the client limits as flags: --max-connections 1 refuses a second connection with 503', async () => {
    const child = spawn(
      process.execPath,
      [BIN, 'egress', 'proxy', '--policy', 'allow.json', '--listen', '127.0.0.1:0', '--json', '--max-connections', '1'],
      {
        cwd: tmp.home,
        env: { PATH: process.env.PATH ?? '', HOME: tmp.home, TRUST_HOME: join(tmp.home, '.trust'), PEER_KEY: 'k2' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    const first = await new Promise<string>((resolve, reject) => {
      const check = () => (out.includes('\n') ? resolve(out.split('\n')[0] as string) : undefined);
      child.stdout.on('data', check);
      child.on('exit', (c) => reject(new Error(`proxy exited ${c}`)));
    });
    const proxyPort = (egressProxySchema.parse(JSON.parse(first)).result.listen as { port: number }).port;
    const held = connect({ host: '127.0.0.1', port: proxyPort });
    await new Promise((ok) => held.once('connect', ok));
    const refused = await new Promise<string>((resolve) => {
      let got = '';
      const s = connect({ host: '127.0.0.1', port: proxyPort });
      s.on('data', (d: Buffer) => (got += d.toString('latin1')));
      s.on('close', () => resolve(got));
    });
    expect(refused).toMatch(/^HTTP\/1\.1 503 /);
    expect(refused).toContain('x-trust-deny: EGRESS_CONNECTION_LIMIT');
    held.destroy();
    await new Promise<void>((resolve) => {
      child.on('exit', () => resolve());
      child.kill('SIGINT');
    });
  });
});
