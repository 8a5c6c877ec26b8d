import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempHome, runCli } from './run-cli.test-helper.js';
import { agentChatSchema, failureSchema } from './json-schemas.js';
import { startModelPeer, type ModelPeer } from './model-peer.test-helper.js';

// `trust agent chat` with the real providers, through the built binary, against a wire-format
// model server in a child process. The key reaches the peer as a header and is never printed.
const KEY = 'sk-peer-secret-4242';
const tmp = createTempHome();
let peer: ModelPeer;

beforeAll(async () => {
  peer = await startModelPeer(KEY);
  expect((await runCli(['agent', 'new', 'bot.adf'], { home: tmp.home })).code).toBe(0);
}, 60_000);
afterAll(async () => {
  await peer?.stop();
  tmp.cleanup();
});

const chat = (args: string[], env: Record<string, string>, input = 'hello model\n') =>
  runCli(['agent', 'chat', 'bot.adf', ...args], { home: tmp.home, env, input });

describe('trust agent chat with a real provider (built binary, wire-format peer)', () => {
  it('openai: one turn through egress, the key injected as a bearer header and never printed', async () => {
    const r = await chat(
      ['--provider', 'openai', '--model', 'peer-gpt', '--base-url', `${peer.base}/v1`, '--allow-local-model', '--json'],
      { OPENAI_API_KEY: KEY },
    );
    expect(r.stderr).not.toContain(KEY);
    expect(r.code).toBe(0);
    const doc = agentChatSchema.parse(r.json());
    expect(doc.result).toMatchObject({ provider: 'openai-compatible', model: 'peer-gpt' });
    expect(JSON.stringify(doc.result.turns)).toContain('openai peer heard: hello model');
    // The model request's egress decision is reported (allowed by the model-api rule), without the key.
    expect(doc.result.egress).toEqual([
      expect.objectContaining({
        decision: 'allow',
        target: expect.stringContaining(`${peer.base}/v1/chat/completions`),
      }),
    ]);
    expect(doc.result.egress[0]?.rule).toContain('model-api');
    expect(r.stdout).not.toContain(KEY);
    const last = (await peer.seen()).at(-1);
    expect(last).toMatchObject({
      path: '/v1/chat/completions',
      authorization: `Bearer ${KEY}`,
      bodyHasKey: false,
      model: 'peer-gpt',
    });
  });

  it('anthropic: one turn with the key from the variable --api-key-env names, as x-api-key', async () => {
    const r = await chat(
      [
        '--provider',
        'anthropic',
        '--model',
        'peer-claude',
        '--base-url',
        peer.base,
        '--api-key-env',
        'PEER_KEY_VAR',
        '--allow-local-model',
      ],
      { PEER_KEY_VAR: KEY },
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('anthropic peer heard: hello model');
    expect(r.stdout).toContain('key from $PEER_KEY_VAR, injected at egress');
    expect(r.stdout).toMatch(/egress allow \S+ http:\/\/127\.0\.0\.1:\d+\/v1\/messages/);
    expect(r.stdout + r.stderr).not.toContain(KEY);
    const last = (await peer.seen()).at(-1);
    expect(last).toMatchObject({
      path: '/v1/messages',
      xApiKey: KEY,
      authorization: null,
      anthropicVersion: '2023-06-01',
      bodyHasKey: false,
    });
  });

  it("uses the agent's own model settings when no flag names a provider", async () => {
    const config = join(tmp.home, 'anthropic-agent.json');
    writeFileSync(
      config,
      JSON.stringify({
        v: 1,
        model: { provider: 'anthropic', model_id: 'from-config', base_url: peer.base, api_key_env: 'TEAM_API_KEY' },
      }),
    );
    expect((await runCli(['agent', 'new', 'configured.adf', '--template', config], { home: tmp.home })).code).toBe(0);
    const r = await runCli(['agent', 'chat', 'configured.adf', '--allow-local-model', '--json'], {
      home: tmp.home,
      env: { TEAM_API_KEY: KEY },
      input: 'hi\n',
    });
    expect(r.code).toBe(0);
    expect(agentChatSchema.parse(r.json()).result).toMatchObject({ provider: 'anthropic', model: 'from-config' });
    expect((await peer.seen()).at(-1)).toMatchObject({ xApiKey: KEY, model: 'from-config' });
  });

  it('a missing key is a usage error naming the variable and the fix; nothing is sent', async () => {
    const before = (await peer.seen()).length;
    const r = await chat(
      ['--provider', 'openai', '--model', 'peer-gpt', '--base-url', `${peer.base}/v1`, '--allow-local-model', '--json'],
      {},
    );
    expect(r.code).toBe(2);
    const err = failureSchema.parse(r.json()).error;
    expect(err.code).toBeTrustCode('MODEL_API_KEY_MISSING');
    expect(err.message).toContain('$OPENAI_API_KEY is not set');
    expect(err.hint).toContain('export OPENAI_API_KEY=');
    const human = await chat(['--provider', 'anthropic', '--model', 'm'], {});
    expect(human.code).toBe(2);
    expect(human.stderr).toContain('MODEL_API_KEY_MISSING');
    expect(human.stderr).toContain('export ANTHROPIC_API_KEY=');
    expect((await peer.seen()).length).toBe(before);
  });

  it(
    'a loopback base URL needs --allow-local-model; a wrong key ' + 'is an auth failure that never echoes the key',
    async () => {
      const local = await chat(
        ['--provider', 'openai', '--model', 'peer-gpt', '--base-url', `${peer.base}/v1`, '--json'],
        { OPENAI_API_KEY: KEY },
      );
      expect(local.code).toBe(2);
      const err = failureSchema.parse(local.json()).error;
      expect(err.code).toBeTrustCode('MODEL_BASE_URL_LOCAL');
      expect(err.hint).toContain('--allow-local-model');
      const wrong = await chat(
        [
          '--provider',
          'openai',
          '--model',
          'peer-gpt',
          '--base-url',
          `${peer.base}/v1`,
          '--allow-local-model',
          '--json',
        ],
        { OPENAI_API_KEY: 'sk-wrong-key-77' },
      );
      expect(wrong.code).toBe(1);
      expect(failureSchema.parse(wrong.json()).error.code).toBeTrustCode('PROVIDER_AUTH');
      expect(wrong.stdout + wrong.stderr).not.toContain('sk-wrong-key-77');
    },
  );
});
