import type { CommandModule } from './command.js';

/**
 * One entry of the command table. Only this table is loaded for `trust --help`; a command's
 * module (and the packages it needs) is imported when that command runs.
 */
export interface CommandEntry {
  /** The words after `trust`, e.g. `egress check`. */
  readonly name: string;
  readonly summary: string;
  /** Loads the command. Absent when the command is not available yet. */
  readonly load?: () => Promise<CommandModule>;
  /** Why the command is not available yet (set exactly when `load` is absent). */
  readonly unavailable?: string;
}

/** Every command, in help order. */
export const COMMANDS: readonly CommandEntry[] = Object.freeze([
  {
    name: 'doctor',
    summary: 'check what this machine supports and how to fix what is missing',
    load: () => import('./commands/doctor.js'),
  },
  {
    name: 'egress check',
    summary: 'explain, step by step, whether a URL may be reached',
    load: () => import('./commands/egress-check.js'),
  },
  {
    name: 'egress fetch',
    summary: 'fetch a URL through the egress policy and print the audit event',
    load: () => import('./commands/egress-fetch.js'),
  },
  {
    name: 'egress proxy',
    summary: 'run the policy proxy for third-party tools',
    load: () => import('./commands/egress-proxy.js'),
  },
  {
    name: 'package init',
    summary: 'create a plugin package directory with a package.toml',
    load: () => import('./commands/package-init.js'),
  },
  {
    name: 'package build',
    summary: 'pack a plugin package directory into a .tpkg archive',
    load: () => import('./commands/package-build.js'),
  },
  {
    name: 'package inspect',
    summary: 'show a package: capabilities first, signature, imports vs grants',
    load: () => import('./commands/package-inspect.js'),
  },
  {
    name: 'package sign',
    summary: 'sign a plugin package with an Ed25519 key',
    load: () => import('./commands/package-sign.js'),
  },
  {
    name: 'package verify',
    summary: 'verify a package signature against trusted keys',
    load: () => import('./commands/package-verify.js'),
  },
  {
    name: 'keygen',
    summary: 'create an Ed25519 signing key pair for plugin packages',
    load: () => import('./commands/keygen.js'),
  },
  {
    name: 'run',
    summary: 'run a plugin export under the WASM host with explicit grants',
    load: () => import('./commands/run.js'),
  },
  {
    name: 'sandbox',
    summary: 'run a process under the OS sandbox, passing its exit code through',
    load: () => import('./commands/sandbox.js'),
  },
  { name: 'agent new', summary: 'create an agent file (.adf)', load: () => import('./commands/agent-new.js') },
  {
    name: 'agent inspect',
    summary: 'show an agent: tool matrix, locks, restricted tools, triggers, code flags, review status',
    load: () => import('./commands/agent-inspect.js'),
  },
  {
    name: 'agent review',
    summary: 'review what an agent file can do before it may run; --accept makes it yours',
    load: () => import('./commands/agent-review.js'),
  },
  {
    name: 'agent chat',
    summary: 'chat with an agent in the terminal, with approval prompts',
    load: () => import('./commands/agent-chat.js'),
  },
  {
    name: 'agent approve',
    summary: 'approve a pending approval task',
    load: () => import('./commands/agent-approve.js'),
  },
  { name: 'agent deny', summary: 'deny a pending approval task', load: () => import('./commands/agent-deny.js') },
  {
    name: 'audit tail',
    summary: 'print the last events of an audit log (JSONL or .adf)',
    load: () => import('./commands/audit-tail.js'),
  },
  {
    name: 'audit verify',
    summary: 'verify an audit hash chain and name the first broken link',
    load: () => import('./commands/audit-verify.js'),
  },
  {
    name: 'studio',
    summary: 'start the web studio (a demo workspace on first run)',
    load: () => import('./commands/studio.js'),
  },
] satisfies CommandEntry[]);

/** The command groups (`egress`, `package`, `agent`, `audit`) and their subcommands. */
export function groupsOf(entries: readonly CommandEntry[]): Map<string, CommandEntry[]> {
  const groups = new Map<string, CommandEntry[]>();
  for (const e of entries) {
    const space = e.name.indexOf(' ');
    if (space < 0) continue;
    const g = e.name.slice(0, space);
    groups.set(g, [...(groups.get(g) ?? []), e]);
  }
  return groups;
}
