import { join } from 'node:path';
import type { ModelProvider } from '@trust/agent-runtime';
import { createLocalMesh, createScriptedProvider, loadOrCreateIdentityKeys } from '@trust/agent-runtime';
import { type AuditSink, createMemoryAuditSink } from '@trust/core';
import { createJsonlAuditSink } from '@trust/core/node';
import {
  type ControlAgents,
  type ControlServer,
  createAgentOpener,
  createControlServer,
  createWorkspaceAgents,
} from './control/index.js';
import { demoAnswer, readWorkspaceTrustedKeys, type WorkspaceLayout, workspaceLayout } from './demo/demo-workspace.js';
import { agentEgressOf, mcpUnderEgress } from './egress/agent-egress.js';
import { createAuditRouter } from './egress/audit-router.js';
import { createWorkspaceEgress, type WorkspaceEgress } from './egress/workspace-egress.js';
import { createModelAgentOpener } from './model/agent-model.js';
import { openWorkspaceOptionsSchema } from './open-workspace-options.js';
import { checkWorkspaceOptions } from './options.js';
import { MAX_SANDBOX_RUNS, readSandboxRuns, sandboxRunsFile } from './sandbox-runs/sandbox-runs.js';
import { readStudioAuditLogs, readChainedLog } from './studio/studio-audit.js';
import { studioMcpOptions } from './studio/studio-mcp.js';
import { PLUGIN_EGRESS_POLICY_FILE } from './studio/studio-plugin-egress.js';
import { workspaceControlPaths } from './studio/studio-plugin-fs-guard.js';
import { createStudioPluginSession } from './studio/studio-plugin-session.js';
import { createPolicyFileStore } from './studio/studio-policy-file.js';
import { readStudioPlugins } from './studio/studio-plugins.js';
import { createStudioSandbox } from './studio/studio-sandbox.js';

/** Options of {@link openWorkspace}. */
export interface OpenWorkspaceOptions {
  /** Where API keys, granted variables and `{ "env": NAME }` header values are read. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The trust home: the sandbox run log and the launcher and component caches live there. */
  readonly home: string;
  /** The demo workspace: every agent answers with the scripted provider, whatever its config says. */
  readonly demo?: boolean;
  /** The provider of scripted agents (and of every agent in the demo). Default: the demo's scripted answers. */
  readonly scripted?: () => ModelProvider;
  /** The control port; 0 or absent: any free port. */
  readonly port?: number;
  /** The built studio the control server serves; absent: the API only. */
  readonly studioDir?: string;
  /** Let model clients reach this machine or the LAN (a local model server). Default false. */
  readonly allowLocalModel?: boolean;
  /** The egress engine's name resolver (tests: a stub answering loopback peers). Default: the system's. */
  readonly resolve?: (host: string) => Promise<string[]>;
  /** Deadline of one MCP server connection (default the runtime's). */
  readonly mcpConnectTimeoutMs?: number;
  /** Receives warnings: a refused policy file (the old one keeps running), a run not recorded. */
  readonly onWarning?: (message: string) => void;
}

/** A running workspace. */
export interface Workspace {
  readonly layout: WorkspaceLayout;
  /** The control server (127.0.0.1, token required). */
  readonly server: ControlServer;
  readonly port: number;
  readonly token: string;
  /** The studio's URL with the token in the #fragment (never sent to a server). */
  readonly url: string;
  readonly agents: ControlAgents;
  /** The one egress engine every outbound request of the workspace goes through. */
  readonly egress: WorkspaceEgress;
  /** Ends the control server, agents, MCP servers, sandbox runs, plugins and the engine, in that order. */
  close(): Promise<void>;
}

/** Where a workspace records refusals at its control server's edge (JSONL, hash-chained, 0600). */
export function controlAuditFile(root: string): string {
  return join(root, 'control-audit.jsonl');
}

