import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { CommandSpec } from '../command.js';
import { stringOption } from '../args.js';
import { usageError } from '../cli-error.js';
import { readKey, readPackage } from '../plugin-files.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'package sign',
  summary: 'sign a plugin package with an Ed25519 key',
  description:
    'Signs the SHA-256 of every file in the package (nothing is skipped, so package.toml and its\n' +
    'capabilities cannot change without breaking the signature) and writes package.sig. A directory\n' +
    'gets package.sig inside it; a .tpkg archive is rewritten with package.sig added.',
  positionals: [{ name: 'package', description: 'a package directory or .tpkg archive' }],
  options: {
    key: {
      type: 'string',
      short: 'k',
      valueName: 'file.key',
      description: 'the private key file from `trust keygen` (required)',
    },
  },
  examples: [
    {
      command: 'trust keygen && trust package sign hello --key signing.key',
      explain: 'create a key and sign a package directory',
    },
    { command: 'trust package sign hello-0.1.0.tpkg --key signing.key', explain: 'sign an archive in place' },
  ],
  jsonShape: '{ "package": string, "keyId": string, "files": number, "signatureFile": string }',
  async run({ io, out, values, positionals }) {
    const keyPath = stringOption(values, 'key');
    if (!keyPath)
      throw usageError(
        'CLI_USAGE_MISSING_OPTION',
        'trust package sign needs --key <file.key>',
        'create one with `trust keygen`, then pass --key signing.key',
      );
    const { packPackage, signPackage, SIGNATURE_FILE } = await import('@trust/wasm-host');
    const key = await readKey(io.cwd, keyPath, 'private');
    const pkg = await readPackage(io.cwd, positionals[0] as string);
    const signed = signPackage(pkg.files, key);
    let signatureFile: string;
    if (pkg.kind === 'dir') {
      signatureFile = join(pkg.path, SIGNATURE_FILE);
      await writeFile(signatureFile, signed.signature);
    } else {
      signatureFile = `${pkg.path}:${SIGNATURE_FILE}`;
      await writeFile(pkg.path, await packPackage(signed.package));
    }
    const files = [...signed.package.files.keys()].filter((f) => f !== SIGNATURE_FILE).length;
    out.result({ package: pkg.path, keyId: key.keyId, files, signatureFile });
    out.line(
      `${out.style.green('signed')} ${escapeTerminal(pkg.path)} with key ${key.keyId} (${files} file(s) covered)`,
    );
    return 0;
  },
};
