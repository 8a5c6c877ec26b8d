import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandSpec } from '../command.js';
import { integerOption } from '../args.js';
import { CliError } from '../cli-error.js';
import {
  DEMO_AGENT,
  demoAnswer,
  ensureDemoWorkspace,
  readWorkspaceTrustedKeys,
  type WorkspaceLayout,
  workspaceLayout,
} from '../demo-workspace.js';
import { openBrowser } from '../open-browser.js';
import { readStudioPlugins } from '../studio-plugins.js';
import { readStudioAuditLogs } from '../studio-audit.js';
import { trustHome } from '../trust-home.js';
import { escapeTerminal } from '../terminal-text.js';
import { assertNoLiveStudio, studioStateFile, writeStudioState } from '../studio-state.js';
import { rm } from 'node:fs/promises';
import { MAX_SANDBOX_RUNS, readSandboxRuns, sandboxRunsFile } from '../sandbox-runs.js';

/** Where `trust studio` records refusals at its control server's edge (JSONL, hash-chained, 0600). */
export function controlAuditFile(workspace: string): string {
  return join(workspace, 'control-audit.jsonl');
}

/** The built studio shipped inside the CLI (dist/studio), next to the bundled entry. */
export function studioDir(): string {
  return join(dirname(fileURLToPath(import.meta.url)), 'studio');
}

