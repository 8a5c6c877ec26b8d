import type { CommandSpec } from '../command.js';
import { integerOption, listOption, stringOption } from '../args.js';
import { readInputFile, parseJsonFile } from '../read-input-file.js';
import { loadEgressPolicyFile } from '../egress-policy-file.js';
import { trustHome } from '../trust-home.js';
import { escapeTerminal } from '../terminal-text.js';
import { CliError, usageError } from '../cli-error.js';
import { join, resolve } from 'node:path';
import { checkCapabilityFlag } from '../flag-values.js';
import { didYouMean } from '../did-you-mean.js';

const SIGNALS: Record<string, number> = {
  SIGHUP: 1,
  SIGINT: 2,
  SIGQUIT: 3,
  SIGKILL: 9,
  SIGSEGV: 11,
  SIGPIPE: 13,
  SIGALRM: 14,
  SIGTERM: 15,
};

/** Exit code of the sandboxed run as a shell would report it. */
export function passthroughCode(exit: { code: number | null; signal: string | null; timedOut: boolean }): number {
  if (exit.timedOut) return 124;
  if (exit.code !== null) return exit.code;
  return 128 + (SIGNALS[exit.signal ?? ''] ?? 9);
}

export const command: CommandSpec = {
  name: 'sandbox',
  summary: 'run a process under the OS sandbox, passing its exit code through',
  description:
    'Runs argv under bubblewrap (Linux) or seatbelt (macOS) with nothing but the capabilities you grant:\n' +
    'no network, no $HOME, a private /tmp and a scrubbed environment. stdout and stderr are granted by\n' +
    'default (pass --cap stdin to pipe your stdin in). http/tcp/udp need an egress policy file (--egress):\n' +
    'every request goes through a per-run proxy that judges it. network reaches any public host through\n' +
    'that proxy, under a strict address floor. On a terminal, the process output is\n' +
    'escaped (no control sequences); use --raw to pass it through unchanged.',
  positionals: [],
  passthrough: {
    name: 'argv',
    description: 'the program and its arguments (no shell: use sh -c yourself if you need one)',
  },
  options: {
    cap: {
      type: 'string',
      multiple: true,
      valueName: 'capability',
      description: 'grant a capability: env:NAME, fs:ro:<dir>, fs:rw:<dir>, stdin, http, tcp, … (repeatable)',
    },
    policy: {
      type: 'string',
      valueName: 'file',
      description: 'a sandbox policy file (JSON, v: 1: capabilities, limits, allowDegraded, …); --cap adds to it',
    },
    egress: { type: 'string', valueName: 'file', description: 'the egress policy file that judges http/tcp requests' },
    timeout: {
      type: 'string',
      valueName: 'seconds',
      description: 'wall-clock limit; the whole process tree is killed (exit 124)',
    },
    cwd: { type: 'string', valueName: 'dir', description: 'working directory inside the sandbox (must be granted)' },
    'allow-degraded': {
      type: 'string',
      multiple: true,
      valueName: 'mode',
      description: 'accept a weaker mode by name (shared-network, no-proc, …); otherwise fail closed',
    },
    raw: { type: 'boolean', description: 'pass the process output through unescaped even on a terminal' },
  },
  examples: [
    { command: 'trust sandbox -- ls /', explain: 'list what the sandbox sees of the file system' },
    {
      command: 'trust sandbox --cap fs:rw:$PWD -- sh -c "echo hi > out.txt"',
      explain: 'let a command write in the current directory only',
    },
    {
      command: 'trust sandbox --cap env:LANG -- env',
      explain: 'the environment is scrubbed; only granted variables pass',
    },
    {
      command: 'trust sandbox --cap http --egress policy.json -- curl https://api.example.com/',
      explain: 'network only through the egress policy',
    },
    {
      command: 'trust sandbox --timeout 5 -- sleep 60; echo $?',
      explain: 'a timeout kills the tree; the exit code is 124',
    },
  ],
  jsonShape:
    '{ "runId": string, "code": number|null, "signal": string|null, "timedOut": boolean, ' +
    '"truncated": boolean, "durationMs": number, "degraded": string[], "violations": [{ ' +
    '"kind", "action", "target", "code"? }], "stdout": string, "stderr": string }',
  exitCodes: [
    'N the exit code of the sandboxed process (124 on timeout, 128+signal when killed)',
    '1 the sandbox could not start (the error says why and how to fix it)',
  ],
  async run({ io, out, values, rest }) {
    await checkCapabilityFlag('cap', listOption(values, 'cap'));
    const { createSandbox, sandboxPolicySchema, DEGRADED_MODES } = await import('@trust/os-sandbox');
    const { appendSandboxRun, checkSandboxPolicy, createEgressCollector, sandboxRunRecord, sandboxRunsFile } =
      await import('@trust/workspace');
    for (const mode of listOption(values, 'allow-degraded')) {
      const s = didYouMean(mode, DEGRADED_MODES);
      if (!(DEGRADED_MODES as readonly string[]).includes(mode)) {
        throw usageError(
          'CLI_USAGE_INVALID_VALUE',
          `--allow-degraded '${mode}' is not a degraded mode; the modes are ${DEGRADED_MODES.join(', ')}`,
          s ? `did you mean '${s}'?` : `for example --allow-degraded ${DEGRADED_MODES[0]}`,
        );
      }
    }
    const policyPath = stringOption(values, 'policy');
    let base: Record<string, unknown> = { v: 1 };
    if (policyPath) {
      const doc = parseJsonFile(
        await readInputFile(io.cwd, policyPath, 'sandbox policy file'),
        policyPath,
        'sandbox policy file',
      );
      if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
        throw new CliError('SANDBOX_POLICY_INVALID', `sandbox policy file ${policyPath} must hold a JSON object`, {
          hint: 'for example {"v":1,"capabilities":["stdout"]}',
        });
      }
      base = doc as Record<string, unknown>;
      // The egress policy file goes to --egress here (--policy is the sandbox's own policy).
      const egressKey = ['http', 'tcp', 'udp', 'guard'].find((k) => k in base);
      if (egressKey !== undefined)
        throw usageError(
          'CLI_USAGE_INVALID_VALUE',
          `${policyPath} looks like an egress policy (it has "${egressKey}"), not a sandbox policy`,
          `did you mean --egress ${policyPath}? --policy takes a sandbox policy such as ` +
            '{"v":1,"capabilities":["stdout"]}',
        );
    }
    const seconds = integerOption(values, 'timeout', { min: 1, max: 86_400, example: 30 });
    const baseCaps = Array.isArray(base.capabilities) ? (base.capabilities as unknown[]) : [];
    const caps = [...new Set([...baseCaps.map(String), 'stdout', 'stderr', ...listOption(values, 'cap')])];
    const degraded = [
      ...(Array.isArray(base.allowDegraded) ? (base.allowDegraded as string[]) : []),
      ...listOption(values, 'allow-degraded'),
    ];
    const limits = {
      ...(typeof base.limits === 'object' && base.limits !== null ? (base.limits as Record<string, unknown>) : {}),
    };
    if (seconds !== undefined) limits.timeMs = seconds * 1000;
    const policy = { ...base, capabilities: caps, allowDegraded: degraded, limits };
    checkSandboxPolicy(sandboxPolicySchema as never, policy, policyPath ?? '(from the flags)');
    const egressPath = stringOption(values, 'egress');
    const egress = egressPath ? await loadEgressPolicyFile(io.cwd, egressPath, io.env) : undefined;
    if (!egress && caps.some((c) => c === 'http' || c === 'tcp')) {
      throw usageError(
        'CLI_USAGE_MISSING_OPTION',
        'the http/tcp capability needs --egress <policy file> to judge destinations',
        'write a policy such as {"v":1,"http":{"allow":["api.example.com"]}} and pass --egress policy.json',
      );
    }
    const wantsStdin = caps.includes('stdin');
    out.progress(`starting the sandbox (${caps.join(', ')})`);
    const collector = createEgressCollector((await import('@trust/core')).createMemoryAuditSink());
    const sandbox = await createSandbox(policy as never, {
      env: io.env,
      audit: collector.sink,
      launcherCacheDir: join(trustHome(io.env), 'cache', 'launcher'),
      ...(egress ? { egress: egress.policy, guard: egress.guard as never } : {}),
    });
    try {
      const cwd = stringOption(values, 'cwd');
      const startedAt = new Date();
      const child = await sandbox.spawn([...rest], {
        ...(cwd ? { cwd: resolve(io.cwd, cwd) } : {}),
        ...(wantsStdin ? { stdin: io.stdin as never } : {}),
        signal: io.signal,
      });
      const escapeOutput = !values.raw && !out.json;
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8');
      child.stderr.setEncoding('utf8');
      child.stdout.on('data', (d: string) => {
        if (out.json) stdout += d;
        else io.stdout.write(escapeOutput && io.stdout.isTTY ? escapeTerminal(d, { multiline: true }) : d);
      });
      child.stderr.on('data', (d: string) => {
        if (out.json) stderr += d;
        else io.stderr.write(escapeOutput && io.stderr.isTTY ? escapeTerminal(d, { multiline: true }) : d);
      });
      const exit = await child.exit;
      // Every run goes to <TRUST_HOME>/sandbox-runs.jsonl, which the studio's sandbox-runs view reads.
      try {
        appendSandboxRun(
          sandboxRunsFile(trustHome(io.env)),
          sandboxRunRecord({
            runId: exit.runId,
            argv: rest,
            policy,
            exit,
            egress: collector.events,
            // The policy document it ran under, so the studio links each denial to its rule.
            egressPolicy: (await import('@trust/workspace')).recordEgressPolicy(egress?.document ?? null),
            startedAt,
          }),
        );
      } catch (e) {
        out.warn(`the run was not recorded for the studio: ${escapeTerminal((e as Error).message)}`);
      }
      out.result({
        runId: exit.runId,
        code: exit.code,
        signal: exit.signal,
        timedOut: exit.timedOut,
        truncated: exit.truncated,
        durationMs: exit.durationMs,
        degraded: [...sandbox.degraded],
        violations: exit.violations.map((v) => ({ ...v })),
        stdout,
        stderr,
      });
      if (!out.json) {
        for (const v of exit.violations)
          out.warn(`denied ${escapeTerminal(v.action)} ${escapeTerminal(v.target)}${v.code ? ` (${v.code})` : ''}`);
        if (exit.timedOut) out.warn(`the run hit the ${seconds ?? 60} s time limit and was killed (exit 124)`);
        if (exit.truncated) out.warn('output went over the cap and was cut');
      }
      return passthroughCode(exit);
    } finally {
      await sandbox.close();
    }
  },
};
