// Spawning /bin/true five ways: plain; raw bubblewrap with a realistic profile; trust without
// network; trust with the http capability (its own egress proxy + bridge per run); and
// sandbox-runtime (srt) 0.0.83 library steady state (wrapWithSandbox + spawn through a shell).
// Medians in milliseconds; every loop is bounded. Needs Linux with bubblewrap.
import { spawn } from 'node:child_process';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allowHosts } from '@trust/core';
import { createSandbox } from '@trust/os-sandbox';
import { percentile, sample } from '../lib/table.mjs';

const N = 60;
const WARMUP = 5;
const ms = (sorted) => percentile(sorted, 50) / 1e6;

function run(file, args, options = {}) {
  return new Promise((resolve, reject) => {
    const c = spawn(file, args, { stdio: 'ignore', ...options });
    c.once('error', reject);
    c.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

async function measure(fn, n = N) {
  for (let i = 0; i < WARMUP; i++) await fn();
  return ms(await sample(fn, n));
}

function realisticBwrap(ws) {
  const etc = ['ld.so.cache', 'passwd', 'group', 'nsswitch.conf', 'hosts', 'localtime', 'ssl', 'ca-certificates'];
  return [
    '--ro-bind', '/usr', '/usr', '--symlink', 'usr/bin', '/bin', '--symlink', 'usr/sbin', '/sbin',
    '--symlink', 'usr/lib', '/lib', '--symlink', 'usr/lib64', '/lib64', '--dir', '/etc',
    ...etc.flatMap((f) => ['--ro-bind-try', `/etc/${f}`, `/etc/${f}`]),
    '--proc', '/proc', '--dev', '/dev', '--tmpfs', '/tmp', '--bind', ws, ws, '--chdir', ws,
    '--unshare-all', '--new-session', '--die-with-parent', '--cap-drop', 'ALL', '--remount-ro', '/',
    '--clearenv', '--setenv', 'PATH', '/usr/bin:/bin', '--setenv', 'HOME', ws, '--setenv', 'LANG', 'C.UTF-8', '--setenv', 'TMPDIR', '/tmp',
    '--', '/bin/true',
  ];
}

async function runTrust(sb, ws) {
  const p = await sb.spawn(['/bin/true'], { cwd: ws });
  const e = await p.exit;
  if (e.code !== 0) throw new Error(`trust run exited ${e.code}`);
}

async function measureSrt(ws, log) {
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
  const cwd = process.cwd();
  process.chdir(ws);
  try {
    await SandboxManager.initialize({
      network: { allowedDomains: [], deniedDomains: [] },
      filesystem: { denyRead: [], allowWrite: ['.'], denyWrite: [] },
    });
    const once = async () => {
      const cmd = await SandboxManager.wrapWithSandbox('/bin/true');
      await run('/bin/sh', ['-c', cmd], { cwd: ws });
    };
    return await measure(once, 40);
  } finally {
    await SandboxManager.reset().catch((e) => log(`srt reset: ${e?.message ?? e}`));
    process.chdir(cwd);
  }
}

export default async function suite(ctx) {
  const log = ctx?.log ?? (() => {});
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'trust-bench-sb-')));
  const rows = [];
  try {
    const plain = await measure(() => run('/bin/true', []));
    const bwrap = await measure(() => run('/usr/bin/bwrap', realisticBwrap(ws)));
    const noNet = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`] });
    const trustNoNet = await measure(() => runTrust(noNet, ws));
    await noNet.close();
    const withHttp = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`, 'http'] }, { egress: allowHosts(['example.com']) });
    const trustHttp = await measure(() => runTrust(withHttp, ws));
    await withHttp.close();
    // The bridge choice: the compiled launcher against the socat + sh readiness-poll fallback.
    const withSocat = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`, 'http'] }, { egress: allowHosts(['example.com']), bridge: 'socat' });
    const trustSocat = await measure(() => runTrust(withSocat, ws), 30);
    await withSocat.close();
    let srt;
    let srtError;
    try {
      srt = await measureSrt(ws, log);
    } catch (e) {
      srtError = String(e?.message ?? e).split('\n')[0];
      log(`srt could not run here: ${srtError}`);
    }
    rows.push({ measure: 'spawn /bin/true: plain', unit: 'ms', ours: plain, better: 'lower' });
    rows.push({ measure: 'spawn /bin/true: raw bwrap (realistic profile)', unit: 'ms', ours: bwrap, baseline: plain, baselineName: 'plain spawn', better: 'lower' });
    rows.push({ measure: 'spawn /bin/true: trust, no network', unit: 'ms', ours: trustNoNet, baseline: bwrap, baselineName: 'raw bwrap', better: 'lower', target: { ratio: 1.3 } });
    rows.push({ measure: 'egress bridge: C launcher vs socat fallback (trust, http)', unit: 'ms', ours: trustHttp, baseline: trustSocat, baselineName: 'socat + sh poll', better: 'lower', target: { ratio: 1 } });
    if (srt !== undefined) {
      rows.push({ measure: 'spawn /bin/true: trust, http proxy', unit: 'ms', ours: trustHttp, baseline: srt, baselineName: 'srt 0.0.83 steady state', better: 'lower', target: { ratio: 0.33, max: 8 } });
      rows.push({ measure: 'spawn /bin/true: srt 0.0.83 wrapWithSandbox + spawn', unit: 'ms', ours: srt, baseline: bwrap, baselineName: 'raw bwrap', better: 'lower' });
    } else {
      rows.push({ measure: `spawn /bin/true: trust, http proxy (srt unavailable: ${srtError})`, unit: 'ms', ours: trustHttp, baseline: bwrap, baselineName: 'raw bwrap', better: 'lower', target: { max: 8 } });
    }
  } finally {
    rmSync(ws, { recursive: true, force: true });
  }
  return rows;
}
