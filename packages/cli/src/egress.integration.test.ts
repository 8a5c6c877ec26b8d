import { afterAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempHome, runCli } from './run-cli.test-helper.js';
import { egressCheckSchema, failureSchema } from './json-schemas.js';

const tmp = createTempHome();
afterAll(() => tmp.cleanup());

// Only IP literals, localhost and --resolve answers: these checks never use DNS or connect anywhere.
describe('trust egress check (built binary)', () => {
  it.each([
    ['http://169.254.169.254/latest/meta-data/', [], 'EGRESS_METADATA'],
    ['http://0x7f000001:7385/', ['--protect-port', '7385'], 'EGRESS_PROTECTED_PORT'],
    ['http://10.0.0.5/', [], undefined],
    ['http://127.1/', ['--mode', 'strict'], undefined],
    ['ftp://93.184.215.14/', [], 'EGRESS_SCHEME'],
    ['http://user:pw@93.184.215.14/', [], 'EGRESS_USERINFO'],
  ])('%s %j is denied (exit 126) with steps', async (url, flags, code) => {
    const r = await runCli(['egress', 'check', url, ...flags, '--json'], { home: tmp.home });
    expect(r.code).toBe(126);
    const doc = egressCheckSchema.parse(r.json());
    expect(doc.result.allow).toBe(false);
    if (code) expect(doc.result.code).toBe(code);
    expect(doc.result.steps.at(-1)).toMatchObject({ step: 'verdict', ok: false });
  });

  it('a name that does not resolve is no verdict: exit 1, "not judged", never the denial exit 126', async () => {
    const r = await runCli(
      ['egress', 'check', 'https://missing.test/', '--resolve', 'other.test=93.184.215.14', '--json'],
      { home: tmp.home },
    );
    expect(r.code).toBe(1);
    expect(egressCheckSchema.parse(r.json()).result).toMatchObject({
      allow: false,
      code: expect.toBeTrustCode('EGRESS_DNS_FAILED'),
    });
    const human = await runCli(['egress', 'check', 'https://missing.test/', '--resolve', 'other.test=93.184.215.14'], {
      home: tmp.home,
    });
    expect(human.code).toBe(1);
    expect(human.stdout).toContain('not judged');
    expect(human.stdout).not.toMatch(/^denied \[/m);
  });

  it('allows a public address and a private one in allow-local mode (exit 0)', async () => {
    const pub = await runCli(['egress', 'check', 'https://93.184.215.14/', '--json'], { home: tmp.home });
    expect(pub.code).toBe(0);
    expect(egressCheckSchema.parse(pub.json()).result).toMatchObject({ allow: true, addresses: ['93.184.215.14'] });
    const local = await runCli(['egress', 'check', 'http://10.0.0.5/', '--mode', 'allow-local', '--json'], {
      home: tmp.home,
    });
    expect(local.code).toBe(0);
  });

  it('judges a name through --resolve: a name that resolves to a private address is denied', async () => {
    const r = await runCli(
      ['egress', 'check', 'https://api.internal.test/', '--resolve', 'api.internal.test=10.0.0.5'],
      { home: tmp.home },
    );
    expect(r.code).toBe(126);
    expect(r.stdout).toContain('resolve  api.internal.test → 10.0.0.5');
    expect(r.stdout).toMatch(/denied \[EGRESS_PRIVATE/);
  });

  it('with --policy, asks the policy after the guard and takes the guard section from the file', async () => {
    writeFileSync(
      join(tmp.home, 'p.json'),
      JSON.stringify({ v: 1, http: { allow: ['93.184.215.14'] }, guard: { mode: 'strict' } }),
    );
    const ok = await runCli(['egress', 'check', 'https://93.184.215.14/', '--policy', 'p.json', '--json'], {
      home: tmp.home,
    });
    expect(ok.code).toBe(0);
    const okDoc = egressCheckSchema.parse(ok.json());
    expect(okDoc.result.steps.find((s) => s.step === 'policy')).toMatchObject({ ok: true });
    const other = await runCli(['egress', 'check', 'https://93.184.215.15/', '--policy', 'p.json', '--json'], {
      home: tmp.home,
    });
    expect(other.code).toBe(126);
    const doc = egressCheckSchema.parse(other.json());
    expect(doc.result.steps.find((s) => s.step === 'policy')).toMatchObject({ ok: false });
    expect(doc.result.code).toBeTrustCode('EGRESS_HOST_NOT_ALLOWED');
    const strict = await runCli(['egress', 'check', 'http://127.0.0.1/', '--policy', 'p.json', '--json'], {
      home: tmp.home,
    });
    expect(egressCheckSchema.parse(strict.json()).result.mode).toBe('strict');
    expect(strict.code).toBe(126);
  });

  it('escapes a hostile URL before printing it', async () => {
    const r = await runCli(['egress', 'check', 'http://93.184.215.14/\u001b[2J\u0007x'], { home: tmp.home });
    expect(r.stdout).not.toContain('\u001b');
    expect(r.stdout).not.toContain('\u0007');
  });

  it.each([
    [['egress', 'check'], 'CLI_USAGE_MISSING_ARGUMENT'],
    [['egress', 'check', 'http://x/', '--mode', 'strct'], 'CLI_USAGE_INVALID_VALUE'],
    [['egress', 'check', 'http://x/', '--protect-port', '99999'], 'CLI_USAGE_INVALID_VALUE'],
    [['egress', 'check', 'http://x/', '--protec-port', '1'], 'CLI_USAGE_UNKNOWN_OPTION'],
  ])('%j is a usage error (exit 2)', async (argv, code) => {
    const r = await runCli([...argv, '--json'], { home: tmp.home });
    expect(r.code).toBe(2);
    expect(failureSchema.parse(r.json()).error.code).toBe(code);
  });
});