export const command: CommandSpec = {
  name: 'studio',
  summary: 'start the web studio (a demo workspace on first run)',
  description:
    'Starts the control server on 127.0.0.1 (a bearer token is always required) and serves the studio.\n' +
    'The URL it prints carries the token in the #fragment, which the browser never sends to a server.\n' +
    'Without a workspace it opens the DEMO workspace in $TRUST_HOME/demo (default ~/.trust/demo),\n' +
    'creating it on first run: a demo agent driven by a scripted provider (no model is called; it asks\n' +
    'for the restricted fs_write, so you can approve or deny it), a signed sample plugin and a sample\n' +
    'sandbox policy. With a workspace directory, each of its agents/*.adf runs with the provider its\n' +
    'config names (model.provider, model_id, base_url, api_key_env): the API key is read from the\n' +
    'environment (model.api_key_env, else OPENAI_API_KEY / ANTHROPIC_API_KEY) and injected at egress,\n' +
    'never given to the model or the agent. An agent whose model cannot be set up (no key, no model\n' +
    'id) is still listed; its chat answers the reason and the fix. A model server on this machine or\n' +
    'your LAN needs --allow-local-model. A plugin granted http, tcp or udp in the studio runs under the\n' +
    "workspace's egress-policy.json (the --policy format of `trust egress`); without it such grants are refused.\n" +
    'Ctrl-C stops it.',
  positionals: [
    {
      name: 'workspace',
      description: 'a workspace directory with agents/*.adf (default: the demo workspace)',
      required: false,
    },
  ],
  options: {
    port: {
      type: 'string',
      short: 'p',
      valueName: 'port',
      description: 'port on 127.0.0.1 (default 0: any free port)',
    },
    open: { type: 'boolean', description: 'open the studio in your browser' },
    'allow-local-model': {
      type: 'boolean',
      description: 'let model clients reach this machine or your LAN (a local model server); off by default',
    },
  },
  examples: [
    { command: 'trust studio --open', explain: 'the demo workspace, in your browser' },
    { command: 'trust studio --port 7385', explain: 'a fixed port' },
    {
      command: 'trust studio ./my-workspace',
      explain: 'your own agents (agents/*.adf), each with the model its config names',
    },
    {
      command: 'OPENAI_API_KEY=local trust studio ./my-workspace --allow-local-model',
      explain: 'agents whose base_url is a model server on this machine',
    },
    {
      command: 'trust studio --json | head -1 | jq -r .result.url',
      explain: 'the URL with its token, for a script (the server keeps running)',
    },
  ],
  jsonShape:
    '{ "url": string, "port": number, "workspace": string, "demo": boolean, "created": boolean, "agents": string[] }' +
    '  (printed once the server listens; it runs until interrupted)',
  async run({ io, out, values, positionals }) {
    const port = integerOption(values, 'port', { min: 0, max: 65535 }) ?? 0;
    const dir = studioDir();
    if (!existsSync(join(dir, 'index.html'))) {
      throw new CliError('STUDIO_NOT_BUILT', `the studio files are missing (${dir}/index.html)`, {
        hint: 'rebuild the CLI: pnpm turbo run build --filter=@trust/cli (it copies the built studio into dist/studio)',
      });
    }
    const given = positionals[0];
    let layout: WorkspaceLayout;
    let created = false;
    if (given === undefined) {
      const home = trustHome(io.env);
      const demo = await ensureDemoWorkspace(join(home, 'demo'), (m) => out.progress(m), {
        runsFile: sandboxRunsFile(home),
        env: io.env,
        launcherCacheDir: join(home, 'cache', 'launcher'),
      });
      layout = demo.layout;
      created = demo.created;
    } else {
      const root = resolve(io.cwd, given);
      if (!existsSync(root))
        throw new CliError('CLI_FILE_NOT_FOUND', `workspace ${root} does not exist`, {
          hint:
            'create it with an agents/ folder (trust agent new agents/name.adf), ' +
            'or run `trust studio` for the demo',
        });
      layout = workspaceLayout(root, false);
    }
    // A state file is believed only if its studio is alive and answers; a stale one is replaced.
    await assertNoLiveStudio(layout.root);
    const { createAgentOpener, createControlServer, createScriptedProvider, createWorkspaceAgents } = await import(
      '@trust/agent-runtime'
    );
    out.progress('starting the control server');
    const scripted = () => createScriptedProvider(Array.from({ length: 10_000 }, () => demoAnswer));
    // Read when an agent is first opened, which happens once the server listens.
    let controlPort: number | undefined;
    const { createModelAgentOpener } = await import('../agent-model.js');
    // Started agents connect their MCP servers, each stdio server in its own OS sandbox.
    const mcp = (await import('../studio-mcp.js')).studioMcpOptions({
      env: io.env,
      launcherCacheDir: join(trustHome(io.env), 'cache', 'launcher'),
    });
    const models = createModelAgentOpener({
      mcp,
      env: io.env,
      flags: { allowLocal: values['allow-local-model'] === true },
      scripted,
      protectedPorts: () => (controlPort === undefined ? [] : [controlPort]),
    });
    const agents = createWorkspaceAgents({
      dir: layout.agents,
      // The demo keeps its scripted provider whatever its config says; a workspace's agents get the provider they name.
      open: layout.demo ? createAgentOpener({ provider: scripted, mcp }) : models.open,
    });
    const trusted = await readWorkspaceTrustedKeys(layout);
    // Refusals at the control server's edge (a body nested too deep, a connection over the cap).
    const edgeAudit = (await import('@trust/core/node')).createJsonlAuditSink(controlAuditFile(layout.root));
    // Runs started from the studio, each under the OS sandbox and recorded in the run log like `trust sandbox`.
    const sandbox = (await import('../studio-sandbox.js')).createStudioSandbox({
      runsFile: sandboxRunsFile(trustHome(io.env)),
      env: io.env,
      launcherCacheDir: join(trustHome(io.env), 'cache', 'launcher'),
      // A run allowed to reach loopback still cannot reach the control API that started it.
      protectedPorts: () => (controlPort === undefined ? [] : [controlPort]),
      onRecordError: (e) => out.warn(`a studio sandbox run was not recorded: ${escapeTerminal((e as Error).message)}`),
    });
    // Plugin actions (load with narrowed grants, call, unload, upload) run here, each plugin in its own worker;
    // their decisions (plugin.grant, plugin.load, egress.*) join the same hash-chained log, so the timeline shows them.
    // A plugin granted http/tcp/udp runs under the owner's policy in <workspace>/egress-policy.json, read at
    // each load (none: such grants are refused); it never reaches this control server's port.
    const { createStudioPluginSession } = await import('../studio-plugin-session.js');
    const { PLUGIN_EGRESS_POLICY_FILE } = await import('../studio-plugin-egress.js');
    const { workspaceControlPaths } = await import('../studio-plugin-fs-guard.js');
    const pluginSession = await createStudioPluginSession({
      pluginsDir: layout.plugins,
      trustedKeyTexts: trusted,
      audit: edgeAudit,
      env: io.env,
      cacheDir: join(trustHome(io.env), 'cache', 'wasm'),
      egressPolicyFile: join(layout.root, PLUGIN_EGRESS_POLICY_FILE),
      protectedPorts: () => (controlPort === undefined ? [] : [controlPort]),
      // No fs grant may reach the studio's own files: the workspace root, its policies, token, keys,
      // plugins and agents, the edge log and state file, the run log and caches in the trust home.
      controlPaths: workspaceControlPaths(layout, {
        exposed: [
          { label: 'edge audit log', path: controlAuditFile(layout.root) },
          { label: 'state file', path: studioStateFile(layout.root) },
          { label: 'sandbox run log', path: sandboxRunsFile(trustHome(io.env)) },
          { label: 'trust home', path: trustHome(io.env) },
        ],
        sealed: [{ label: 'cache folder', path: join(trustHome(io.env), 'cache') }],
      }),
    });
    const server = await createControlServer({
      agents,
      pluginActions: pluginSession,
      audit: edgeAudit,
      tokenFile: layout.tokenFile,
      port,
      studioDir: dir,
      plugins: () => readStudioPlugins(layout.plugins, trusted),
      // `trust sandbox` records every run in <TRUST_HOME>/sandbox-runs.jsonl; newest first, corrupt lines skipped.
      sandboxRuns: () => readSandboxRuns(sandboxRunsFile(trustHome(io.env)), MAX_SANDBOX_RUNS),
      // The audit timeline: the edge log (hash-chained, verified) and the sandbox runs, beside every agent's chain.
      auditLogs: () =>
        readStudioAuditLogs(
          controlAuditFile(layout.root),
          readSandboxRuns(sandboxRunsFile(trustHome(io.env)), MAX_SANDBOX_RUNS),
        ),
      // The policy editor's check resolves { "env": NAME } headers like `trust egress check --policy`
      // (values never leave the server).
      policyEnv: () => io.env,
      // The policy editor opens and saves the plugins' egress policy file (validated, hash-checked saves).
      policyFile: (await import('../studio-policy-file.js')).createPolicyFileStore(
        join(layout.root, PLUGIN_EGRESS_POLICY_FILE),
      ),
      sandboxControl: sandbox,
    });
    controlPort = server.port;
    const url = `http://127.0.0.1:${server.port}/#token=${server.token}`;
    // `trust agent approve|deny` find the running studio through this file (the token stays in .control-token).
    writeStudioState(layout.root, { port: server.port, pid: process.pid });
    const ids = (await agents.list()).map((a) => a.id);
    out.result({ url, port: server.port, workspace: layout.root, demo: layout.demo, created, agents: ids });
    const s = out.style;
    out.line(
      `${s.green('trust studio')} is running` +
        `${layout.demo ? ` with the ${s.yellow('DEMO')} workspace` : ''}: ${escapeTerminal(layout.root)}`,
    );
    out.line(`  open ${s.bold(url)}`);
    out.line(s.dim('  the token is in the #fragment: it stays in your browser and is never sent in a request line'));
    if (layout.demo) out.line(s.dim(`  try: send a message to ${DEMO_AGENT}, then approve its fs_write in Approvals`));
    out.line('  press Ctrl-C to stop');
    if (values.open === true && !(await openBrowser(url, io.platform)))
      out.warn('could not start a browser; open the URL above yourself');
    await new Promise<void>((done) => io.signal.addEventListener('abort', () => done(), { once: true }));
    out.progress('stopping the studio');
    await rm(studioStateFile(layout.root), { force: true });
    await server.close();
    await sandbox.close();
    await pluginSession.close();
    edgeAudit.close();
    agents.close();
    await models.close();
    return 0;
  },
};
