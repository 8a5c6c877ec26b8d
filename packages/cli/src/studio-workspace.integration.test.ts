import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BIN, createTempHome, runCli } from './run-cli.test-helper.js';
import { studioSchema } from './json-schemas.js';
import { startModelPeer, type ModelPeer } from './model-peer.test-helper.js';

/** The parts of a control API answer these tests read. */
interface ApiBody {
  readonly chain?: { readonly ok: boolean };
  readonly agents?: { id: string }[];
  readonly error?: { readonly code: string; readonly message: string; readonly hint?: string };
}

// `trust studio <own workspace>`: each agent gets the provider its config names, the key
// injected at egress; an agent whose model cannot be set up is listed and its chat explains why.
const KEY = 'sk-studio-peer-9191';
const tmp = createTempHome();
const ws = join(tmp.home, 'ws');
let peer: ModelPeer;

async function newAgent(name: string, model: Record<string, unknown> | undefined) {
  const template = join(tmp.home, `${name}.json`);
  writeFileSync(template, JSON.stringify({ v: 1, ...(model ? { model } : {}) }));
  expect(
    (await runCli(['agent', 'new', join(ws, 'agents', `${name}.adf`), '--template', template], { home: tmp.home }))
      .code,
  ).toBe(0);
}

beforeAll(async () => {
  peer = await startModelPeer(KEY);
  await newAgent('remote', {
    provider: 'openai-compatible',
    model_id: 'peer-gpt',
    base_url: `${peer.base}/v1`,
    api_key_env: 'PEER_API_KEY',
  });
  await newAgent('keyless', { provider: 'anthropic', model_id: 'claude-x' });
  await newAgent('offline', undefined);
  await newAgent('broken', {
    provider: 'openai-compatible',
    model_id: 'g',
    base_url: `${peer.base}/v1`,
    api_key_env: 'BROKEN_API_KEY',
  });
}, 60_000);
afterAll(async () => {
  await peer?.stop();
  tmp.cleanup();
});

describe('trust studio <workspace> (built binary, wire-format peer)', () => {
  it(
    'chats through the provider each agent names; ' + 'an agent without a key is listed and its chat says why',
    async () => {
      const child = spawn(process.execPath, [BIN, 'studio', ws, '--json', '--allow-local-model'], {
        cwd: tmp.home,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: tmp.home,
          TRUST_HOME: tmp.trustHome,
          PEER_API_KEY: KEY,
          BROKEN_API_KEY: 'line\nbreak',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
      try {
        const first = await new Promise<string>((resolve, reject) => {
          child.stdout.setEncoding('utf8').on('data', (d: string) => {
            out += d;
            if (out.includes('\n')) resolve(out.split('\n')[0] as string);
          });
          child.on('exit', (c) => reject(new Error(`studio exited ${c}: ${err}`)));
        });
        const doc = studioSchema.parse(JSON.parse(first)).result;
        expect(doc).toMatchObject({ demo: false, agents: ['broken', 'keyless', 'offline', 'remote'] });
        const token = doc.url.split('#token=')[1] as string;
        const api = async (method: string, path: string, body?: unknown) => {
          const res = await fetch(`http://127.0.0.1:${doc.port}/api/v1${path}`, {
            method,
            headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
            ...(body === undefined ? {} : { body: JSON.stringify(body) }),
          });
          return { status: res.status, json: (await res.json()) as ApiBody };
        };

        const remote = await api('POST', '/agents/remote/chat', { text: 'hi studio' });
        expect(remote.status).toBe(200);
        expect(JSON.stringify(remote.json)).toContain('openai peer heard: hi studio');
        expect((await peer.seen()).at(-1)).toMatchObject({
          path: '/v1/chat/completions',
          authorization: `Bearer ${KEY}`,
          bodyHasKey: false,
          model: 'peer-gpt',
        });
        // The model request's egress decision is in the agent's own audit chain.
        const audit = await api('GET', '/agents/remote/audit');
        expect(audit.json.chain?.ok).toBe(true);
        expect(JSON.stringify(audit.json)).toContain(`${peer.base}/v1/chat/completions`);
        expect(JSON.stringify(audit.json)).not.toContain(KEY);

        const keyless = await api('POST', '/agents/keyless/chat', { text: 'hello?' });
        expect(keyless.status).toBe(400);
        expect(keyless.json.error).toHaveTrustCode('MODEL_API_KEY_MISSING');
        expect(keyless.json.error?.message).toContain('$ANTHROPIC_API_KEY is not set');
        expect(keyless.json.error?.hint).toContain('export ANTHROPIC_API_KEY=');
        expect((await api('GET', '/agents/keyless/config')).status).toBe(200);

        const offline = await api('POST', '/agents/offline/chat', { text: 'note this' });
        expect(offline.status).toBe(200);
        expect(JSON.stringify(offline.json)).toContain('DEMO agent');

        const listed = (await api('GET', '/agents')).json.agents as { id: string }[];
        expect(listed.map((a) => a.id)).toEqual(['broken', 'keyless', 'offline', 'remote']);
        const broken = await api('POST', '/agents/broken/chat', { text: 'hi' });
        expect(broken.status).toBe(400);
        expect(broken.json.error?.code).toBeTrustCode('MODEL_API_KEY_INVALID');
      } finally {
        const code = await new Promise<number | null>((resolve) => {
          child.on('exit', (c) => resolve(c));
          child.kill('SIGINT');
        });
        expect(code).toBe(0);
      }
      expect(out + err).not.toContain(KEY);
    },
  );
});
