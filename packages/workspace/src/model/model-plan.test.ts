import { describe, expect, it } from 'vitest';
import { isLocalModelHost, planModel, type AgentModelSettings, type ModelFlags } from './model-plan.js';

const scripted: AgentModelSettings = { provider: 'scripted', model_id: 'scripted' };
const env = { OPENAI_API_KEY: 'k1', ANTHROPIC_API_KEY: 'k2', TEAM_API_KEY: 'k3', AWS_SECRET_ACCESS_KEY: 'k4' };

describe('planModel', () => {
  it('the scripted provider needs nothing', () => {
    expect(planModel({}, scripted, {})).toEqual({ ok: true, plan: { kind: 'scripted' } });
  });

  it('openai defaults: public API over https, bearer key from OPENAI_API_KEY, strict guard', () => {
    const r = planModel({ provider: 'openai-compatible', model: 'gpt-x' }, scripted, env);
    expect(r).toEqual({
      ok: true,
      plan: {
        kind: 'openai-compatible',
        model: 'gpt-x',
        baseUrl: 'https://api.openai.com/v1',
        hostRule: 'api.openai.com:443',
        keyEnv: 'OPENAI_API_KEY',
        keyHeader: 'authorization',
        guardMode: 'strict',
        sources: { model: 'flag', baseUrl: 'default', keyEnv: 'default' },
      },
    });
  });

  it("the agent's settings apply to its own provider; flags win", () => {
    const settings: AgentModelSettings = {
      provider: 'anthropic',
      model_id: 'claude-x',
      base_url: 'https://llm.example.com/v1',
      api_key_env: 'TEAM_API_KEY',
    };
    const own = planModel({}, settings, env);
    expect(own.ok && own.plan).toMatchObject({
      kind: 'anthropic',
      model: 'claude-x',
      hostRule: 'llm.example.com:443',
      keyEnv: 'TEAM_API_KEY',
      keyHeader: 'x-api-key',
      sources: { model: 'agent', baseUrl: 'agent', keyEnv: 'agent' },
    });
    const flagged = planModel(
      { model: 'm2', baseUrl: 'https://other.example.com:8443', apiKeyEnv: 'ANTHROPIC_API_KEY' },
      settings,
      env,
    );
    expect(flagged.ok && flagged.plan).toMatchObject({
      model: 'm2',
      hostRule: 'other.example.com:8443',
      keyEnv: 'ANTHROPIC_API_KEY',
    });
    // Another provider than the agent's: none of the agent's model settings carry over.
    const other = planModel({ provider: 'openai-compatible', model: 'g' }, settings, env);
    expect(other.ok && other.plan).toMatchObject({ hostRule: 'api.openai.com:443', keyEnv: 'OPENAI_API_KEY' });
  });

  it.each<[string, ModelFlags, AgentModelSettings, Record<string, string>, string]>([
    ['no key in the environment', { provider: 'openai-compatible', model: 'g' }, scripted, {}, 'MODEL_API_KEY_MISSING'],
    [
      'an empty key',
      { provider: 'anthropic', model: 'c' },
      scripted,
      { ANTHROPIC_API_KEY: '' },
      'MODEL_API_KEY_MISSING',
    ],
    ['no model id', { provider: 'anthropic' }, scripted, env, 'MODEL_ID_MISSING'],
    [
      'a key with a line break',
      { provider: 'anthropic', model: 'c' },
      scripted,
      { ANTHROPIC_API_KEY: 'k\r\nx-evil: 1' },
      'MODEL_API_KEY_INVALID',
    ],
    [
      'the scripted model id does not count',
      { provider: 'openai-compatible' },
      { provider: 'openai-compatible', model_id: 'scripted' },
      env,
      'MODEL_ID_MISSING',
    ],
    [
      'not a URL',
      { provider: 'openai-compatible', model: 'g', baseUrl: 'api.example.com' },
      scripted,
      env,
      'MODEL_BASE_URL_INVALID',
    ],
    [
      'not http(s)',
      { provider: 'openai-compatible', model: 'g', baseUrl: 'file:///etc/passwd' },
      scripted,
      env,
      'MODEL_BASE_URL_INVALID',
    ],
    [
      'credentials in the URL',
      { provider: 'openai-compatible', model: 'g', baseUrl: 'https://u:p@api.example.com' },
      scripted,
      env,
      'MODEL_BASE_URL_INVALID',
    ],
    [
      'loopback without the flag',
      { provider: 'openai-compatible', model: 'g', baseUrl: 'http://127.0.0.1:11434/v1' },
      scripted,
      env,
      'MODEL_BASE_URL_LOCAL',
    ],
    [
      'localhost without the flag',
      { provider: 'openai-compatible', model: 'g', baseUrl: 'https://localhost:8080' },
      scripted,
      env,
      'MODEL_BASE_URL_LOCAL',
    ],
    [
      'a private address without the flag',
      { provider: 'anthropic', model: 'c', baseUrl: 'https://10.1.2.3' },
      scripted,
      env,
      'MODEL_BASE_URL_LOCAL',
    ],
    [
      'plain http to a remote host',
      { provider: 'openai-compatible', model: 'g', baseUrl: 'http://api.example.com/v1', allowLocal: true },
      scripted,
      env,
      'MODEL_BASE_URL_INSECURE',
    ],
    [
      'a bad variable name',
      { provider: 'openai-compatible', model: 'g', apiKeyEnv: 'MY-KEY' },
      scripted,
      env,
      'MODEL_API_KEY_ENV_INVALID',
    ],
    [
      'an agent file naming a non-key variable',
      {},
      { provider: 'anthropic', model_id: 'c', api_key_env: 'AWS_SECRET_ACCESS_KEY' },
      env,
      'MODEL_API_KEY_ENV_REFUSED',
    ],
  ])('refuses %s', (_name, flags, settings, environment, code) => {
    const r = planModel(flags, settings, environment);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.problem.code).toBe(code);
      expect(r.problem.hint.length).toBeGreaterThan(0);
    }
  });

  it('the owner may name any variable; a local server needs allowLocal, which opens the guard', () => {
    const r = planModel(
      {
        provider: 'anthropic',
        model: 'c',
        apiKeyEnv: 'AWS_SECRET_ACCESS_KEY',
        baseUrl: 'http://127.0.0.1:9000',
        allowLocal: true,
      },
      scripted,
      env,
    );
    expect(r.ok && r.plan).toMatchObject({
      keyEnv: 'AWS_SECRET_ACCESS_KEY',
      hostRule: '127.0.0.1:9000',
      guardMode: 'allow-local',
      baseUrl: 'http://127.0.0.1:9000/',
    });
  });

  it('the problem never contains the key', () => {
    const r = planModel({ provider: 'openai-compatible', model: 'g', baseUrl: 'http://api.example.com' }, scripted, {
      OPENAI_API_KEY: 'sk-secret-value',
    });
    expect(JSON.stringify(r)).not.toContain('sk-secret-value');
  });
});

describe('isLocalModelHost', () => {
  it.each([
    ['localhost', true],
    ['LOCALHOST.', true],
    ['ollama.localhost', true],
    ['127.0.0.1', true],
    ['[::1]', true],
    ['192.168.1.5', true],
    ['api.openai.com', false],
    ['8.8.8.8', false],
    ['[2606:4700::1111]', false],
  ])('%s → %s', (host, local) => {
    expect(isLocalModelHost(host)).toBe(local);
  });
});
