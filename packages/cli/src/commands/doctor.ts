import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { dirname } from 'node:path';
import type { CommandSpec } from '../command.js';
import {
  checkBubblewrap,
  checkChromium,
  checkLandlock,
  checkLauncherTools,
  checkNode,
  findCheckout,
  checkSeatbelt,
  checkSeccomp,
  checkSqlite,
  createProbeEnv,
  type DoctorCheck,
} from '../doctor-checks.js';
import { escapeTerminal } from '../terminal-text.js';

function sqlitePath(): string | undefined {
  try {
    const runtime = fileURLToPath(import.meta.resolve('@trust/agent-runtime'));
    return createRequire(runtime).resolve('better-sqlite3');
  } catch {
    return undefined;
  }
}

export const command: CommandSpec = {
  name: 'doctor',
  summary: 'check what this machine supports and how to fix what is missing',
  description:
    'Checks Node.js, bubblewrap with user and network namespaces, seccomp, a C compiler for the sandbox\n' +
    'launcher (or its socat/prlimit fallback) (Linux), seatbelt (macOS), Chromium (for the studio browser\n' +
    'tests) and the SQLite native module. Landlock is shown for information: trust does not apply it.\n' +
    'Every item that is missing comes with the command that fixes it (for a source checkout, its scripts).',
  positionals: [],
  options: {
    strict: {
      type: 'boolean',
      description: 'exit 1 when anything is missing or degraded, not only when Node is too old',
    },
  },
  examples: [
    { command: 'trust doctor', explain: 'what works here, and how to fix the rest' },
    {
      command: 'trust doctor --json | jq \'.result.checks[] | select(.status != "ok")\'',
      explain: 'only the problems, for a script',
    },
    { command: 'trust doctor --strict', explain: 'fail CI when the machine cannot run every test' },
  ],
  jsonShape:
    '{ "platform": string, "ok": boolean, "checks": [{ "id", "label", "status": ' +
    '"ok"|"missing"|"degraded"|"unknown"|"skipped", "detail", "remedy"? }] }',
  exitCodes: ['1 Node.js is too old (with --strict: anything missing or degraded)'],
  async run({ io, out, values }) {
    const probe = createProbeEnv(io.env, sqlitePath, findCheckout(dirname(fileURLToPath(import.meta.url))));
    out.progress('checking Node.js, bubblewrap, seccomp, the sandbox launcher tools, seatbelt, Chromium and SQLite');
    const checks: DoctorCheck[] = [
      checkNode(probe.nodeVersion),
      ...(await checkBubblewrap(probe)),
      await checkSeccomp(probe),
      await checkLandlock(probe),
      ...(await checkLauncherTools(probe)),
      await checkSeatbelt(probe),
      await checkChromium(probe),
      await checkSqlite(probe),
    ];
    const problems = checks.filter((c) => c.status === 'missing' || c.status === 'degraded' || c.status === 'unknown');
    const nodeOk = checks[0]?.status === 'ok';
    const ok = nodeOk && problems.every((c) => c.status !== 'missing');
    out.result({ platform: probe.platform, ok, checks });
    const s = out.style;
    const mark = (c: DoctorCheck) =>
      c.status === 'ok'
        ? s.green('✓')
        : c.status === 'skipped'
          ? s.dim('-')
          : c.status === 'missing'
            ? s.red('✗')
            : s.yellow('!');
    const width = Math.max(...checks.map((c) => c.label.length)) + 2;
    out.line(s.bold(`trust doctor (${probe.platform})`));
    for (const c of checks) {
      out.line(`  ${mark(c)} ${c.label.padEnd(width)}${escapeTerminal(c.detail)}`);
      if (c.remedy && c.status !== 'ok' && c.status !== 'skipped')
        out.line(`      ${s.cyan('fix')}: ${escapeTerminal(c.remedy)}`);
    }
    out.line();
    out.line(
      problems.length === 0
        ? s.green('everything trust uses is available')
        : `${problems.length} item(s) need ` +
            `attention; ${ok ? 'the commands that do not need them work' : 'see the fixes above'}`,
    );
    if (!nodeOk) return 1;
    if (values.strict === true && problems.length > 0) return 1;
    return 0;
  },
};
