// Attack corpus: secret-looking environment names the sandbox must refuse to pass without an
// exact grant (decision only; nothing is spawned).
import { describe, expect, it } from 'vitest';
import { BASE_ENV_NAMES, looksLikeSecretName } from '@trust/os-sandbox';

describe('attack: smuggling a secret through a spawn env var', () => {
  it.each([
    'GITHUB_TOKEN',
    'AWS_SECRET_ACCESS_KEY',
    'AWS_SESSION_TOKEN',
    'PGPASSWORD',
    'DB_PASSWD',
    'OPENAI_API_KEY',
    'OPENAI_KEY',
    'ANTHROPIC_API_KEY',
    'api_key',
    'ApiKey',
    'NPM_AUTH',
    'NPM_AUTH_TOKEN',
    'NODE_AUTH_TOKEN',
    'MY_CREDENTIALS',
    'GOOGLE_APPLICATION_CREDENTIALS',
    'SSH_AUTH_SOCK',
    'DOCKER_AUTH_CONFIG',
    'VAULT_TOKEN',
    'PRIVATE_KEY',
    'COOKIE',
    'SESSION',
    'AZURE_CLIENT_SECRET',
    'HF_TOKEN',
  ])('%s looks like a secret', (name) => {
    expect(looksLikeSecretName(name)).toBe(true);
  });
  it('the base environment carries no secret-looking name', () => {
    expect(BASE_ENV_NAMES.filter((n) => looksLikeSecretName(n))).toEqual([]);
  });
});
