// Real clients from inside a real sandbox whose http capability goes through the run's egress
// proxy: curl (GET, a 5 MiB POST with Expect: 100-continue, HTTPS via CONNECT to a local TLS
// peer the rule names), wget, git cloning over smart HTTP from `git http-backend`, Python's
// urllib and Node's fetch with undici's ProxyAgent. Each works for an allowed target and gets a
// clear refusal (403 with x-trust-deny) for a denied one.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allowHosts } from '@trust/core';
import { createStubResolver, startPeer, type Peer } from '@trust/testing';
import { createSandbox, type Sandbox } from './sandbox.js';
import { NODE, NODE_ROOTS, freshDir, runIn } from './test-helpers.js';

const CURL = '/usr/bin/curl';
const WGET = '/usr/bin/wget';
const GIT = '/usr/bin/git';
const PYTHON = '/usr/bin/python3';
const BACKEND = '/usr/lib/git-core/git-http-backend';

/** Serves the bare repositories under `root` over smart HTTP through `git http-backend` (CGI). */
function gitHttpServer(root: string): Server {
  return createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://git.test');
    const cgi = spawn(BACKEND, [], {
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        GIT_PROJECT_ROOT: root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: url.pathname,
        QUERY_STRING: url.search.slice(1),
        REQUEST_METHOD: req.method ?? 'GET',
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        REMOTE_ADDR: '127.0.0.1',
      },
    });
    req.pipe(cgi.stdin);
    const out: Buffer[] = [];
    cgi.stdout.on('data', (c: Buffer) => out.push(c));
    cgi.on('close', () => {
      const all = Buffer.concat(out);
      const split = all.indexOf('\r\n\r\n');
      const head = all.subarray(0, split).toString('latin1');
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n')) {
        const i = line.indexOf(':');
        const name = line.slice(0, i).trim().toLowerCase();
        const value = line.slice(i + 1).trim();
        if (name === 'status') status = Number(value.split(' ')[0]);
        else if (name) headers[name] = value;
      }
      res.writeHead(status, headers);
      res.end(all.subarray(split + 4));
    });
  });
}

const listen = (s: Server): Promise<number> =>
  new Promise((ok) => s.listen(0, '127.0.0.1', () => ok((s.address() as AddressInfo).port)));

