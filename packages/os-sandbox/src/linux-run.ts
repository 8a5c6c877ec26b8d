// A Linux run as the sandbox plans it: the host facts its plan depends on, bwrap's plan, and how
// it is started (the launcher and its arguments, bash, or bwrap itself).
import { planBwrap, linuxPathsOfInterest, type LinuxPlan, type LinuxPlanContext, type Rlimit } from './bwrap-plan.js';
import { overlayArgs } from './bwrap-protect.js';
import { createRunCgroups, type RunCgroups } from './cgroup.js';
import type { DegradedMode, SandboxPolicy } from './policy.js';
import { collectPathFactsSync, type HostFacts } from './host-facts.js';
import type { Launcher } from './launcher.js';
import type { NestedGitScanner } from './nested-git.js';
import type { createPlaceholderKeeper } from './placeholders.js';
import type { SandboxProbe } from './probe.js';
import { SENSITIVE_ROOTS } from './protected-paths.js';
import type { LaunchRequest } from './spawn-server.js';

/** Descriptors 0-4 carry stdio, the bwrap options (3) and the seccomp program (4). */
const FIRST_UNUSED_FD = 6;
/**
 * The launcher's lifeline: a pipe whose other end only the spawn server (or this process) holds (see `--lifeline`,
 * `--serve`).
 */
export const LIFELINE_FD = 5;
/**
 * Without the launcher: bash closes every inherited fd >= $1, then execs bwrap (bash, since dash
 * cannot name descriptors above 9). A constant script; bwrap and its arguments arrive as "$@".
 */
