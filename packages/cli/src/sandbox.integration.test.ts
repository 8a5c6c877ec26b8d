import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createTempHome, runCli } from './run-cli.test-helper.js';
import { failureSchema, sandboxSchema } from './json-schemas.js';
import { recordedPolicyDocument } from '@trust/workspace';

// Needs bubblewrap with user namespaces (installed by the bootstrap); fails without it.
const tmp = createTempHome();
let peer: Server;
let peerPort = 0;
const peerSeen: string[] = [];
beforeAll(async () => {
  peer = createServer((req, res) => {
    peerSeen.push(req.url ?? '');
    res.end(`peer ok ${req.url}`);
  });
  await new Promise<void>((r) => peer.listen(0, '127.0.0.1', r));
  peerPort = (peer.address() as { port: number }).port;
  // A capability that does not parse inside a policy file: the file is wrong (exit 1), not the command line.
  writeFileSync(join(tmp.home, 'bad-cap.json'), '{"v":1,"capabilities":["netwrok"]}');
  writeFileSync(join(tmp.home, 'egress-policy.json'), '{"v":1,"http":{"allow":["api.example.com"]}}');
});
afterAll(async () => {
  await new Promise<void>((r) => peer.close(() => r()));
  tmp.cleanup();
});

// A raw HTTP request through the per-run proxy named in HTTP_PROXY, made by the running Node binary.
// The sandbox mounts the system directories only: a Node installed elsewhere (CI's Node 24 leg runs
// one from the repository's cache) is visible inside only when its install directory is granted.
const nodeCaps = process.execPath.startsWith('/usr/') ? [] : ['--cap', `fs:ro:${dirname(dirname(process.execPath))}`];
const viaProxy = (port: number, path: string) =>
  `const u=new URL(process.env.HTTP_PROXY);const ` +
  `s=require('net').connect(+u.port,u.hostname,()=>s.write('GET ` +
  `http://127.0.0.1:${port}${path} HTTP/1.1\\r\\nHost: 127.0.0.1:${port}\\r\\nConnection: ` +
  `close\\r\\n\\r\\n'));s.pipe(process.stdout)`;