describe('real clients through the egress proxy, from inside the sandbox (bubblewrap)', () => {
  let peer: Peer;
  let sb: Sandbox;
  let tlsPort: number;
  let gitPort: number;
  const servers: Server[] = [];
  const ws = freshDir('egress-clients-ws-');
  const fixtures = freshDir('egress-clients-ro-');
  const undiciDir = dirname(
    createRequire(join(dirname(fileURLToPath(import.meta.url)), '../../egress/package.json')).resolve('undici'),
  );
  const big = join(fixtures, 'big.bin');
  const resolve = createStubResolver({
    'api.test': ['127.0.0.1'],
    'tls.test': ['127.0.0.1'],
    'git.test': ['127.0.0.1'],
    'denied.test': ['127.0.0.1'],
  });

  beforeAll(async () => {
    for (const bin of ['/usr/bin/bwrap', CURL, WGET, GIT, PYTHON, BACKEND, '/usr/bin/openssl']) {
      expect(existsSync(bin), `${bin} must be installed (scripts/bootstrap.sh --system)`).toBe(true);
    }
    peer = await startPeer({
      routes: { '/hello': { kind: 'text', body: 'hello-through-proxy' }, '/upload': { kind: 'echo' } },
    });
    writeFileSync(big, Buffer.alloc(5 * 1024 * 1024, 0x61));
    // A TLS peer with a certificate for tls.test, trusted inside the sandbox through --cacert.
    execFileSync(
      '/usr/bin/openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=tls.test',
        '-addext',
        'subjectAltName=DNS:tls.test',
        '-keyout',
        join(fixtures, 'key.pem'),
        '-out',
        join(fixtures, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    const tls = createTlsServer(
      { key: readFileSync(join(fixtures, 'key.pem')), cert: readFileSync(join(fixtures, 'cert.pem')) },
      (_req, res) => res.end('hello-over-tls'),
    );
    servers.push(tls);
    tlsPort = await listen(tls);
    // A bare repository with one commit, served by git http-backend on loopback.
    const repos = join(fixtures, 'repos');
    const work = join(fixtures, 'work');
    mkdirSync(work, { recursive: true });
    const git = (cwd: string, ...args: string[]): void =>
      void execFileSync(GIT, ['-c', 'user.name=t', '-c', 'user.email=t@t', ...args], { cwd, stdio: 'ignore' });
    git(fixtures, 'init', '-q', '--bare', join(repos, 'repo.git'));
    git(work, 'init', '-q');
    writeFileSync(join(work, 'README'), 'cloned-through-proxy\n');
    git(work, 'add', 'README');
    git(work, 'commit', '-q', '-m', 'one');
    git(work, 'push', '-q', join(repos, 'repo.git'), 'HEAD:refs/heads/main');
    git(repos, '--git-dir', join(repos, 'repo.git'), 'symbolic-ref', 'HEAD', 'refs/heads/main');
    const gitServer = gitHttpServer(repos);
    servers.push(gitServer);
    gitPort = await listen(gitServer);
    sb = await createSandbox(
      {
        v: 1,
        capabilities: ['http', 'stdout', 'stderr', `fs:rw:${ws}`, `fs:ro:${fixtures}`, `fs:ro:${undiciDir}`],
        systemRoots: NODE_ROOTS,
      },
      { egress: allowHosts(['api.test', `tls.test:${tlsPort}`, 'git.test']), guard: { mode: 'default', resolve } },
    );
  });
  afterAll(async () => {
    await sb?.close();
    await peer?.close();
    for (const s of servers) s.close();
  });

  const hello = (host = 'api.test'): string => `http://${host}:${peer.httpPort}/hello`;

  it('curl: GET works; a denied host gets 403 with x-trust-deny', async () => {
    const ok = await runIn(sb, [CURL, '-sS', '--max-time', '20', hello()]);
    expect(ok.stdout).toBe('hello-through-proxy');
    const no = await runIn(sb, [CURL, '-sS', '--max-time', '20', '-i', hello('denied.test')]);
    expect(no.stdout).toMatch(/^HTTP\/1\.1 403/);
    expect(no.stdout).toMatch(/x-trust-deny: EGRESS_/i);
  });

  it('curl: a 5 MiB POST that sends Expect: 100-continue arrives whole', async () => {
    const r = await runIn(sb, [
      CURL,
      '-sS',
      '--max-time',
      '60',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code}',
      '-H',
      'Expect: 100-continue',
      '--data-binary',
      `@${big}`,
      `http://api.test:${peer.httpPort}/upload`,
    ]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe('200');
    const got = (await peer.requests()).filter((q) => q.path.endsWith('/upload')).at(-1);
    expect(got?.body.length).toBe(5 * 1024 * 1024);
  });

  it('curl: HTTPS via CONNECT to the local TLS peer the rule names; another port is refused', async () => {
    const ok = await runIn(sb, [
      CURL,
      '-sS',
      '--max-time',
      '20',
      '--cacert',
      join(fixtures, 'cert.pem'),
      `https://tls.test:${tlsPort}/`,
    ]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout).toBe('hello-over-tls');
    const no = await runIn(sb, [
      CURL,
      '-sS',
      '--max-time',
      '20',
      '-o',
      '/dev/null',
      '-w',
      '%{http_connect}',
      '--cacert',
      join(fixtures, 'cert.pem'),
      `https://denied.test:${tlsPort}/`,
    ]);
    expect(no.stdout).toBe('403');
  });

  it('wget: GET works; a denied host gets 403 with x-trust-deny', async () => {
    const ok = await runIn(sb, [WGET, '-q', '-O', '-', hello()]);
    expect(ok.stdout).toBe('hello-through-proxy');
    const no = await runIn(sb, [WGET, '-S', '-O', '-', hello('denied.test')]);
    expect(no.exit.code).not.toBe(0);
    expect(no.stderr).toMatch(/HTTP\/1\.1 403/);
    expect(no.stderr).toMatch(/x-trust-deny: EGRESS_/i);
  });

  it('git: clones over smart HTTP from git http-backend; a denied host is refused with 403', async () => {
    const env = ['env', `HOME=${ws}`];
    const ok = await runIn(sb, [...env, GIT, 'clone', '-q', `http://git.test:${gitPort}/repo.git`, `${ws}/clone`]);
    expect(ok.stderr).toBe('');
    expect(readFileSync(join(ws, 'clone', 'README'), 'utf8')).toBe('cloned-through-proxy\n');
    const no = await runIn(sb, [...env, GIT, 'clone', '-q', `http://denied.test:${gitPort}/repo.git`, `${ws}/no`]);
    expect(no.exit.code).not.toBe(0);
    expect(no.stderr).toMatch(/403/);
  });

  it("python urllib: GET works; a denied host gets HTTPError 403 with the proxy's code", async () => {
    const script =
      'import sys, urllib.request, urllib.error\n' +
      'try:\n  print(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())\n' +
      'except urllib.error.HTTPError as e:\n  print(e.code, e.headers["x-trust-deny"])\n';
    const ok = await runIn(sb, [PYTHON, '-c', script, hello()]);
    expect(ok.stdout.trim()).toBe('hello-through-proxy');
    const no = await runIn(sb, [PYTHON, '-c', script, hello('denied.test')]);
    expect(no.stdout.trim()).toMatch(/^403 EGRESS_/);
  });

  it("node fetch with undici's ProxyAgent: GET works; a denied host gets 403 with the proxy's code", async () => {
    const script =
      `const { fetch, ProxyAgent } = require(${JSON.stringify(undiciDir)});\n` +
      // proxyTunnel false: plain http:// targets go as forward requests, not CONNECT tunnels.
      'const dispatcher = new ProxyAgent({ uri: process.env.HTTP_PROXY, proxyTunnel: false });\n' +
      'fetch(process.argv[1], { dispatcher }).then(async (r) =>\n' +
      "  console.log(r.status, r.headers.get('x-trust-deny') ?? '', await r.text()));\n";
    const ok = await runIn(sb, [NODE, '-e', script, hello()]);
    expect(ok.stderr).toBe('');
    expect(ok.stdout.trim()).toBe('200  hello-through-proxy');
    const no = await runIn(sb, [NODE, '-e', script, hello('denied.test')]);
    expect(no.stdout.trim()).toMatch(/^403 EGRESS_/);
  });
});
