// msg_send through the agent loop: the model asks to send, the gate lets it run, the message is
// signed with the agent's key and lands in the other agent's inbox through its ingress.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createAdf } from '../adf/index.js';
import type { AdfFile } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/index.js';
import { createIdentity } from '../identity/did-key.js';
import { openAgent } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';
import { createAgentMessaging } from './agent-messaging.js';
import { createLocalMesh } from './local-mesh.js';

const dirs: string[] = [];
const closers: Array<() => void> = [];
afterEach(() => {
  for (const c of closers.splice(0)) c();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function adfPath(receive: boolean): string {
  const dir = mkdtempSync(join(tmpdir(), 'trust-msgsend-'));
  dirs.push(dir);
  const base = defaultAgentConfig();
  const path = join(dir, 'agent.adf');
  createAdf(path, { template: { ...base, messaging: { ...base.messaging, receive } } }).close();
  return path;
}

describe('msg_send in the loop', () => {
  it('signs with the agent key and delivers through the mesh', async () => {
    const mesh = createLocalMesh();
    const bobPath = adfPath(true);
    const bob = openAgent(bobPath, {
      provider: createScriptedProvider([]),
      messaging: (adf: AdfFile) => createAgentMessaging({ adf, identity: createIdentity(), mesh }),
    });
    closers.push(() => bob.close());
    mesh.register(bob.messaging!.did, bob.messaging!.ingest);

    const provider = createScriptedProvider([
      {
        content: [
          {
            type: 'tool_use',
            id: 'm1',
            name: 'msg_send',
            input: { to: bob.messaging!.did, content: 'hi bob', subject: 'hello' },
          },
        ],
      },
      { content: [{ type: 'text', text: 'sent' }] },
    ]);
    const alice = openAgent(adfPath(false), {
      provider,
      messaging: (adf: AdfFile) => createAgentMessaging({ adf, identity: createIdentity(), mesh }),
    });
    closers.push(() => alice.close());
    await alice.send('say hi to bob');

    const result = provider.requests[1]!.messages.at(-1);
    expect(JSON.stringify(result)).toContain('delivered');
    expect(bob.adf.inbox.list()[0]).toMatchObject({ from: alice.messaging!.did, content: 'hi bob', subject: 'hello' });
    expect(bob.adf.inbox.list()[0]!.meta).toMatchObject({ message_verified: true });
    expect(alice.adf.outbox.list()[0]).toMatchObject({ status: 'delivered', to: bob.messaging!.did });
  });

  it('still says NOT_IMPLEMENTED when messaging is not wired', async () => {
    const provider = createScriptedProvider([
      { content: [{ type: 'tool_use', id: 'm1', name: 'msg_send', input: { to: 'did:key:z6Mkabc', content: 'x' } }] },
      { content: [{ type: 'text', text: 'ok' }] },
    ]);
    const agent = openAgent(adfPath(false), { provider });
    closers.push(() => agent.close());
    await agent.send('send it');
    expect(JSON.stringify(provider.requests[1]!.messages.at(-1))).toContain('NOT_IMPLEMENTED');
  });
});