describe('trust sandbox (built binary, real bubblewrap)', () => {
  it('passes the exit code and the output through', async () => {
    const r = await runCli(['sandbox', '--', 'sh', '-c', 'echo out; echo err >&2; exit 3'], { home: tmp.home });
    expect(r.stderr).not.toContain('error[');
    expect(r.code).toBe(3);
    expect(r.stdout).toBe('out\n');
    expect(r.stderr).toContain('err\n');
  });

  it('records each run in <TRUST_HOME>/sandbox-runs.jsonl (mode 0600) for the studio', async () => {
    const fresh = createTempHome();
    try {
      const r = await runCli(['sandbox', '--cap', 'env:LANG', '--', '/bin/true'], { home: fresh.home });
      expect(r.stderr).not.toContain('error[');
      expect(r.code).toBe(0);
      const file = join(fresh.trustHome, 'sandbox-runs.jsonl');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const lines = readFileSync(file, 'utf8').trim().split('\n');
      expect(lines).toHaveLength(1);
      const run = JSON.parse(lines[0] as string);
      expect(run).toMatchObject({
        command: '/bin/true',
        argv: ['/bin/true'],
        exitCode: 0,
        signal: null,
        timedOut: false,
        violations: [],
        egressCounts: { allowed: 0, denied: 0 },
      });
      expect(run.policy.capabilities).toEqual(['stdout', 'stderr', 'env:LANG']);
      // No egress policy: recorded as none (every connection refused), not left unknown.
      expect(run.egressPolicy).toBeNull();
      expect(run.id).toEqual(expect.any(String));
      expect(Number.isNaN(Date.parse(run.startedAt))).toBe(false);
      expect(run.durationMs).toEqual(expect.any(Number));
    } finally {
      fresh.cleanup();
    }
  });

  it('hides the home directory and scrubs the environment, passing only granted variables', async () => {
    writeFileSync(join(tmp.home, 'secret.txt'), 's3cret');
    const r = await runCli(
      [
        'sandbox',
        '--cap',
        'env:VISIBLE',
        '--json',
        '--',
        'sh',
        '-c',
        `echo "$VISIBLE/$HIDDEN_TOKEN"; cat ${join(tmp.home, 'secret.txt')}`,
      ],
      {
        home: tmp.home,
        env: { VISIBLE: 'yes', HIDDEN_TOKEN: 'leak' },
      },
    );
    const doc = sandboxSchema.parse(r.json());
    expect(doc.result.stdout).toBe('yes/\n');
    expect(doc.result.code).not.toBe(0);
    expect(r.code).toBe(doc.result.code);
  });

  it('lets a granted directory be written, and reads the policy from a file', async () => {
    const work = join(tmp.home, 'work');
    mkdirSync(work, { recursive: true });
    writeFileSync(join(tmp.home, 'policy.json'), JSON.stringify({ v: 1, capabilities: [`fs:rw:${work}`] }));
    const r = await runCli(
      ['sandbox', '--policy', 'policy.json', '--cwd', work, '--', 'sh', '-c', 'echo hi > out.txt'],
      { home: tmp.home },
    );
    expect(r.stderr).not.toContain('error[');
    expect(r.code).toBe(0);
    expect(readFileSync(join(work, 'out.txt'), 'utf8')).toBe('hi\n');
  });

  it('pipes stdin only when granted', async () => {
    const granted = await runCli(['sandbox', '--cap', 'stdin', '--', 'cat'], { home: tmp.home, input: 'piped' });
    expect(granted.stdout).toBe('piped');
    const denied = await runCli(['sandbox', '--', 'cat'], { home: tmp.home, input: 'piped' });
    expect(denied.stdout).toBe('');
  });

  it('reaches an allowed host only through the egress policy; a denied one gets 403 and a violation', async () => {
    writeFileSync(
      join(tmp.home, 'allow.json'),
      JSON.stringify({ v: 1, http: { allow: [`127.0.0.1:${peerPort}`] }, guard: { mode: 'default' } }),
    );
    writeFileSync(
      join(tmp.home, 'other.json'),
      JSON.stringify({ v: 1, http: { allow: ['example.com'] }, guard: { mode: 'default' } }),
    );
    const ok = await runCli(
      [
        'sandbox',
        '--cap',
        'http',
        '--egress',
        'allow.json',
        ...nodeCaps,
        '--',
        process.execPath,
        '-e',
        viaProxy(peerPort, '/allowed'),
      ],
      { home: tmp.home },
    );
    expect(ok.stdout).toContain('200 OK');
    expect(ok.stdout).toContain('peer ok /allowed');
    const denied = await runCli(
      [
        'sandbox',
        '--cap',
        'http',
        '--egress',
        'other.json',
        '--json',
        ...nodeCaps,
        '--',
        process.execPath,
        '-e',
        viaProxy(peerPort, '/denied'),
      ],
      { home: tmp.home },
    );
    const doc = sandboxSchema.parse(denied.json());
    expect(doc.result.stdout).toContain('403');
    expect(doc.result.violations).toEqual([
      expect.objectContaining({ kind: 'egress', code: expect.toBeTrustCode('EGRESS_HOST_NOT_ALLOWED') }),
    ]);
    expect(peerSeen).not.toContain('/denied');
    const runs = readFileSync(join(tmp.trustHome, 'sandbox-runs.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const last = runs.at(-1);
    expect(last.id).toBe(doc.result.runId);
    expect(last.egressCounts).toEqual({ allowed: 0, denied: 1 });
    expect(last.egress).toEqual([
      expect.objectContaining({ decision: 'deny', target: expect.stringContaining('/denied') }),
    ]);
    expect(last.violations).toEqual([expect.stringContaining('EGRESS_HOST_NOT_ALLOWED')]);
    // The record keeps the policy it ran under, so the studio links the denial to its rule.
    expect(recordedPolicyDocument(last.egressPolicy)?.document).toMatchObject({
      v: 1,
      http: { allow: ['example.com'] },
    });
  });

  it('has no network at all without the http capability', async () => {
    const r = await runCli(
      [
        'sandbox',
        ...nodeCaps,
        '--',
        process.execPath,
        '-e',
        `require('net').connect(${peerPort},'127.0.0.1')` +
          ".on('error',e=>{console.log('blocked',e.code);process.exit(7)}).on('connect',()=>process.exit(0))",
      ],
      { home: tmp.home },
    );
    expect(r.code).toBe(7);
    expect(r.stdout).toContain('blocked');
  });

  it('kills the run at --timeout and exits 124', async () => {
    const r = await runCli(['sandbox', '--timeout', '1', '--json', '--', 'sh', '-c', 'sleep 30 & sleep 30'], {
      home: tmp.home,
    });
    expect(r.code).toBe(124);
    expect(sandboxSchema.parse(r.json()).result.timedOut).toBe(true);
  });

  it.each([
    [['sandbox', '--cap', 'stdout'], 2, 'CLI_USAGE_MISSING_ARGUMENT'],
    [['sandbox', '--cap', 'http', '--', 'true'], 2, 'CLI_USAGE_MISSING_OPTION'],
    // A --cap value that is not a capability is bad command-line input: the usage rule (exit 2).
    [['sandbox', '--cap', 'netwrok', '--', 'true'], 2, 'CLI_USAGE_INVALID_VALUE'],
    [['sandbox', '--policy', 'bad-cap.json', '--', 'true'], 1, 'SANDBOX_POLICY_INVALID'],
    [['sandbox', '--policy', 'missing.json', '--', 'true'], 1, 'CLI_FILE_NOT_FOUND'],
    // An egress policy given as the sandbox policy: a usage mistake, with the flag it belongs to.
    [['sandbox', '--policy', 'egress-policy.json', '--', 'true'], 2, 'CLI_USAGE_INVALID_VALUE'],
  ])('%j exits %i with %s', async (argv, exit, code) => {
    const r = await runCli([argv[0] as string, '--json', ...argv.slice(1)], { home: tmp.home });
    expect(r.code).toBe(exit);
    const error = failureSchema.parse(r.json()).error;
    expect(error.code).toBe(code);
    if (argv.includes('egress-policy.json')) expect(error.hint).toMatch(/did you mean --egress egress-policy\.json/);
  });
});
