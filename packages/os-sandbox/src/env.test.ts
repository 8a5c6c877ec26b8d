import { describe, expect, it } from 'vitest';
import { buildSandboxEnv, evaluateExplicitEnv, looksLikeSecretName } from './env.js';
import { parseSandboxPolicy } from './policy.js';

const policy = parseSandboxPolicy({ v: 1, capabilities: ['env:LOG_LEVEL', 'env:NPM_TOKEN'] });

describe('env scrubbing', () => {
  it.each([
    ['GITHUB_TOKEN', true],
    ['AWS_SECRET_ACCESS_KEY', true],
    ['DB_PASSWORD', true],
    ['api_key', true],
    ['SSH_AUTH_SOCK', true],
    ['LOG_LEVEL', false],
    ['PATH', false],
    ['NODE_ENV', false],
    // PASS/PWD/PAT/DSN/WEBHOOK/credential-URL style names (secret env names the red team found).
    ['DB_PASS', true],
    ['MYSQL_PWD', true],
    ['GH_PAT', true],
    ['DATABASE_URL', true],
    ['REDIS_URL', true],
    ['MONGODB_URI', true],
    ['SLACK_WEBHOOK_URL', true],
    ['SENTRY_DSN', true],
    ['STRIPE_SK', true],
    ['JWT', true],
    ['BEARER', true],
    ['KUBECONFIG', true],
    ['AWS_CREDENTIALS', true],
    ['REGISTRY_AUTH', true],
    ['db_pass', true],
    ['LANG', false],
    ['TERM', false],
    ['TZ', false],
    ['PWD', false],
    ['OLDPWD', false],
    ['PATCH_LEVEL', false],
    ['SKIP_TESTS', false],
  ])('looksLikeSecretName(%s) = %s', (name, expected) => {
    expect(looksLikeSecretName(name)).toBe(expected);
  });

  it.each([
    ['NPM_TOKEN', true, 'env:NPM_TOKEN'],
    ['GITHUB_TOKEN', false, 'SANDBOX_ENV_SECRET'],
    ['LOG_LEVEL', true, 'env:LOG_LEVEL'],
    ['NODE_ENV', true, 'env-explicit'],
    ['HOME', false, 'SANDBOX_ENV_RESERVED'],
    ['HTTPS_PROXY', false, 'SANDBOX_ENV_RESERVED'],
  ])('explicit %s → allow=%s (%s)', (name, ok, ruleOrCode) => {
    const d = evaluateExplicitEnv(policy, name);
    expect(d.allow).toBe(ok);
    expect(d.allow ? d.rule : d.code).toBe(ruleOrCode);
  });

  it('keeps only base and granted names from the source, then sets HOME, TMPDIR and proxies', () => {
    const env = buildSandboxEnv(policy, {
      source: {
        PATH: '/usr/bin',
        LANG: 'C.UTF-8',
        LOG_LEVEL: 'info',
        NPM_TOKEN: 't',
        GITHUB_TOKEN: 'g',
        SECRET: 's',
        HOME: '/root',
        USER: 'root',
      },
      home: '/sandbox/home',
      tmpdir: '/tmp',
      proxy: { HTTP_PROXY: 'http://127.0.0.1:3128' },
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      LANG: 'C.UTF-8',
      LOG_LEVEL: 'info',
      NPM_TOKEN: 't',
      HOME: '/sandbox/home',
      TMPDIR: '/tmp',
      HTTP_PROXY: 'http://127.0.0.1:3128',
    });
  });

  it('uses a default PATH when the source has none', () => {
    expect(buildSandboxEnv(policy, { source: {}, home: '/h', tmpdir: '/t' }).PATH).toBe('/usr/local/bin:/usr/bin:/bin');
  });

  it('throws SANDBOX_ENV_SECRET for a secret-looking explicit name without an exact grant', () => {
    expect(() =>
      buildSandboxEnv(policy, { source: {}, explicit: { OPENAI_API_KEY: 'x' }, home: '/h', tmpdir: '/t' }),
    ).toThrowTrustError('SANDBOX_ENV_SECRET');
  });
});
