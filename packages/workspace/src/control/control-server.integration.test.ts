import { mkdtempSync, mkdirSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlServer, type ControlServer } from './control-server.js';
import { call, createTestAgents } from './control-fixture.test-helper.js';

let server: ControlServer;
let dir: string;
const agents = createTestAgents();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'control-'));
  mkdirSync(join(dir, 'studio'));
  writeFileSync(join(dir, 'studio', 'index.html'), '<!doctype html><title>studio</title>');
  writeFileSync(join(dir, 'secret.txt'), 'outside the studio folder');
  server = await createControlServer({
    agents,
    tokenFile: join(dir, 'state', 'control-token'),
    studioDir: join(dir, 'studio'),
    maxBodyBytes: 1024,
  });
});
afterAll(async () => server.close());

const auth = () => ({ authorization: `Bearer ${server.token}` });

describe('control server: refusals', () => {
  it.each([
    ['missing token', { path: '/api/v1/agents' }, 401, 'CONTROL_TOKEN_MISSING'],
    [
      'wrong token',
      { path: '/api/v1/agents', headers: { authorization: 'Bearer ' + 'x'.repeat(43) } },
      401,
      'CONTROL_TOKEN_INVALID',
    ],
    [
      'non-bearer scheme',
      { path: '/api/v1/agents', headers: { authorization: 'Basic abc' } },
      401,
      'CONTROL_TOKEN_INVALID',
    ],
    ['token in the query string', { path: '/api/v1/agents?token=TOKEN' }, 400, 'CONTROL_TOKEN_IN_QUERY'],
    ['access_token in the query string of a page', { path: '/?access_token=TOKEN' }, 400, 'CONTROL_TOKEN_IN_QUERY'],
    [
      'foreign Host (DNS rebinding)',
      { path: '/api/v1/agents', headers: { host: 'evil.test:PORT', auth: '1' } },
      421,
      'CONTROL_HOST_NOT_ALLOWED',
    ],
    [
      'Host without the port',
      { path: '/api/v1/agents', headers: { host: '127.0.0.1', auth: '1' } },
      421,
      'CONTROL_HOST_NOT_ALLOWED',
    ],
    [
      'cross-site Origin',
      { path: '/api/v1/agents', headers: { origin: 'http://evil.test', auth: '1' } },
      403,
      'CONTROL_CROSS_ORIGIN',
    ],
    ['Origin null', { path: '/api/v1/agents', headers: { origin: 'null', auth: '1' } }, 403, 'CONTROL_CROSS_ORIGIN'],
    [
      'same-site Sec-Fetch-Site',
      { path: '/api/v1/agents', headers: { 'sec-fetch-site': 'same-site', auth: '1' } },
      403,
      'CONTROL_CROSS_ORIGIN',
    ],
    [
      'cross-site Sec-Fetch-Site',
      { path: '/api/v1/agents', headers: { 'sec-fetch-site': 'cross-site', auth: '1' } },
      403,
      'CONTROL_CROSS_ORIGIN',
    ],
    ['static path traversal', { path: '/../secret.txt' }, 400, 'CONTROL_PATH_INVALID'],
    ['encoded static path traversal', { path: '/..%2fsecret.txt' }, 400, 'CONTROL_PATH_INVALID'],
    [
      'file route traversal',
      { path: '/api/v1/agents/a1/files/..%2F..%2Fetc%2Fpasswd', headers: { auth: '1' } },
      400,
      'CONTROL_PATH_INVALID',
    ],
    [
      'file route absolute path',
      { path: '/api/v1/agents/a1/files/%2Fetc%2Fpasswd', headers: { auth: '1' } },
      400,
      'CONTROL_PATH_INVALID',
    ],
    ['unknown agent', { path: '/api/v1/agents/nope', headers: { auth: '1' } }, 404, 'CONTROL_AGENT_NOT_FOUND'],
    ['unknown route', { path: '/api/v1/nothing', headers: { auth: '1' } }, 404, 'CONTROL_NOT_FOUND'],
    ['missing runtime feature', { path: '/api/v1/agents/a1/config', headers: { auth: '1' } }, 501, 'NOT_IMPLEMENTED'],
  ] as const)('%s → %i %s', async (_name, o, status, code) => {
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries((o as { headers?: Record<string, string> }).headers ?? {})) {
      if (k === 'auth') Object.assign(headers, auth());
      else headers[k] = v.replace('PORT', String(server.port));
    }
    const res = await call(server.port, { path: o.path.replace('TOKEN', server.token), headers });
    expect(res.status).toBe(status);
    expect(res.json().error.code).toBe(code);
    expect(res.text).not.toContain(server.token);
    expect(res.text).not.toContain('outside the studio folder');
  });

  it('refuses an oversized body with 413, declared or streamed', async () => {
    const big = JSON.stringify({ text: 'x'.repeat(5000) });
    const res = await call(server.port, {
      method: 'POST',
      path: '/api/v1/agents/a1/chat',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: big,
    });
    expect(res.status).toBe(413);
    expect(res.json().error.code).toBeTrustCode('CONTROL_BODY_TOO_LARGE');
    const chunked = await call(server.port, {
      method: 'POST',
      path: '/api/v1/agents/a1/chat',
      headers: { ...auth(), 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      body: big,
    });
    expect(chunked.status).toBe(413);
  });

  it('refuses a form-encoded POST (no simple cross-site requests)', async () => {
    const res = await call(server.port, {
      method: 'POST',
      path: '/api/v1/agents/a1/chat',
      headers: { ...auth(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'text=hi',
    });
    expect(res.status).toBe(415);
  });

  it('refuses trigger with source "user" (the owner\'s voice)', async () => {
    const res = await call(server.port, {
      method: 'POST',
      path: '/api/v1/agents/a1/trigger',
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"source":"user"}',
    });
    expect(res.status).toBe(403);
    expect(res.json().error.code).toBeTrustCode('CONTROL_TRIGGER_SOURCE_FORBIDDEN');
  });

  it('answers no permissive CORS preflight', async () => {
    const res = await call(server.port, {
      method: 'OPTIONS',
      path: '/api/v1/agents',
      headers: { origin: 'http://evil.test', 'access-control-request-method': 'GET' },
    });
    expect(res.status).toBe(403);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('fails cleanly when the port is taken', async () => {
    await expect(createControlServer({ agents, port: server.port })).rejects.toMatchObject({ code: 'EADDRINUSE' });
  });

  it('refuses to bind a non-loopback address without allowLan', async () => {
    await expect(createControlServer({ agents, host: '0.0.0.0' })).rejects.toHaveTrustCode('CONTROL_BAD_REQUEST');
  });
});

describe('control server: serving', () => {
  it('creates the token file with mode 0600 and reuses it', async () => {
    const file = join(dir, 'state', 'control-token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toBe(server.token);
    const again = await createControlServer({ agents, tokenFile: file });
    expect(again.token).toBe(server.token);
    await again.close();
  });

  it('serves studio pages without a token, with the CSP and hardening headers', async () => {
    const res = await call(server.port, { path: '/' });
    expect(res.status).toBe(200);
    const csp = String(res.headers['content-security-policy']);
    for (const d of [
      "script-src 'self'",
      "connect-src 'self'",
      "frame-src 'none'",
      "object-src 'none'",
      "base-uri 'none'",
      "frame-ancestors 'none'",
      'report-uri /csp-report',
    ])
      expect(csp).toContain(d);
    expect(csp).not.toContain('unsafe');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('answers API routes with the token, same-origin browser headers included', async () => {
    const res = await call(server.port, {
      path: '/api/v1/agents',
      headers: { ...auth(), origin: `http://127.0.0.1:${server.port}`, 'sec-fetch-site': 'same-origin' },
    });
    expect(res.status).toBe(200);
    expect(res.json<{ agents: { id: string }[] }>().agents[0]?.id).toBe('a1');
    const viaLocalhost = await call(server.port, {
      path: '/api/v1/agents',
      headers: { ...auth(), host: `localhost:${server.port}` },
    });
    expect(viaLocalhost.status).toBe(200);
  });

  it('records CSP violation reports for the studio to read back', async () => {
    const report = JSON.stringify({
      'csp-report': { 'violated-directive': 'script-src-elem', 'blocked-uri': 'inline' },
    });
    const post = await call(server.port, {
      method: 'POST',
      path: '/csp-report',
      headers: { 'content-type': 'application/csp-report' },
      body: report,
    });
    expect(post.status).toBe(204);
    const res = await call(server.port, { path: '/api/v1/csp-reports', headers: auth() });
    expect(res.json().reports).toContainEqual(JSON.parse(report));
  });

  it('streams approval requests over SSE', async () => {
    const received = new Promise<string>((resolve, reject) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/api/v1/events',
          headers: { host: `127.0.0.1:${server.port}`, ...auth() },
        },
        (res) => {
          expect(res.headers['content-type']).toContain('text/event-stream');
          let buf = '';
          res.on('data', (c: Buffer) => {
            buf += c.toString('utf8');
            if (buf.includes('event: approval')) {
              resolve(buf);
              req.destroy();
            }
          });
          // The stream is open: now make the agent ask.
          void call(server.port, {
            method: 'POST',
            path: '/api/v1/agents/a1/chat',
            headers: { ...auth(), 'content-type': 'application/json' },
            body: '{"text":"write x"}',
          });
        },
      );
      req.on('error', reject);
      req.end();
    });
    const text = await received;
    const data = JSON.parse(/data: (.*)\n/.exec(text.slice(text.indexOf('event: approval')))![1]!);
    expect(data).toMatchObject({ agent: 'a1', data: { tool: 'fs_write', args: { path: 'x.txt' }, status: 'pending' } });
  });

  it('approves a task with modified arguments', async () => {
    const tasks = (await call(server.port, { path: '/api/v1/tasks', headers: auth() })).json<{
      tasks: { id: string }[];
    }>().tasks;
    const res = await call(server.port, {
      method: 'POST',
      path: `/api/v1/agents/a1/tasks/${tasks[0]?.id}/approve`,
      headers: { ...auth(), 'content-type': 'application/json' },
      body: '{"args":{"path":"y.txt"}}',
    });
    expect(res.json().task).toMatchObject({ status: 'approved', args: { path: 'y.txt' } });
  });

  it('refuses the SSE stream without a token', async () => {
    const res = await call(server.port, { path: '/api/v1/events' });
    expect(res.status).toBe(401);
  });
});
