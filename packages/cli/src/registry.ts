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
  { name: 'doctor', summary: 'check what this machine supports and how to fix what is missing', load: () => import('./commands/doctor.js') },
  { name: 'egress check', summary: 'explain, step by step, whether a URL may be reached', load: () => import('./commands/egress-check.js') },
  { name: 'egress fetch', summary: 'fetch a URL through the egress policy and print the audit event', unavailable: '@trust/egress (createEgressClient) has not landed' },
  { name: 'egress proxy', summary: 'run the policy proxy for third-party tools', unavailable: '@trust/egress (createEgressProxy) has not landed' },
  { name: 'package init', summary: 'create a plugin package directory with a package.toml', unavailable: '@trust/wasm-host (package format) has not landed' },
  { name: 'package build', summary: 'pack a plugin package directory into a .tpkg archive', unavailable: '@trust/wasm-host (packPackage) has not landed' },
  { name: 'package inspect', summary: 'show a package: capabilities first, signature, imports vs grants', unavailable: '@trust/wasm-host (inspectPackage) has not landed' },
  { name: 'package sign', summary: 'sign a plugin package with an Ed25519 key', unavailable: '@trust/wasm-host (signing) has not landed' },
  { name: 'package verify', summary: 'verify a package signature against trusted keys', unavailable: '@trust/wasm-host (verifyPackage) has not landed' },
  { name: 'keygen', summary: 'create an Ed25519 signing key pair for plugin packages', unavailable: '@trust/wasm-host (key files) has not landed' },
  { name: 'run', summary: 'run a plugin export under the WASM host with explicit grants', unavailable: '@trust/wasm-host (createPluginHost) has not landed' },
  { name: 'sandbox', summary: 'run a process under the OS sandbox, passing its exit code through', load: () => import('./commands/sandbox.js') },
  { name: 'agent new', summary: 'create an agent file (.adf)', unavailable: '@trust/agent-runtime (createAdf) has not landed' },
  { name: 'agent inspect', summary: 'show an agent: tool matrix, locks, triggers, code flags, review status', unavailable: '@trust/agent-runtime (openAdf) has not landed' },
  { name: 'agent chat', summary: 'chat with an agent in the terminal, with approval prompts', unavailable: '@trust/agent-runtime (openAgent) has not landed' },
  { name: 'agent approve', summary: 'approve a pending approval task', unavailable: '@trust/agent-runtime (approvals) has not landed' },
  { name: 'agent deny', summary: 'deny a pending approval task', unavailable: '@trust/agent-runtime (approvals) has not landed' },
  { name: 'audit tail', summary: 'print the last events of an audit log (JSONL or .adf)', unavailable: '@trust/core/node (readJsonlAudit) has not landed' },
  { name: 'audit verify', summary: 'verify an audit hash chain and name the first broken link', unavailable: '@trust/core (verifyChain) has not landed' },
  { name: 'studio', summary: 'start the web studio (a demo workspace on first run)', unavailable: '@trust/agent-runtime (createControlServer) has not landed' },
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
