import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempHome, runCli } from './run-cli.test-helper.js';
import {
  failureSchema,
  keygenSchema,
  packageBuildSchema,
  packageInitSchema,
  packageInspectSchema,
  packageSignSchema,
  packageVerifySchema,
  runSchema,
} from './json-schemas.js';

const tmp = createTempHome();
afterAll(() => tmp.cleanup());
const cli = (args: string[]) => runCli(args, { home: tmp.home });

// One flow, in order, as a user would: init, keygen, inspect, sign, verify, build, run, tamper.
describe('plugin packages (built binary)', () => {
  it('init creates a deny-all package around the sample component', async () => {
    const r = await cli(['package', 'init', 'hello', '--json']);
    expect(r.code).toBe(0);
    expect(packageInitSchema.parse(r.json()).result).toMatchObject({
      name: 'hello',
      files: ['package.toml', 'plugin.wasm'],
    });
    expect(readFileSync(join(tmp.home, 'hello', 'package.toml'), 'utf8')).toContain('capabilities = []');
    const again = await cli(['package', 'init', 'hello', '--json']);
    expect(again.code).toBe(1);
    expect(failureSchema.parse(again.json()).error.code).toBeTrustCode('CLI_FILE_EXISTS');
  });

  it('keygen writes a 0600 private key and a public key, and refuses to overwrite', async () => {
    const r = await cli(['keygen', '--json']);
    expect(r.code).toBe(0);
    const doc = keygenSchema.parse(r.json());
    expect(statSync(doc.result.privateKeyFile).mode & 0o777).toBe(0o600);
    expect((await cli(['keygen'])).code).toBe(1);
    expect((await cli(['keygen', '--out', 'other', '--json'])).code).toBe(0);
  });

  it('inspect shows capabilities, an unsigned package and the real exports', async () => {
    const r = await cli(['package', 'inspect', 'hello', '--json']);
    expect(r.code).toBe(0);
    const doc = packageInspectSchema.parse(r.json());
    expect(doc.result.capabilities).toEqual([]);
    expect(doc.result.signature).toEqual({ status: 'unsigned' });
    expect(doc.result.exports).toEqual(['add: func(a: u32, b: u32) -> u32', 'hello: func() -> string']);
    const human = await cli(['package', 'inspect', 'hello']);
    expect(human.stdout.indexOf('Capabilities')).toBeLessThan(human.stdout.indexOf('Signature'));
  });

  it('sign needs a private key; verify accepts the right key and names an untrusted one', async () => {
    expect(failureSchema.parse((await cli(['package', 'sign', 'hello', '--json'])).json()).error.code).toBeTrustCode(
      'CLI_USAGE_MISSING_OPTION',
    );
    expect(
      failureSchema.parse((await cli(['package', 'sign', 'hello', '--key', 'signing.pub', '--json'])).json()).error
        .code,
    ).toBeTrustCode('WASM_KEY_INVALID');
    const signed = await cli(['package', 'sign', 'hello', '--key', 'signing.key', '--json']);
    expect(signed.code).toBe(0);
    expect(packageSignSchema.parse(signed.json()).result.files).toBe(2);
    const ok = await cli(['package', 'verify', 'hello', '--trusted', 'signing.pub', '--json']);
    expect(ok.code).toBe(0);
    packageVerifySchema.parse(ok.json());
    const wrong = await cli(['package', 'verify', 'hello', '--trusted', 'other.pub', '--json']);
    expect(failureSchema.parse(wrong.json()).error.code).toBeTrustCode('WASM_KEY_UNTRUSTED');
    expect(wrong.code).toBe(126);
  });

  it('build packs a signed .tpkg that inspect reads with a valid signature', async () => {
    const r = await cli(['package', 'build', 'hello', '--json']);
    expect(r.code).toBe(0);
    const doc = packageBuildSchema.parse(r.json());
    expect(doc.result).toMatchObject({ signed: true, files: ['package.sig', 'package.toml', 'plugin.wasm'] });
    const inspect = packageInspectSchema.parse(
      (await cli(['package', 'inspect', doc.result.out, '--trusted', 'signing.pub', '--json'])).json(),
    );
    expect(inspect.result.signature.status).toBe('valid');
  });

  it('run calls an export of the signed package under the host', async () => {
    const r = await cli(['run', 'hello-0.1.0.tpkg', 'add', '2', '3', '--trusted', 'signing.pub', '--json']);
    expect(r.stderr).not.toContain('error[');
    expect(r.code).toBe(0);
    const doc = runSchema.parse(r.json());
    expect(doc.result).toMatchObject({ result: 5, capabilities: [], plugin: 'hello' });
    expect(doc.result.audit.some((e) => e.action === 'plugin.load' && e.decision === 'allow')).toBe(true);
    const hello = await cli(['run', 'hello', 'hello', '--trusted', 'signing.pub']);
    expect(hello.stdout).toContain('"hello from a sandboxed plugin"');
  });

  it('run of an export the plugin does not have is a usage error (exit 2) that lists the exports', async () => {
    const r = await cli(['run', 'hello', 'nope', '--trusted', 'signing.pub', '--json']);
    expect(r.code).toBe(2);
    const err = failureSchema.parse(r.json()).error;
    expect(err.code).toBeTrustCode('WASM_EXPORT_UNKNOWN');
    expect(JSON.stringify(err)).toContain('add');
  });

  it('run refuses an untrusted signer, and a tampered package fails verify naming the file', async () => {
    const untrusted = await cli(['run', 'hello', 'add', '1', '2', '--json']);
    expect(untrusted.code).toBe(126);
    expect(failureSchema.parse(untrusted.json()).error.code).toBeTrustCode('WASM_KEY_UNTRUSTED');
    expect((await cli(['package', 'init', 'plain'])).code).toBe(0);
    const unsigned = await cli(['run', 'plain', 'add', '1', '2']);
    expect(unsigned.code).toBe(126);
    expect(unsigned.stderr).toContain('error[WASM_UNSIGNED]');
    const network = await cli([
      'run',
      'hello',
      'add',
      '1',
      '2',
      '--trusted',
      'signing.pub',
      '--grant',
      'http',
      '--json',
    ]);
    expect(network.code).toBe(126);
    expect(failureSchema.parse(network.json()).error.code).toBeTrustCode('WASM_EGRESS_POLICY_MISSING');
    appendFileSync(join(tmp.home, 'hello', 'package.toml'), '\n# changed after signing\n');
    const tampered = await cli(['package', 'verify', 'hello', '--trusted', 'signing.pub', '--json']);
    expect(tampered.code).toBe(126);
    const err = failureSchema.parse(tampered.json()).error;
    const refused = await cli(['run', 'hello', 'add', '1', '2', '--trusted', 'signing.pub', '--json']);
    expect(refused.code).toBe(126);
    expect(failureSchema.parse(refused.json()).error.code).toBeTrustCode('WASM_SIGNATURE_INVALID');
    expect(err.code).toBeTrustCode('WASM_SIGNATURE_INVALID');
    expect(JSON.stringify(err)).toContain('package.toml');
  });

  it('reports a misspelt manifest key with did-you-mean', async () => {
    writeFileSync(
      join(tmp.home, 'hello', 'package.toml'),
      readFileSync(join(tmp.home, 'hello', 'package.toml'), 'utf8').replace('capabilities = []', 'capabilites = []'),
    );
    const r = await cli(['package', 'build', 'hello', '--json']);
    expect(r.code).toBe(1);
    expect(JSON.stringify(failureSchema.parse(r.json()).error)).toContain('did you mean');
  });
});
