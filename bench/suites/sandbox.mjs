// Spawning /bin/true five ways: plain; raw bubblewrap with a realistic profile; trust without
// network; trust with the http capability (its own egress proxy + bridge per run); and
// sandbox-runtime (srt) 0.0.83 library steady state (wrapWithSandbox + spawn through a shell).
// One more baseline separates trust's own cost from the cost of its mounts: raw bubblewrap given
// exactly trust's plan (protected-path binds, /proc covers, hidden dirs, seccomp program) on a
// workspace whose placeholders already exist, which favours the baseline.
// trust prepares each sandbox's next run once a run has ended (prestart, the default); rows with
// prestart: false show a run started from the beginning. Every spawn starts on a quiet machine
// (SETTLE_MS after the last one, so that no method is timed while another's background work
// runs), and one row times spawns back to back, where the next spawn waits for its run to be
// prepared. Medians in milliseconds; every loop is bounded. Needs Linux with bubblewrap.
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { allowHosts } from '@trust/core';
import { buildSeccompFilter, createSandbox, planSandbox, seccompArchOf } from '@trust/os-sandbox';
import { percentile } from '../lib/table.mjs';

const N = 40;
const WARMUP = 5;
const SETTLE_MS = 15;
const settle = () => new Promise((ok) => setTimeout(ok, SETTLE_MS));
const ms = (sorted) => percentile(sorted, 50) / 1e6;

function run(file, args, options = {}, fd4) {
  return new Promise((resolve, reject) => {
    const c = spawn(file, args, {
      stdio: fd4 ? ['ignore', 'ignore', 'ignore', 'ignore', 'pipe'] : 'ignore',
      ...options,
    });
    if (fd4) c.stdio[4].end(fd4);
    c.once('error', reject);
    c.once('close', (code) => (code === 0 ? resolve() : reject(new Error(`${file} exited ${code}`))));
  });
}

function realisticBwrap(ws) {
  const etc = ['ld.so.cache', 'passwd', 'group', 'nsswitch.conf', 'hosts', 'localtime', 'ssl', 'ca-certificates'];
  return [
    '--ro-bind',
    '/usr',
    '/usr',
    '--symlink',
    'usr/bin',
    '/bin',
    '--symlink',
    'usr/sbin',
    '/sbin',
    '--symlink',
    'usr/lib',
    '/lib',
    '--symlink',
    'usr/lib64',
    '/lib64',
    '--dir',
    '/etc',
    ...etc.flatMap((f) => ['--ro-bind-try', `/etc/${f}`, `/etc/${f}`]),
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    '--bind',
    ws,
    ws,
    '--chdir',
    ws,
    '--unshare-all',
    '--new-session',
    '--die-with-parent',
    '--cap-drop',
    'ALL',
    '--remount-ro',
    '/',
    '--clearenv',
    '--setenv',
    'PATH',
    '/usr/bin:/bin',
    '--setenv',
    'HOME',
    ws,
    '--setenv',
    'LANG',
    'C.UTF-8',
    '--setenv',
    'TMPDIR',
    '/tmp',
    '--',
    '/bin/true',
  ];
}

/** bwrap with trust's own plan for a workspace: the same mounts, flags and seccomp program. */
function samePlanBwrap(ws, sources) {
  const empty = { file: join(sources, 'empty'), dir: join(sources, 'empty.d') };
  writeFileSync(empty.file, '', { mode: 0o444 });
  mkdirSync(empty.dir, { mode: 0o555 });
  // As trust plans it for this host: a root host runs the command as 65534, with the /proc covers.
  const runAs = process.getuid?.() === 0 ? { runAs: { uid: 65534, gid: 65534 } } : {};
  const plan = planSandbox({ v: 1, capabilities: [`fs:rw:${ws}`] }, ['/bin/true'], 'linux', {
    cwd: ws,
    empty,
    ...runAs,
  });
  const arch = seccompArchOf(process.arch);
  const filter = arch ? buildSeccompFilter(arch) : undefined;
  const args = filter ? plan.args : plan.args.filter((a, i, all) => a !== '--seccomp' && all[i - 1] !== '--seccomp');
  return () => run('/usr/bin/bwrap', args, {}, filter);
}

/**
 * A repository-shaped workspace: a .git and 40 modules of 12 directories each (about a thousand
 * directories), so the per-spawn scan for nested repositories has something to walk. Its ctimes
 * are left to age past the scanner's 2 s racy window during the warm-up.
 */
function repoWorkspace(ws) {
  mkdirSync(join(ws, '.git', 'hooks'), { recursive: true });
  for (let m = 0; m < 40; m++) {
    for (let d = 0; d < 12; d++) {
      mkdirSync(join(ws, 'src', `m${m}`, `d${d}`, 'e'), { recursive: true });
      writeFileSync(join(ws, 'src', `m${m}`, `d${d}`, 'index.ts'), '');
    }
  }
  return ws;
}