const CLOSE_FDS_SCRIPT =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion (${f##*/}), not a JS template
  'low=$1; shift; for f in /proc/$$/fd/*; do n=${f##*/}; [ "$n" -ge ' +
  '"$low" ] 2>/dev/null && eval "exec $n<&-"; done; exec "$@"';

/** The launcher's options that stage `stage` (see its --stage-root, --stage and --stage-dev). */
function rootStageArgs(stage: NonNullable<LinuxPlan['rootStage']>): string[] {
  return [
    '--stage-root',
    stage.dir,
    ...stage.ops.flatMap((op) =>
      op.kind === 'bind'
        ? ['--root-bind', op.src, op.dest]
        : op.kind === 'symlink'
          ? ['--root-symlink', op.target, op.dest]
          : ['--root-tmpfs', op.dest],
    ),
    ...(stage.etcFiles ? ['--stage', `${stage.dir}/etc`, ...stage.etcFiles.flatMap((f) => ['--stage-file', f])] : []),
    '--stage-dev',
    `${stage.dir}/dev`,
  ];
}

/** What a sandbox's Linux runs are planned from: fixed for the sandbox. */
export interface LinuxPlannerContext {
  readonly policy: SandboxPolicy;
  readonly probe: SandboxProbe;
  readonly degraded: readonly DegradedMode[];
  readonly launcher: Launcher | undefined;
  readonly fallback: { readonly socat?: string | undefined; readonly prlimit?: string | undefined } | undefined;
  readonly fallbackBash: string | undefined;
  readonly empty: { readonly file: string; readonly dir: string };
  readonly stageRoot: string;
  readonly keeper: ReturnType<typeof createPlaceholderKeeper> | undefined;
  readonly nestedGitScanner: NestedGitScanner;
  /** The host user's home directory. */
  readonly home: string | undefined;
  readonly seccompFilter: Uint8Array | undefined;
  /** Roots whose missing protected names live only in each run's overlay (see `prepareProtectedOverlay`). */
  readonly overlay: LinuxPlanContext['overlay'];
  readonly udp: boolean;
  readonly bridgeOutside: boolean;
  readonly launcherNetwork: boolean;
  readonly launcherPins: boolean;
}

/**
 * What a Linux plan depends on besides the policy and the run's slot: the host's files at every
 * path of interest (kind, device and inode), and nested repositories where this process looks
 * for them. `key` is all of it as one string: the same key, the same plan.
 */
export interface LinuxFacts {
  readonly facts: HostFacts;
  readonly nestedGit: readonly string[];
  readonly key: string;
}

/** A Linux run as planned: bwrap's plan, and what starts it (the launcher, bash or bwrap) with which arguments. */
export interface LinuxRun {
  readonly plan: LinuxPlan;
  readonly file: string;
  readonly args: readonly string[];
}

/** Which of a run's stdin, stdout and stderr are pipes. */
export type Wants = Pick<LaunchRequest, 'stdin' | 'stdout' | 'stderr'>;

/**
 * Plans a sandbox's Linux runs.
 *
 * @example
 * const linux = createLinuxPlanner(context);
 * const run = linux.plan(slot, linux.cgroups(slot.runId), { argv: ['/bin/true'], env, cwd });
 * await server.launch(linux.request(run, { stdin: false, stdout: true, stderr: true }));
 */
export function createLinuxPlanner(ctx: LinuxPlannerContext) {
  const {
    policy,
    probe,
    degraded,
    launcher,
    fallback,
    fallbackBash,
    empty,
    stageRoot,
    keeper,
    nestedGitScanner,
    seccompFilter,
  } = ctx;
  const { udp, bridgeOutside, launcherNetwork, launcherPins } = ctx;
  const caps = policy.capabilities;

  const rlimits = (): Rlimit[] => {
    const rl: Rlimit[] = [];
    // Where the run's memory cgroup holds the limit (its creation fails the run otherwise), no
    // RLIMIT_AS: address space is not memory, and runtimes that reserve large virtual regions at
    // start (Node 24's V8) cannot even start under an address-space cap of real memory's size.
    const cgroupHoldsMemory = launcher && probe.cgroups.memory !== undefined;
    if (policy.limits.memoryBytes !== undefined && !cgroupHoldsMemory) rl.push(['as', policy.limits.memoryBytes]);
    if (policy.limits.files !== undefined) rl.push(['nofile', policy.limits.files]);
    if (policy.limits.pids !== undefined) rl.push(['nproc', policy.limits.pids]);
    if (policy.limits.fileSizeBytes !== undefined) rl.push(['fsize', policy.limits.fileSizeBytes]);
    if (rl.length > 0) rl.push(['core', 0]);
    return rl;
  };
  const newCgroups = (runId: string): RunCgroups | undefined =>
    !launcher
      ? undefined
      : createRunCgroups(runId, probe.cgroups, {
          ...(policy.limits.pids !== undefined ? { pids: policy.limits.pids } : {}),
          ...(policy.limits.memoryBytes !== undefined ? { memoryBytes: policy.limits.memoryBytes } : {}),
        });

  const rwRoots = caps.fsGrants.filter((g) => g.mode === 'rw').map((g) => g.path);
  const nestedSkip = [...SENSITIVE_ROOTS, ...policy.hiddenPaths, ...(ctx.home ? [ctx.home] : [])];
  const linuxFacts = (): LinuxFacts => {
    // Where the launcher pins, it also finds nested repositories itself, while bwrap starts
    // (--nested-git); otherwise they are found here and planned as bwrap binds.
    const nestedGit = launcherPins ? [] : nestedGitScanner.scan(rwRoots, { skip: nestedSkip });
    const paths = collectPathFactsSync([...linuxPathsOfInterest(policy, ctx.home), ...nestedGit]);
    const facts = { paths, ...(ctx.home ? { home: ctx.home } : {}), bwrapDisableUserns: probe.disableUserns };
    return { facts, nestedGit, key: JSON.stringify(paths) };
  };
  const planLinuxRun = (
    slot: { readonly socketPath?: string; readonly proxyPort?: number },
    cg: RunCgroups | undefined,
    run: { argv: readonly string[]; env: Record<string, string>; cwd: string; awaitCommand?: boolean },
    { facts, nestedGit }: LinuxFacts = linuxFacts(),
  ): LinuxRun => {
    const { socketPath, proxyPort } = slot;
    const plan = planBwrap(
      policy,
      run.argv,
      {
        facts,
        env: run.env,
        cwd: run.cwd,
        empty,
        ...(launcher ? { launcher: launcher.path } : {}),
        ...(fallback
          ? {
              fallback: {
                ...(fallback.socat ? { socat: fallback.socat } : {}),
                ...(fallback.prlimit ? { prlimit: fallback.prlimit } : {}),
              },
            }
          : {}),
        ...(socketPath !== undefined && proxyPort !== undefined
          ? {
              egress: {
                socketPath,
                port: proxyPort,
                ...(udp ? { udp: true } : {}),
                ...(bridgeOutside ? { outside: true } : {}),
              },
            }
          : {}),
        rlimits: rlimits(),
        shareNetwork: degraded.includes('shared-network'),
        launcherNetwork,
        noProc: degraded.includes('no-proc'),
        seccomp: seccompFilter !== undefined,
        nestedGit,
        // The launcher pins protected paths and stages the base itself, before bwrap starts:
        // much cheaper per mount than bwrap, which re-reads the mount table each time.
        ...(launcherPins ? { pinProtected: true, stageRoot, ...(ctx.overlay ? { overlay: ctx.overlay } : {}) } : {}),
        // A root host must not hand the command uid 0 (host-root DAC rights on host-kernel files).
        ...(process.getuid?.() === 0 ? { runAs: { uid: 65534, gid: 65534 } } : {}),
        ...(run.awaitCommand ? { awaitCommand: true } : {}),
      },
      probe.bwrap!.path,
    );
    // Descriptors this process inherited without close-on-exec (e.g. `exec 200<secret` in the
    // shell that started Node) would pass through bwrap into the sandbox: everything above
    // fd 5 (stdio, --args, --seccomp, lifeline) is closed before bwrap starts.
    if (launcher) {
      // The launcher stays as a subreaper on the lifeline: if this process dies (even by
      // SIGKILL, even while bwrap is still setting up), it ends everything it started.
      const args = [
        '--close-from',
        String(FIRST_UNUSED_FD),
        '--lifeline',
        String(LIFELINE_FD),
        ...(keeper?.runArgs(rwRoots, plan.placeholders) ?? []),
        ...(plan.pins.length > 0 || plan.overlays.length > 0
          ? ['--pin-empty', empty.file, empty.dir, ...plan.pins.flatMap((p) => ['--pin', p.kind, p.path])]
          : []),
        ...overlayArgs(plan),
        ...(plan.pins.length > 0 && launcherPins && rwRoots.length > 0
          ? [...rwRoots.flatMap((r) => ['--nested-git', r]), ...nestedSkip.flatMap((p) => ['--nested-skip', p])]
          : []),
        ...(plan.rootStage ? rootStageArgs(plan.rootStage) : []),
        ...(plan.launcherNetwork
          ? [
              '--netns',
              ...plan.bridges.flatMap((b) => [
                b.type === 'udp' ? '--udp-bridge' : '--bridge',
                String(b.port),
                b.socketPath,
              ]),
            ]
          : []),
        ...(cg ? cg.procsFiles.flatMap((f) => ['--cgroup', f]) : []),
        '--',
        plan.file,
        '--args',
        '3',
        '--',
        ...plan.command,
      ];
      return { plan, file: launcher.path, args };
    }
    if (fallbackBash) {
      return {
        plan,
        file: fallbackBash,
        args: [
          '-c',
          CLOSE_FDS_SCRIPT,
          'trust-close-fds',
          String(FIRST_UNUSED_FD),
          plan.file,
          '--args',
          '3',
          '--',
          ...plan.command,
        ],
      };
    }
    return { plan, file: plan.file, args: ['--args', '3', '--', ...plan.command] };
  };
  const linuxRequest = (run: LinuxRun, wants: Wants): LaunchRequest => ({
    args: run.args,
    options: run.plan.options,
    ...(seccompFilter ? { fd4: seccompFilter } : {}),
    ...wants,
  });

  return { facts: linuxFacts, plan: planLinuxRun, request: linuxRequest, cgroups: newCgroups };
}