/** Where a workspace records egress decisions of principals that are not an open agent. */
export function egressAuditFile(root: string): string {
  return join(root, 'egress-audit.jsonl');
}

/**
 * Opens a workspace directory (`agents/*.adf`, `plugins/`, `keys/`, `egress-policy.json`) and runs
 * it: its agents (each with the model its config names, or the scripted provider in the demo),
 * their MCP servers, plugins and sandbox runs, one egress engine compiled from
 * `egress-policy.json` (absent: the ADF default), the audit logs and the control server. Every
 * agent's `sys_fetch`, `ws_connect` and MCP server goes through the engine, each decision in that
 * agent's own log; the rest in `egress-audit.jsonl`. All of them show in `GET /audit`.
 *
 * @example
 * const ws = await openWorkspace('./my-workspace', { env: process.env, home: trustHome });
 * console.log(ws.url);
 * await ws.close();
 */
export async function openWorkspace(dir: string, options: OpenWorkspaceOptions): Promise<Workspace> {
  checkWorkspaceOptions('openWorkspace', openWorkspaceOptionsSchema, options);
  const layout = workspaceLayout(dir, options.demo === true);
  const { env, home } = options;
  const warn = options.onWarning ?? (() => {});
  const launcherCacheDir = join(home, 'cache', 'launcher');
  const runsFile = sandboxRunsFile(home);
  let controlPort: number | undefined;
  const protectedPorts = () => (controlPort === undefined ? [] : [controlPort]);
  const closers: (() => unknown)[] = [];
  const closeAll = async () => {
    for (const c of closers.splice(0).reverse()) await c();
  };
  try {
    // Refusals at the control server's edge, and plugin decisions: one hash-chained log.
    const edgeAudit = createJsonlAuditSink(controlAuditFile(layout.root));
    closers.push(() => edgeAudit.close());
    const egressFile = createJsonlAuditSink(egressAuditFile(layout.root));
    // Sandboxes of MCP servers report their exit after the agents closed; by then the log may be
    // closed too: such a late event is told to onWarning (never thrown into the sandbox's exit path).
    let egressOpen = true;
    const late = createMemoryAuditSink();
    const egressLog: AuditSink = {
      record(input) {
        if (egressOpen) return egressFile.record(input);
        warn(`an audit event arrived after the workspace closed: ${input.action} ${input.target} (${input.decision})`);
        return late.record(input);
      },
    };
    closers.push(() => {
      egressOpen = false;
      egressFile.close();
    });
    const router = createAuditRouter(egressLog);
    const policyFile = join(layout.root, PLUGIN_EGRESS_POLICY_FILE);
    const egress = createWorkspaceEgress({
      file: policyFile,
      env,
      audit: router.sink,
      protectedPorts,
      ...(options.resolve ? { resolve: options.resolve } : {}),
      onProblem: (s) =>
        warn(`the workspace egress policy was refused, the previous one keeps running: ${s.problem?.message}`),
    });
    closers.push(() => egress.close());

    const scripted =
      options.scripted ?? (() => createScriptedProvider(Array.from({ length: 10_000 }, () => demoAnswer)));
    const baseMcp = studioMcpOptions({
      env,
      launcherCacheDir,
      ...(options.mcpConnectTimeoutMs ? { connectTimeoutMs: options.mcpConnectTimeoutMs } : {}),
    });
    const mcp = (id: string) =>
      mcpUnderEgress(baseMcp(id), egress, id, router.sink, async (policy, extra) => {
        const { createSandbox } = await import('@trust/os-sandbox');
        return createSandbox(policy as never, { env, launcherCacheDir, ...extra } as never);
      });
    const agentEgress = () => agentEgressOf(egress);
    // Every agent has its identity (sealed to the workspace's keys) and messages the others over one mesh.
    const identityKeys = loadOrCreateIdentityKeys(join(layout.keys, 'identity-keys.json'));
    const mesh = createLocalMesh();
    const models = createModelAgentOpener({
      mcp,
      egress: agentEgress,
      env,
      flags: { allowLocal: options.allowLocalModel === true },
      scripted,
      protectedPorts,
      identityKeys,
      mesh,
    });
    closers.push(() => models.close());
    const base = layout.demo
      ? createAgentOpener({ provider: scripted, mcp, egress: agentEgress, identityKeys, mesh })
      : models.open;
    const agents = createWorkspaceAgents({
      dir: layout.agents,
      // Each open agent's decisions go to its own chain, found by its id or its DID.
      open: (path, id, emit) => {
        const opened = base(path, id, emit);
        const detach = [router.attach(id, opened.adf.audit)];
        // The gate names an agent by its DID, else the file's path; either finds the same chain.
        const did = opened.adf.meta.get('adf_did');
        if (did) detach.push(router.attach(did, opened.adf.audit));
        detach.push(router.attach(opened.adf.path, opened.adf.audit));
        return {
          ...opened,
          close: () => {
            for (const d of detach) d();
            opened.close();
          },
        };
      },
    });
    closers.push(() => agents.close());

    const trusted = await readWorkspaceTrustedKeys(layout);
    const sandbox = createStudioSandbox({
      runsFile,
      env,
      launcherCacheDir,
      protectedPorts,
      onRecordError: (e) => warn(`a studio sandbox run was not recorded: ${(e as Error).message}`),
    });
    closers.push(() => sandbox.close());
    const pluginSession = await createStudioPluginSession({
      pluginsDir: layout.plugins,
      trustedKeyTexts: trusted,
      audit: edgeAudit,
      env,
      cacheDir: join(home, 'cache', 'wasm'),
      egressPolicyFile: policyFile,
      protectedPorts,
      // No fs grant may reach the workspace's own files, the run log or the caches.
      controlPaths: workspaceControlPaths(layout, {
        exposed: [
          { label: 'edge audit log', path: controlAuditFile(layout.root) },
          { label: 'egress audit log', path: egressAuditFile(layout.root) },
          { label: 'state file', path: join(layout.root, '.studio.json') },
          { label: 'sandbox run log', path: runsFile },
          { label: 'trust home', path: home },
        ],
        sealed: [{ label: 'cache folder', path: join(home, 'cache') }],
      }),
    });
    closers.push(() => pluginSession.close());
    const store = createPolicyFileStore(policyFile);
    const server = await createControlServer({
      agents,
      mesh,
      pluginActions: pluginSession,
      audit: edgeAudit,
      tokenFile: layout.tokenFile,
      port: options.port ?? 0,
      ...(options.studioDir ? { studioDir: options.studioDir } : {}),
      plugins: () => readStudioPlugins(layout.plugins, trusted),
      sandboxRuns: () => readSandboxRuns(runsFile, MAX_SANDBOX_RUNS),
      // The timeline: the edge log, the workspace egress log and the sandbox runs, beside every agent's chain.
      auditLogs: async () => [
        ...(await readStudioAuditLogs(controlAuditFile(layout.root), readSandboxRuns(runsFile, MAX_SANDBOX_RUNS))),
        await readChainedLog('workspace-egress', egressAuditFile(layout.root), 'egress'),
      ],
      policyEnv: () => env,
      // A save replaces the engine's policy for the next request; a refused file is reported in the answer.
      policyFile: {
        read: () => ({ ...store.read(), engine: egress.reload() }),
        write: (text, expected) => {
          const saved = store.write(text, expected);
          return { ...saved, engine: egress.reload() };
        },
      },
      sandboxControl: sandbox,
    });
    closers.push(() => server.close());
    controlPort = server.port;
    return {
      layout,
      server,
      port: server.port,
      token: server.token,
      url: `http://127.0.0.1:${server.port}/#token=${server.token}`,
      agents,
      egress,
      close: closeAll,
    };
  } catch (e) {
    await closeAll();
    throw e;
  }
}
