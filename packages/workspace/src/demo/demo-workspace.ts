import { existsSync } from 'node:fs';
import { mkdir, rename, rm, writeFile, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { ModelRequest, ModelResponse } from '@trust/agent-runtime';
import { appendSandboxRun, createEgressCollector, sandboxRunRecord } from '../sandbox-runs/sandbox-runs.js';
import { sampleComponent, sampleManifest } from './sample-plugin.js';

/** Name of the demo agent; everything about it says DEMO. */
export const DEMO_AGENT = 'demo-helper';
/** Marker file of a complete demo workspace. */
const MARKER = 'trust-demo.json';

/** Where the parts of a workspace live. */
export interface WorkspaceLayout {
  readonly root: string;
  readonly agents: string;
  readonly plugins: string;
  readonly keys: string;
  readonly sandboxPolicy: string;
  readonly tokenFile: string;
  readonly demo: boolean;
}

/** The layout of a workspace directory (agents/, plugins/, keys/, sandbox-policy.json). */
export function workspaceLayout(root: string, demo: boolean): WorkspaceLayout {
  return {
    root,
    agents: join(root, 'agents'),
    plugins: join(root, 'plugins'),
    keys: join(root, 'keys'),
    sandboxPolicy: join(root, 'sandbox-policy.json'),
    tokenFile: join(root, '.control-token'),
    demo,
  };
}

/** The sample sandbox policy of the demo: read-only data, no network, tight limits. */
export const SAMPLE_SANDBOX_POLICY = {
  v: 1,
  capabilities: ['stdout', 'stderr', 'env:LANG'],
  limits: { timeMs: 10_000, outputBytes: 65_536 },
  network: { guard: 'strict' },
} as const;

/** The sample run the demo makes under its sample policy, so the sandbox-runs view is not empty. */
export const SAMPLE_SANDBOX_ARGV = ['/bin/echo', 'hello from the sandbox'] as const;

/** Where and how the first run records its sample sandbox run. */
export interface DemoSampleRunOptions {
  /** The run log (`<TRUST_HOME>/sandbox-runs.jsonl`). */
  readonly runsFile: string;
  /** The environment the sandbox takes its base variables from. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Where the compiled sandbox launcher is cached. */
  readonly launcherCacheDir: string;
  /** Creates the sandbox; undefined = `@trust/os-sandbox` `createSandbox` (tests inject a failing one). */
  readonly createSandbox?: typeof import('@trust/os-sandbox').createSandbox;
}

/**
 * Runs `SAMPLE_SANDBOX_ARGV` under the sample policy and records it. Never throws: when the
 * sandbox is unavailable (no bubblewrap, no user namespaces) it reports the skip with the remedy.
 */
async function sampleSandboxRun(options: DemoSampleRunOptions, progress: (message: string) => void): Promise<void> {
  progress(`  sample sandbox run: ${SAMPLE_SANDBOX_ARGV.join(' ')}`);
  try {
    const os = await import('@trust/os-sandbox');
    const createSandbox = options.createSandbox ?? os.createSandbox;
    const collector = createEgressCollector((await import('@trust/core')).createMemoryAuditSink());
    const sandbox = await createSandbox(SAMPLE_SANDBOX_POLICY as never, {
      env: options.env,
      audit: collector.sink,
      launcherCacheDir: options.launcherCacheDir,
    });
    try {
      const startedAt = new Date();
      const child = await sandbox.spawn([...SAMPLE_SANDBOX_ARGV]);
      const [exit] = await Promise.all([child.exit, os.readAll(child.stdout), os.readAll(child.stderr)]);
      appendSandboxRun(
        options.runsFile,
        sandboxRunRecord({
          runId: exit.runId,
          argv: SAMPLE_SANDBOX_ARGV,
          policy: SAMPLE_SANDBOX_POLICY,
          exit,
          egress: collector.events,
          startedAt,
        }),
      );
    } finally {
      await sandbox.close();
    }
  } catch (e) {
    const err = e as { message?: string; hint?: string };
    progress(
      `  sample sandbox run skipped: ${err.message ?? String(e)} ` +
        `(${err.hint ?? 'check the sandbox with `trust doctor`'})`,
    );
  }
}

function lastUserText(request: ModelRequest): string {
  const last = request.messages.at(-1);
  if (last?.role !== 'user') return '';
  if (typeof last.content === 'string') return last.content;
  return last.content.map((b) => (b.type === 'text' ? b.text : '')).join(' ');
}

function lastToolResult(request: ModelRequest): { content: string; isError: boolean } | undefined {
  const last = request.messages.at(-1);
  if (last?.role !== 'user' || typeof last.content === 'string') return undefined;
  const r = last.content.find((b) => b.type === 'tool_result');
  return r && r.type === 'tool_result' ? { content: r.content, isError: r.isError === true } : undefined;
}

/**
 * One answer of the demo agent, a pure function of the conversation so far (no model is called).
 * To any message it proposes to save it to notes.md with fs_write, which is restricted, so the
 * owner sees an approval request; after the tool result it reports what happened.
 */
export function demoAnswer(request: ModelRequest): ModelResponse {
  const result = lastToolResult(request);
  const usage = { inputTokens: 0, outputTokens: 0 };
  if (result) {
    const text = result.isError
      ? `The write did not happen: ${result.content.slice(0, 200)}. (DEMO agent: scripted answers, no model.)`
      : 'Saved to **notes.md**. You can read it in the Files view; the approval and the ' +
        'write are in the Audit view. (DEMO agent: scripted answers, no model.)';
    return { content: [{ type: 'text', text }], stopReason: 'end_turn', usage, model: 'scripted' };
  }
  const said = lastUserText(request).slice(0, 2000);
  const n = request.messages.length;
  return {
    content: [
      {
        type: 'text',
        text:
          'I am the DEMO agent (scripted answers, no model). I would like to save your ' +
          'message to notes.md; fs_write is restricted, so you decide.',
      },
      {
        type: 'tool_use',
        id: `demo-${n}`,
        name: 'fs_write',
        input: { path: 'notes.md', mode: 'append', content: `${said}\n` },
      },
    ],
    stopReason: 'tool_use',
    usage,
    model: 'scripted',
  };
}

/**
 * Creates the demo workspace on first run (idempotent: an existing complete one is reused):
 * a DEMO agent whose fs_write is restricted, a signed sample plugin package with its key pair,
 * and a sample sandbox policy. Built in a temporary directory and renamed into place, so an
 * interrupted first run leaves nothing half-made.
 *
 * @example
 * With `sampleRun`, the first run also makes one sample sandbox run under the sample policy and
 * records it in the run log (skipped, with the remedy, when the sandbox is unavailable).
 *
 * @example
 * const layout = await ensureDemoWorkspace(join(trustHome(env), 'demo'), (m) => out.progress(m));
 */
export async function ensureDemoWorkspace(
  root: string,
  progress: (message: string) => void,
  sampleRun?: DemoSampleRunOptions,
): Promise<{ layout: WorkspaceLayout; created: boolean }> {
  const layout = workspaceLayout(root, true);
  if (existsSync(join(root, MARKER))) return { layout, created: false };
  const tmp = `${root}.tmp-${process.pid}`;
  await rm(tmp, { recursive: true, force: true });
  const t = workspaceLayout(tmp, true);
  await mkdir(t.agents, { recursive: true });
  await mkdir(t.plugins, { recursive: true });
  await mkdir(t.keys, { recursive: true });

  progress('creating the demo workspace (first run)');
  progress(`  demo agent ${DEMO_AGENT} (scripted provider, fs_write restricted)`);
  const { createAdf, defaultAgentConfig, loadOrCreateIdentityKeys, provisionAgentIdentity } = await import(
    '@trust/agent-runtime'
  );
  const config = structuredClone(defaultAgentConfig({ name: DEMO_AGENT })) as unknown as Record<string, unknown> & {
    tools: { name: string; restricted?: boolean }[];
  };
  config.tools = config.tools.map((tool) => (tool.name === 'fs_write' ? { ...tool, restricted: true } : tool));
  config.description = 'DEMO agent: answers come from a scripted provider, no model is called';
  // The agent has its identity from the start: a did:key sealed to the workspace's keys.
  const demo = createAdf(join(t.agents, `${DEMO_AGENT}.adf`), { template: config });
  try {
    provisionAgentIdentity(demo, loadOrCreateIdentityKeys(join(t.keys, 'identity-keys.json')));
  } finally {
    demo.close();
  }

  progress('  signed sample plugin package plugins/hello');
  const { formatKeyFile, generateSigningKey, readPackageDir, signPackage } = await import('@trust/wasm-host');
  const { privateKey, publicKey } = generateSigningKey();
  await writeFile(join(t.keys, 'demo-signing.key'), formatKeyFile(privateKey), { mode: 0o600 });
  await writeFile(join(t.keys, 'demo-signing.pub'), formatKeyFile(publicKey));
  const pkgDir = join(t.plugins, 'hello');
  await mkdir(pkgDir);
  await writeFile(join(pkgDir, 'package.toml'), sampleManifest('hello'));
  await writeFile(join(pkgDir, 'plugin.wasm'), sampleComponent());
  const signed = signPackage(await readPackageDir(pkgDir), privateKey);
  await writeFile(join(pkgDir, 'package.sig'), signed.signature);

  progress('  sample sandbox policy sandbox-policy.json');
  await writeFile(t.sandboxPolicy, `${JSON.stringify(SAMPLE_SANDBOX_POLICY, null, 2)}\n`);
  if (sampleRun) await sampleSandboxRun(sampleRun, progress);
  await writeFile(
    join(tmp, 'README.txt'),
    'This is the trust DEMO workspace, created by `trust studio` on first run.\n' +
      `- agents/${DEMO_AGENT}.adf: a demo agent driven by a scripted provider (no model is called).\n` +
      '- plugins/hello: a signed sample plugin (keys/demo-signing.pub verifies it).\n' +
      '- sandbox-policy.json: a sample policy for `trust sandbox --policy`.\n' +
      'Delete this directory to start over.\n',
  );
  await writeFile(
    join(tmp, MARKER),
    `${JSON.stringify({ v: 1, kind: 'trust-demo-workspace', createdAt: new Date().toISOString() })}\n`,
  );
  await rm(root, { recursive: true, force: true });
  await mkdir(join(root, '..'), { recursive: true });
  await rename(tmp, root);
  return { layout, created: true };
}

/** Reads the demo trust key, if the workspace has one. */
export async function readWorkspaceTrustedKeys(layout: WorkspaceLayout): Promise<string[]> {
  const pub = join(layout.keys, 'demo-signing.pub');
  return existsSync(pub) ? [await readFile(pub, 'utf8')] : [];
}
