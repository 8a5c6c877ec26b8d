import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CommandSpec } from '../command.js';
import { integerOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { openBrowser } from '../open-browser.js';
import { trustHome } from '../trust-home.js';
import { escapeTerminal } from '../terminal-text.js';
import { assertNoLiveStudio, studioStateFile, writeStudioState } from '../studio-state.js';
import type { WorkspaceLayout } from '@trust/workspace';
import { rm } from 'node:fs/promises';

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
    const { DEMO_AGENT, ensureDemoWorkspace, openWorkspace, sandboxRunsFile, workspaceLayout } = await import(
      '@trust/workspace'
    );
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
    out.progress('starting the control server');
    // The workspace runs everything: agents, MCP servers, plugins, sandbox runs, one egress engine, the control server.
    const workspace = await openWorkspace(layout.root, {
      env: io.env,
      home: trustHome(io.env),
      demo: layout.demo,
      port,
      studioDir: dir,
      allowLocalModel: values['allow-local-model'] === true,
      onWarning: (m) => out.warn(escapeTerminal(m)),
    });
    const server = workspace.server;
    const agents = workspace.agents;
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
    await workspace.close();
    return 0;
  },
};
