import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createJsonlAuditSink } from '@trust/core/node';
import { createPrincipal } from '@trust/core';
import { createTempHome, runCli } from './run-cli.test-helper.js';
import { auditTailSchema, failureSchema } from './json-schemas.js';

// Errors a newcomer meets first: each must name the real problem and a fix that exists.
const tmp = createTempHome();
afterAll(() => tmp.cleanup());
const cli = (args: readonly string[]) => runCli(args, { home: tmp.home });
const fail = async (args: readonly string[]) => {
  const r = await cli([...args, '--json']);
  return { code: r.code, error: failureSchema.parse(r.json()).error };
};

beforeAll(async () => {
  expect((await cli(['package', 'init', 'hello'])).code).toBe(0);
  expect((await cli(['package', 'build', 'hello'])).code).toBe(0);
});

describe('first-contact errors (built binary)', () => {
  it(
    'a .tpkg that is not an archive, or is cut short, is ' + 'WASM_PACKAGE_MALFORMED with a hint naming a real command',
    async () => {
      const built = readdirSync(tmp.home).find((f) => f.endsWith('.tpkg')) as string;
      const whole = readFileSync(join(tmp.home, built));
      writeFileSync(join(tmp.home, 'text.tpkg'), 'this is not an archive\n');
      writeFileSync(join(tmp.home, 'cut.tpkg'), whole.subarray(0, Math.floor(whole.length / 2)));
      for (const [args, message] of [
        [['run', 'text.tpkg', 'add', '1', '2', '--allow-unsigned'], /not a \.tpkg archive/],
        [['package', 'inspect', 'text.tpkg'], /not a \.tpkg archive/],
        [['run', 'cut.tpkg', 'add', '1', '2', '--allow-unsigned'], /truncated/],
      ] as const) {
        const { code, error } = await fail(args);
        expect(error.code).toBeTrustCode('WASM_PACKAGE_MALFORMED');
        expect(error.message).toMatch(message);
        expect(error.hint).toContain('trust package build');
        expect(error.hint).not.toContain('package pack');
        expect(code).toBe(1);
      }
    },
  );

  it('a TOML syntax error names its line and column', async () => {
    mkdirSync(join(tmp.home, 'badtoml'));
    writeFileSync(join(tmp.home, 'badtoml', 'package.toml'), '[package]\nname = "x"\nversion = 1.0.0\n');
    const { error } = await fail(['package', 'inspect', 'badtoml']);
    expect(error.code).toBeTrustCode('WASM_MANIFEST_INVALID');
    expect(error.message).toMatch(/at line 3, column \d+/);
  });

  it('hints name CLI flags, not API fields (--allow-cidr, --trusted)', async () => {
    const check = await cli(['egress', 'check', 'http://10.0.0.5/', '--json']);
    expect(check.code).toBe(126);
    const hint = (check.json() as { result: { hint: string } }).result.hint;
    expect(hint).toContain('--allow-cidr 10.0.0.5');
    expect(hint).toContain('--mode allow-local');
    expect(hint).not.toMatch(/to allowCidrs/);
    expect((await cli(['keygen'])).code).toBe(0);
    expect((await cli(['keygen', '--out', 'other'])).code).toBe(0);
    expect((await cli(['package', 'sign', 'hello', '--key', 'signing.key'])).code).toBe(0);
    const { code, error } = await fail(['run', 'hello', 'add', '1', '2', '--trusted', 'other.pub']);
    expect(error.code).toBeTrustCode('WASM_KEY_UNTRUSTED');
    expect(error.hint).toContain('--trusted <key.pub>');
    expect(error.hint).not.toContain('trustedKeys');
    expect(code).toBe(126);
  });

  it('a deny hint for a host:port rule does not suggest opening every port of the host', async () => {
    writeFileSync(join(tmp.home, 'ports.json'), '{"v":1,"http":{"allow":["svc.example.test:8443"]}}');
    const r = await cli([
      'egress',
      'check',
      'https://svc.example.test:9443/',
      '--policy',
      'ports.json',
      '--resolve',
      'svc.example.test=93.184.215.14',
      '--json',
    ]);
    expect(r.code).toBe(126);
    const result = (r.json() as { result: { code: string; hint: string } }).result;
    expect(result.code).toBeTrustCode('EGRESS_HOST_NOT_ALLOWED');
    expect(result.hint).toContain('"svc.example.test:9443"');
    expect(result.hint).not.toContain('"svc.example.test"');
  });

  it('audit tail prints the intact events of a log with a torn tail and says the tail is torn', async () => {
    const file = join(tmp.home, 'torn.jsonl');
    const sink = createJsonlAuditSink(file, { fsync: false });
    for (let i = 0; i < 3; i++)
      sink.record({
        principal: createPrincipal('plugin', 'p'),
        action: 'egress.http',
        target: `https://h${i}.test/`,
        decision: 'allow',
        rule: 'r',
      });
    sink.close();
    writeFileSync(file, `${readFileSync(file, 'utf8')}{"v":1,"time":"2026-`);
    const human = await cli(['audit', 'tail', 'torn.jsonl']);
    expect(human.code).toBe(0);
    expect(human.stdout.trimEnd().split('\n')).toHaveLength(3);
    expect(human.stdout).toContain('https://h2.test/');
    expect(human.stderr).toContain('the last line (line 4) is torn');
    const doc = auditTailSchema.parse((await cli(['audit', 'tail', 'torn.jsonl', '--json'])).json());
    expect(doc.result).toMatchObject({ total: 3, chain: { ok: true }, tornTail: { line: 4 } });
  });

  it(
    'agent inspect: a directory and a short text file get coded ' + 'errors, and nothing is left beside the file',
    async () => {
      mkdirSync(join(tmp.home, 'agents'));
      const dir = await fail(['agent', 'inspect', 'agents']);
      expect(dir.error.code).toBeTrustCode('CLI_NOT_A_FILE');
      expect(dir.error.message).toContain('is a directory');
      writeFileSync(join(tmp.home, 'short.adf'), 'hi\n');
      const short = await fail(['agent', 'inspect', 'short.adf']);
      expect(short.error.code).toBeTrustCode('ADF_NOT_SQLITE');
      expect(short.error.message).toContain('not an SQLite file');
      expect((await cli(['agent', 'new', 'agents/a.adf'])).code).toBe(0);
      expect((await cli(['agent', 'inspect', 'agents/a.adf'])).code).toBe(0);
      expect((await cli(['audit', 'verify', 'agents/a.adf'])).code).toBe(0);
      expect((await cli(['audit', 'tail', 'agents/a.adf'])).code).toBe(0);
      expect(readdirSync(join(tmp.home, 'agents'))).toEqual(['a.adf']);
      expect(existsSync(join(tmp.home, 'agents', 'a.adf-shm'))).toBe(false);
    },
  );

  it('a sandbox policy with a misspelt key is coded, with did-you-mean, not raw schema text', async () => {
    writeFileSync(join(tmp.home, 'sp.json'), '{"v":1,"capabilites":["stdout"],"limits":{"timeMS":5,"pids":"x"}}');
    const { code, error } = await fail(['sandbox', '--policy', 'sp.json', '--', 'true']);
    expect(error.code).toBeTrustCode('SANDBOX_POLICY_INVALID');
    expect(error.message).not.toContain('Unrecognized key');
    expect(error.problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: expect.toBeTrustCode('SANDBOX_POLICY_UNKNOWN_KEY'),
          path: 'capabilites',
          hint: 'did you mean "capabilities"?',
        }),
        expect.objectContaining({
          code: expect.toBeTrustCode('SANDBOX_POLICY_UNKNOWN_KEY'),
          path: 'limits.timeMS',
          hint: 'did you mean "timeMs"?',
        }),
        expect.objectContaining({
          code: expect.toBeTrustCode('SANDBOX_POLICY_FIELD'),
          path: 'limits.pids',
          message: 'must be a number, got a string',
        }),
      ]),
    );
    expect(code).toBe(1);
  });
});