async function runTrust(sb, ws) {
  const p = await sb.spawn(['/bin/true'], { cwd: ws });
  const e = await p.exit;
  if (e.code !== 0) throw new Error(`trust run exited ${e.code}`);
}

/**
 * Runs every method once per round, round-robin, so that load changes on a shared machine hit
 * all of them alike; returns the median per method in ms.
 */
async function interleaved(methods, rounds) {
  const names = Object.keys(methods);
  for (const n of names) for (let i = 0; i < WARMUP; i++) await methods[n]();
  const times = Object.fromEntries(names.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const n of names) {
      await settle();
      const t0 = process.hrtime.bigint();
      await methods[n]();
      times[n].push(Number(process.hrtime.bigint() - t0));
    }
  }
  return Object.fromEntries(names.map((n) => [n, ms(times[n].sort((a, b) => a - b))]));
}

/** Each method `rounds` times in a row, the next spawn as soon as the last ended; the median per method in ms. */
async function backToBack(methods, rounds) {
  const out = {};
  for (const [n, method] of Object.entries(methods)) {
    for (let i = 0; i < WARMUP; i++) await method();
    const times = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = process.hrtime.bigint();
      await method();
      times.push(Number(process.hrtime.bigint() - t0));
    }
    out[n] = ms(times.sort((a, b) => a - b));
  }
  return out;
}

async function startSrt(ws) {
  const { SandboxManager } = await import('@anthropic-ai/sandbox-runtime');
  await SandboxManager.initialize({
    network: { allowedDomains: [], deniedDomains: [] },
    filesystem: { denyRead: [], allowWrite: [ws], denyWrite: [] },
  });
  return {
    run: async () => {
      const cmd = await SandboxManager.wrapWithSandbox('/bin/true');
      await run('/bin/sh', ['-c', cmd], { cwd: ws });
    },
    stop: () => SandboxManager.reset(),
  };
}

