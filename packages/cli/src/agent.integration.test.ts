import { afterAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, createTempHome, runCli } from './run-cli.test-helper.js';
import {
  agentChatSchema,
  agentInspectSchema,
  agentNewSchema,
  agentPendingSchema,
  agentResolveSchema,
  failureSchema,
  studioSchema,
} from './json-schemas.js';

const tmp = createTempHome();
afterAll(() => tmp.cleanup());
const cli = (args: string[], input?: string) =>
  runCli(args, { home: tmp.home, ...(input === undefined ? {} : { input }) });

describe('trust agent new / inspect / chat (built binary)', () => {
  it('new creates an agent file; restricted marks the risky tools; it never overwrites', async () => {
    const r = await cli(['agent', 'new', 'careful.adf', '--template', 'restricted', '--json']);
    expect(r.code).toBe(0);
    const doc = agentNewSchema.parse(r.json());
    expect(doc.result.restricted).toEqual(expect.arrayContaining(['fs_write', 'sys_code']));
    const again = await cli(['agent', 'new', 'careful.adf', '--json']);
    expect(again.code).toBe(1);
    expect(failureSchema.parse(again.json()).error.code).toBeTrustCode('CLI_FILE_EXISTS');
  });

  it('new gives the agent its identity at once: inspect shows the same did:key; the key file is 0600', async () => {
    const made = agentNewSchema.parse((await cli(['agent', 'new', 'ided.adf', '--json'])).json());
    expect(made.result.did).toMatch(/^did:key:z6Mk/);
    const doc = agentInspectSchema.parse((await cli(['agent', 'inspect', 'ided.adf', '--json'])).json());
    expect(doc.result.did).toBe(made.result.did);
    const human = await cli(['agent', 'inspect', 'ided.adf']);
    expect(human.stdout).toContain(`identity ${made.result.did}`);
    expect(statSync(join(tmp.home, '.trust', 'identity-keys.json')).mode & 0o777).toBe(0o600);
    // a second agent is sealed to the same keys but has its own DID
    const other = agentNewSchema.parse((await cli(['agent', 'new', 'other.adf', '--json'])).json());
    expect(other.result.did).not.toBe(made.result.did);
  });

  it('inspect shows the tool matrix, locks, code flags, audit chain and review key', async () => {
    const r = await cli(['agent', 'inspect', 'careful.adf', '--json']);
    expect(r.code).toBe(0);
    const doc = agentInspectSchema.parse(r.json());
    expect(doc.result.tools.find((t) => t.name === 'fs_write')).toMatchObject({ enabled: true, restricted: true });
    expect(doc.result.lockedFields.length).toBeGreaterThan(0);
    expect(doc.result.audit.ok).toBe(true);
    expect(doc.result.review.contentHash).toMatch(/^[0-9a-f]{64}$/);
    const human = await cli(['agent', 'inspect', 'careful.adf']);
    expect(human.stdout).toMatch(/fs_write\s+yes\s+yes\s+yes/);
    expect(
      failureSchema.parse((await cli(['agent', 'inspect', 'missing.adf', '--json'])).json()).error.code,
    ).toBeTrustCode('CLI_FILE_NOT_FOUND');
  });

  it('chat without a terminal denies every approval; the write does not happen', async () => {
    const r = await cli(['agent', 'chat', 'careful.adf', '--json'], 'remember the milk\n');
    expect(r.code).toBe(0);
    const doc = agentChatSchema.parse(r.json());
    expect(doc.result.approvals).toEqual([
      {
        tool: 'fs_write',
        args: { path: 'notes.md', mode: 'append', content: 'remember the milk\n' },
        decision: 'deny',
      },
    ]);
    expect(JSON.stringify(doc.result.turns)).toContain('did not happen');
    const human = await cli(['agent', 'chat', 'careful.adf'], 'again\n');
    expect(human.stdout).toContain('approval needed');
    // The tool and its arguments are shown once, in the prompt, not again on a line of their own.
    expect(human.stdout).toMatch(/approval needed: .*fs_write.*notes\.md/);
    expect(human.stdout).not.toMatch(/^\s+tool fs_write args/m);
    expect(human.stdout).toContain('stdin is not a terminal: denied');
  });

  it('chat with a real provider needs a model id the agent does not name', async () => {
    const r = await cli(['agent', 'chat', 'careful.adf', '--provider', 'openai', '--json']);
    expect(r.code).toBe(2);
    expect(failureSchema.parse(r.json()).error.code).toBeTrustCode('MODEL_ID_MISSING');
  });
});

describe('trust agent approve / deny against a running studio (built binary)', () => {
  it('says when no studio runs', async () => {
    const r = await cli(['agent', 'approve', '--json']);
    expect(r.code).toBe(1);
    expect(failureSchema.parse(r.json()).error.code).toBeTrustCode('STUDIO_NOT_RUNNING');
  });

  it('lists, approves and denies the demo agent tasks through the control server', async () => {
    const child: ChildProcess = spawn(process.execPath, [BIN, 'studio', '--json'], {
      cwd: tmp.home,
      env: { PATH: process.env.PATH ?? '', HOME: tmp.home, TRUST_HOME: tmp.trustHome },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const first = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout?.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (out.includes('\n')) resolve(out.split('\n')[0] as string);
        });
        child.on('exit', (c) => reject(new Error(`studio exited ${c}`)));
      });
      const { port, url } = studioSchema.parse(JSON.parse(first)).result;
      const token = url.split('#token=')[1] as string;
      const send = (text: string) =>
        fetch(`http://127.0.0.1:${port}/api/v1/agents/demo-helper/chat`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ text }),
        });
      expect((await send('first')).status).toBe(200);

      const listed = agentPendingSchema('agent approve').parse((await cli(['agent', 'approve', '--json'])).json());
      expect(listed.result.pending).toHaveLength(1);
      const id = listed.result.pending[0]?.id as string;
      const approved = await cli(['agent', 'approve', id.slice(0, 8), '--json']);
      expect(approved.code).toBe(0);
      expect(agentResolveSchema('agent approve').parse(approved.json()).result.task.status).toBe('approved');
      expect(failureSchema.parse((await cli(['agent', 'approve', id, '--json'])).json()).error.code).toBeTrustCode(
        'AGENT_TASK_NOT_FOUND',
      );

      for (let i = 0; i < 100; i++) {
        const agents = (await (
          await fetch(`http://127.0.0.1:${port}/api/v1/agents`, { headers: { authorization: `Bearer ${token}` } })
        ).json()) as { agents: { state: string }[] };
        if (agents.agents[0]?.state === 'idle') break;
        await new Promise((r) => setTimeout(r, 50));
      }
      expect((await send('second')).status).toBe(200);
      const pending = agentPendingSchema('agent deny').parse((await cli(['agent', 'deny', '--json'])).json()).result
        .pending;
      const denied = await cli(['agent', 'deny', pending[0]?.id as string, '--feedback', 'not now', '--json']);
      expect(denied.code).toBe(0);
      expect(agentResolveSchema('agent deny').parse(denied.json()).result.task.status).toBe('denied');
    } finally {
      await new Promise<void>((resolve) => {
        child.on('exit', () => resolve());
        child.kill('SIGINT');
      });
    }
    expect(failureSchema.parse((await cli(['agent', 'deny', '--json'])).json()).error.code).toBeTrustCode(
      'STUDIO_NOT_RUNNING',
    );
  });
});
