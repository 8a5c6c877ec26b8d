import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { rejectionOf } from '@trust/core/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allow, deny } from '@trust/core';
import type { EgressHttpRequest, EgressPolicy } from '@trust/core';
import { createEgressClient } from '@trust/egress';
import type { EgressClient } from '@trust/egress';
import { createAnthropicProvider } from './anthropic-provider.js';
import { createOpenAIProvider } from './openai-provider.js';
import type { ModelProvider, ProviderHttpClient } from './model-provider.js';
import type { HttpProviderOptions } from './provider-http.js';

// Both real providers against a wire-format server in a child process, through the real egress
// client. The API key lives only in the egress policy below; the providers never see it.
let child: ChildProcess;
let base = '';
let egress: EgressClient;
let keyless: EgressClient;

const keyPolicy = (port: number): EgressPolicy => ({
  name: 'model-api',
  authorizeHttp(req: EgressHttpRequest) {
    if (req.host !== '127.0.0.1' || req.port !== port) return deny('EGRESS_POLICY_DENIED', 'not the model API');
    req.headers.set('authorization', 'Bearer sk-test');
    req.headers.set('x-api-key', 'sk-test');
    return allow('model-api');
  },
});

beforeAll(async () => {
  child = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/fake-model-server.mjs', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`fake model server exited with ${code}`)));
    child.stdout!.on('data', (d: Buffer) => {
      const m = /PORT (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
  });
  base = `http://127.0.0.1:${port}`;
  egress = createEgressClient({ policy: keyPolicy(port), guard: { mode: 'default' } });
  keyless = createEgressClient({
    policy: { name: 'no-key', authorizeHttp: () => allow('no-key') },
    guard: { mode: 'default' },
  });
}, 60_000);

afterAll(async () => {
  await egress?.close();
  await keyless?.close();
  child?.kill('SIGTERM');
});

const waits: number[] = [];
const options = (scenario: string, extra: Partial<HttpProviderOptions> = {}): HttpProviderOptions => ({
  baseUrl: `${base}/s/${scenario}/v1`,
  model: 'test-model',
  egress: egress as unknown as ProviderHttpClient,
  sleep: async (ms) => {
    waits.push(ms);
  },
  ...extra,
});
const makers: Array<[string, (o: HttpProviderOptions) => ModelProvider]> = [
  ['openai', createOpenAIProvider],
  ['anthropic', createAnthropicProvider],
];
const ask = {
  messages: [{ role: 'user' as const, content: 'hi' }],
  tools: [
    {
      name: 'get_weather',
      description: 'weather',
      inputSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    },
  ],
};

describe.each(makers)('%s provider over egress', { timeout: 30_000 }, (format, make) => {
  it.each([true, false])('text answer (stream=%s)', async (stream) => {
    const deltas: string[] = [];
    const r = await make(options('text', { stream })).createMessage({ ...ask, onTextDelta: (t) => deltas.push(t) });
    expect(r.content).toEqual([{ type: 'text', text: `hello from ${format}` }]);
    expect(r.stopReason).toBe('end_turn');
    expect(r.usage.inputTokens).toBeGreaterThan(0);
    if (stream) expect(deltas.length).toBeGreaterThan(1);
  });

  it.each([true, false])('tool call (stream=%s)', async (stream) => {
    const r = await make(options('tools', { stream })).createMessage(ask);
    const call = r.content.find((b) => b.type === 'tool_use');
    expect(call).toMatchObject({ type: 'tool_use', name: 'get_weather', input: { city: 'Paris' } });
    expect(r.stopReason).toBe('tool_use');
  });

  it('sends tool results back in its own wire format', async () => {
    await make(options('text', { stream: false })).createMessage({
      messages: [
        { role: 'user', content: 'weather?' },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'x1', name: 'get_weather', input: { city: 'Oslo' } }] },
        { role: 'user', content: [{ type: 'tool_result', toolUseId: 'x1', content: 'rain' }] },
      ],
    });
    const reqs = (await (await fetch(`${base}/__requests`)).json()) as Array<{
      format: string;
      body: { messages: unknown[] };
    }>;
    const last = reqs.filter((r) => r.format === format).at(-1)!;
    expect(JSON.stringify(last.body.messages)).toContain(
      format === 'openai' ? '"tool_call_id":"x1"' : '"tool_use_id":"x1"',
    );
  });

  it('the API key comes only from the egress policy', async () => {
    await expect(
      make(options('text', { egress: keyless as unknown as ProviderHttpClient })).createMessage(ask),
    ).rejects.toHaveTrustCode('PROVIDER_AUTH');
    const reqs = (await (await fetch(`${base}/__requests`)).json()) as Array<{
      format: string;
      headers: Record<string, string>;
    }>;
    const withKey = reqs.filter(
      (r) =>
        r.format === format && (r.headers.authorization === 'Bearer sk-test' || r.headers['x-api-key'] === 'sk-test'),
    );
    expect(withKey.length).toBeGreaterThan(0);
  });

  it('auth failures are not retried', async () => {
    waits.length = 0;
    await expect(make(options('auth')).createMessage(ask)).rejects.toHaveTrustCode('PROVIDER_AUTH');
    expect(waits).toEqual([]);
  });

  it('transient failures are retried with exponential backoff', async () => {
    waits.length = 0;
    const r = await make(
      options('flaky', { retry: { maxAttempts: 3, baseDelayMs: 100, maxDelayMs: 1000 } }),
    ).createMessage(ask);
    expect(r.content[0]).toMatchObject({ type: 'text' });
    expect(waits).toEqual([100, 200]);
  });

  it('retry-after is honoured but capped by maxDelayMs', async () => {
    waits.length = 0;
    await make(options('ratelimit', { retry: { maxDelayMs: 1500 } })).createMessage(ask);
    expect(waits).toEqual([1500]);
  });

  it('gives up after maxAttempts with PROVIDER_UNAVAILABLE', async () => {
    waits.length = 0;
    await expect(
      make(options('down', { retry: { maxAttempts: 2, baseDelayMs: 10 } })).createMessage(ask),
    ).rejects.toHaveTrustCode('PROVIDER_UNAVAILABLE');
    expect(waits).toEqual([10]);
  });

  it('a bad request is reported with an escaped excerpt and not retried', async () => {
    waits.length = 0;
    const err = await rejectionOf(() => make(options('badreq')).createMessage(ask));
    expect(err).toHaveTrustCode('PROVIDER_BAD_REQUEST');
    expect(err.message).not.toContain('\u001b');
    expect(waits).toEqual([]);
  });

  it('an error event mid-stream fails the request', async () => {
    await expect(make(options('midstream-error')).createMessage(ask)).rejects.toHaveTrustCode('PROVIDER_STREAM_ERROR');
  });

  it('egress policy denials propagate and are not retried', async () => {
    waits.length = 0;
    const p = make({ ...options('text'), baseUrl: 'http://127.0.0.1:9/s/text/v1' });
    await expect(p.createMessage(ask)).rejects.toHaveTrustCode('EGRESS_POLICY_DENIED');
    expect(waits).toEqual([]);
  });
});
