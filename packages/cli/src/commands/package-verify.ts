import type { CommandSpec } from '../command.js';
import { listOption } from '../args.js';
import { usageError } from '../cli-error.js';
import { readPackage, readTrustedKeys } from '../plugin-files.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'package verify',
  summary: 'verify a package signature against trusted keys',
  description:
    'Checks that package.sig was made by one of the trusted keys and that every file matches what was\n' +
    'signed: a changed, added or removed file fails, and the failing file is named.',
  positionals: [{ name: 'package', description: 'a package directory or .tpkg archive' }],
  options: {
    trusted: {
      type: 'string',
      multiple: true,
      valueName: 'key.pub',
      description: 'a public key you trust (required; repeatable)',
    },
  },
  examples: [
    { command: 'trust package verify hello --trusted signing.pub', explain: 'check a package against your key' },
    {
      command: 'trust package verify vendor.tpkg --trusted alice.pub --trusted bob.pub',
      explain: 'accept any of several signers',
    },
  ],
  jsonShape: '{ "package": string, "keyId": string, "alg": "ed25519", "manifestDigest": string }',
  exitCodes: [
    '126 the package is unsigned, signed by an untrusted key, or does not match its signature (code WASM_*)',
    '1 the package or a key cannot be read',
  ],
  async run({ io, out, values, positionals }) {
    const paths = listOption(values, 'trusted');
    if (paths.length === 0)
      throw usageError(
        'CLI_USAGE_MISSING_OPTION',
        'trust package verify needs at least one --trusted <key.pub>',
        'for example --trusted signing.pub',
      );
    const { verifyPackage } = await import('@trust/wasm-host');
    const trusted = await readTrustedKeys(io.cwd, paths);
    const pkg = await readPackage(io.cwd, positionals[0] as string);
    const signer = verifyPackage(pkg.files, trusted);
    out.result({ package: pkg.path, keyId: signer.keyId, alg: signer.alg, manifestDigest: signer.manifestDigest });
    out.line(
      `${out.style.green('✓ verified')} ${escapeTerminal(pkg.path)}: signed by key ${signer.keyId}, every file matches`,
    );
    return 0;
  },
};
