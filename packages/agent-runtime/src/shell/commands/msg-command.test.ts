// `msg list` / `msg read` end to end: a signed message from another agent goes through ingress
// into a real .adf inbox; the receiver's adf_shell reads it through its gate and tools.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdf } from '../../adf/index.js';
import type { AdfFile } from '../../adf/adf-file.js';
import { defaultAgentConfig } from '../../config/index.js';
import { createToolRegistry } from '../../gate/tool-definition.js';
import type { ToolDefinition } from '../../gate/tool-definition.js';
import { createToolGate } from '../../gate/tool-gate.js';
import type { ToolGate } from '../../gate/tool-gate.js';
import { createIdentity } from '../../identity/did-key.js';
import { createAgentMessaging } from '../../messaging/agent-messaging.js';
import { createLocalMesh } from '../../messaging/local-mesh.js';
import { createExecutionTools } from '../../tools/built-in-tools.js';

const dirs: string[] = [];
const files: AdfFile[] = [];
afterEach(() => {
  for (const f of files.splice(0)) f.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** An agent file with adf_shell on (it is off by default) and the given tools disabled. */
function agentFile(disabled: readonly string[] = []): AdfFile {
  const dir = mkdtempSync(join(tmpdir(), 'msg-shell-'));
  dirs.push(dir);
  const base = defaultAgentConfig();
  const tools = base.tools.map((t) =>
    t.name === 'adf_shell'
      ? { ...t, enabled: true, visible: true }
      : disabled.includes(t.name)
        ? { ...t, enabled: false }
        : t,
  );
  const adf = createAdf(join(dir, 'agent.adf'), {
    template: { ...base, tools, messaging: { ...base.messaging, receive: true } },
  });
  files.push(adf);
  return adf;
}

/** The agent's gate over the registered built-in tools (as an agent has them; code and chat are not used here). */
function shellGate(adf: AdfFile): ToolGate {
  let gate: ToolGate | undefined;
  const { tools } = createExecutionTools({
    gate: () => gate!,
    runner: () => {
      throw new Error('no code runs in this test');
    },
    chat: () => ({ say: () => undefined, ask: async () => '' }),
    agentId: 'test',
  });
  gate = createToolGate({ adf, registry: createToolRegistry(tools as ToolDefinition<never>[]) });
  return gate;
}

async function deliverTo(adf: AdfFile, content: string, subject: string): Promise<string> {
  const mesh = createLocalMesh();
  const receiver = createAgentMessaging({ adf, identity: createIdentity(), mesh });
  mesh.register(receiver.did, receiver.ingest);
  const sender = createAgentMessaging({ adf: agentFile(), identity: createIdentity(), mesh });
  const { delivery } = await sender.send({ to: receiver.did, content, subject }, { kind: 'llm', id: 'sender' });
  expect(delivery.status).toBe('delivered');
  return sender.did;
}

type ShellResult = { exitCode: number; stdout: string; stderr: string };

describe('msg list / msg read in adf_shell', () => {
  it('lists the inbox and reads a message through the gate, marking it read', async () => {
    const adf = agentFile();
    const from = await deliverTo(adf, 'please run rm -rf', 'task');
    const gate = shellGate(adf);

    const script =
      'id=$(msg list --status unread --limit 5 | jq -r ".messages[0].id"); m=$(msg read "$id"); for k in ' +
      'from subject content status verified; do echo "$m" | jq -r ".$k"; done; msg list --status unread | jq ' +
      '".messages | length"';
    const r = (await gate.call('adf_shell', { command: script }, { origin: 'llm' })) as ShellResult;
    expect(r.stderr).toBe('');
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe(`${from}\ntask\nplease run rm -rf\nread\ntrue\n0\n`);
    expect(adf.inbox.list()[0]?.status).toBe('read');
  });

  it('an unknown id fails the command; a disabled msg_read is refused before it runs (126)', async () => {
    const adf = agentFile(['msg_read']);
    await deliverTo(adf, 'hello', 's');
    const gate = shellGate(adf);
    const r = (await gate.call(
      'adf_shell',
      {
        command:
          'msg list | jq ".messages | length"; msg read "$(msg list | jq -r ".messages[0].id")"; echo "status $?"',
      },
      { origin: 'llm' },
    )) as ShellResult;
    // the whole script is refused before its first command runs
    expect([r.stdout, r.exitCode]).toEqual(['', 126]);
    expect(r.stderr).toMatch(/line 1: msg: msg_read is not allowed/);
    expect(adf.inbox.list()[0]?.status).toBe('unread');

    const open = shellGate(agentFile());
    const missing = (await open.call(
      'adf_shell',
      { command: 'msg read nope; echo "status $?"' },
      { origin: 'llm' },
    )) as ShellResult;
    expect(missing.stderr).toContain('message "nope" is not in the inbox');
    expect(missing.stdout).toMatch(/status [1-9]/);
  });
});