export default async function suite(ctx) {
  const log = ctx?.log ?? (() => {});
  const ws = realpathSync(mkdtempSync(join(tmpdir(), 'trust-bench-sb-')));
  const planWs = realpathSync(mkdtempSync(join(tmpdir(), 'trust-bench-plan-')));
  const eachWs = realpathSync(mkdtempSync(join(tmpdir(), 'trust-bench-each-')));
  const planSources = realpathSync(mkdtempSync(join(tmpdir(), 'trust-bench-plan-src-')));
  const repoWs = repoWorkspace(realpathSync(mkdtempSync(join(tmpdir(), 'trust-bench-repo-'))));
  const rows = [];
  const closers = [];
  try {
    const noNet = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`] });
    closers.push(() => noNet.close());
    // The same policy with each run's placeholders created and removed again (the default keeps
    // them while runs follow each other): what a run after an idle pause costs.
    const eachRun = await createSandbox({ v: 1, capabilities: [`fs:rw:${eachWs}`] }, { placeholderLingerMs: 0 });
    closers.push(() => eachRun.close());
    const withHttp = await createSandbox(
      { v: 1, capabilities: [`fs:rw:${ws}`, 'http'] },
      { egress: allowHosts(['example.com']) },
    );
    closers.push(() => withHttp.close());
    const noNetCold = await createSandbox({ v: 1, capabilities: [`fs:rw:${ws}`] }, { prestart: false });
    closers.push(() => noNetCold.close());
    const httpCold = await createSandbox(
      { v: 1, capabilities: [`fs:rw:${ws}`, 'http'] },
      { egress: allowHosts(['example.com']), prestart: false },
    );
    closers.push(() => httpCold.close());
    const withSocat = await createSandbox(
      // The socat fallback can neither overlay the root nor refuse AF_UNIX to the command: accepted by name.
      { v: 1, capabilities: [`fs:rw:${ws}`, 'http'], allowDegraded: ['host-placeholders', 'open-unix-sockets'] },
      { egress: allowHosts(['example.com']), bridge: 'socat' },
    );
    closers.push(() => withSocat.close());
    const inRepo = await createSandbox({ v: 1, capabilities: [`fs:rw:${repoWs}`] });
    closers.push(() => inRepo.close());
    // Lets the repository's directories age past the scanner's racy window before measuring.
    await new Promise((ok) => setTimeout(ok, 2500));
    const methods = {
      plain: () => run('/bin/true', []),
      bwrap: () => run('/usr/bin/bwrap', realisticBwrap(ws)),
      bwrapSamePlan: samePlanBwrap(planWs, planSources),
      trustNoNet: () => runTrust(noNet, ws),
      trustHttp: () => runTrust(withHttp, ws),
      trustNoNetCold: () => runTrust(noNetCold, ws),
      trustHttpCold: () => runTrust(httpCold, ws),
      trustSocat: () => runTrust(withSocat, ws),
      trustRepo: () => runTrust(inRepo, repoWs),
      trustEachRun: () => runTrust(eachRun, eachWs),
    };
    let srtError;
    try {
      const srt = await startSrt(ws);
      closers.push(() => srt.stop());
      await srt.run();
      methods.srt = srt.run;
    } catch (e) {
      srtError = String(e?.message ?? e).split('\n')[0];
      log(`srt could not run here: ${srtError}`);
    }
    const m = await interleaved(methods, N);
    const b2b = await backToBack({ bwrap: methods.bwrap, trustHttp: methods.trustHttp }, N);
    rows.push({ measure: 'spawn /bin/true: plain', unit: 'ms', ours: m.plain, better: 'lower' });
    rows.push({
      measure: 'spawn /bin/true: raw bwrap (realistic profile)',
      unit: 'ms',
      ours: m.bwrap,
      baseline: m.plain,
      baselineName: 'plain spawn',
      better: 'lower',
    });
    rows.push({
      measure: 'spawn /bin/true: trust, no network',
      unit: 'ms',
      ours: m.trustNoNet,
      baseline: m.bwrap,
      baselineName: 'raw bwrap',
      better: 'lower',
      target: { ratio: 1.3 },
    });
    rows.push({
      measure: 'spawn /bin/true: trust, no network, placeholders made and removed every run (placeholderLingerMs: 0)',
      unit: 'ms',
      ours: m.trustEachRun,
      baseline: m.bwrap,
      baselineName: 'raw bwrap',
      better: 'lower',
    });
    rows.push({
      measure: "spawn /bin/true: raw bwrap with trust's own plan (same mounts + seccomp)",
      unit: 'ms',
      ours: m.bwrapSamePlan,
      baseline: m.bwrap,
      baselineName: 'raw bwrap',
      better: 'lower',
    });
    rows.push({
      measure: "spawn /bin/true: trust, no network vs raw bwrap with trust's plan (trust's own overhead)",
      unit: 'ms',
      ours: m.trustNoNet,
      baseline: m.bwrapSamePlan,
      baselineName: 'raw bwrap, same plan',
      better: 'lower',
    });
    rows.push({
      measure: 'spawn /bin/true: trust, no network, in a repository of ~1000 directories vs an empty workspace',
      unit: 'ms',
      ours: m.trustRepo,
      baseline: m.trustNoNet,
      baselineName: 'trust, empty workspace',
      better: 'lower',
    });
    rows.push({
      measure: 'spawn /bin/true: trust, http proxy vs no network',
      unit: 'ms',
      ours: m.trustHttp,
      baseline: m.trustNoNet,
      baselineName: 'trust, no network',
      better: 'lower',
    });
    rows.push({
      measure: 'spawn /bin/true: trust, no network, nothing prepared (prestart: false)',
      unit: 'ms',
      ours: m.trustNoNetCold,
      baseline: m.bwrap,
      baselineName: 'raw bwrap',
      better: 'lower',
    });
    rows.push({
      measure: 'spawn /bin/true: trust, http proxy, nothing prepared (prestart: false)',
      unit: 'ms',
      ours: m.trustHttpCold,
      baseline: m.trustNoNetCold,
      baselineName: 'trust, no network, nothing prepared',
      better: 'lower',
    });
    rows.push({
      measure: 'spawn /bin/true back to back (the next as soon as the last ended): trust, http proxy',
      unit: 'ms',
      ours: b2b.trustHttp,
      baseline: b2b.bwrap,
      baselineName: 'raw bwrap, back to back',
      better: 'lower',
    });
    rows.push({
      measure: 'egress bridge: C launcher vs socat fallback (trust, http)',
      unit: 'ms',
      ours: m.trustHttp,
      baseline: m.trustSocat,
      baselineName: 'socat + sh poll',
      better: 'lower',
      target: { ratio: 1 },
    });
    if (m.srt !== undefined) {
      rows.push({
        measure: 'spawn /bin/true: trust, http proxy',
        unit: 'ms',
        ours: m.trustHttp,
        baseline: m.srt,
        baselineName: 'srt 0.0.83 steady state',
        better: 'lower',
        target: { ratio: 0.33, max: 8 },
      });
      rows.push({
        measure: 'spawn /bin/true: srt 0.0.83 wrapWithSandbox + spawn',
        unit: 'ms',
        ours: m.srt,
        baseline: m.bwrap,
        baselineName: 'raw bwrap',
        better: 'lower',
      });
    } else {
      rows.push({
        measure: `spawn /bin/true: trust, http proxy (srt unavailable: ${srtError})`,
        unit: 'ms',
        ours: m.trustHttp,
        baseline: m.bwrap,
        baselineName: 'raw bwrap',
        better: 'lower',
        target: { max: 8 },
      });
    }
  } finally {
    for (const c of closers.reverse()) await Promise.resolve(c()).catch((e) => log(`close: ${e?.message ?? e}`));
    rmSync(ws, { recursive: true, force: true });
    rmSync(planWs, { recursive: true, force: true });
    rmSync(eachWs, { recursive: true, force: true });
    rmSync(planSources, { recursive: true, force: true });
    rmSync(repoWs, { recursive: true, force: true });
  }
  return rows;
}
