import { writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CommandSpec } from '../command.js';
import { stringOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'keygen',
  summary: 'create an Ed25519 signing key pair for plugin packages',
  description:
    'Writes <name>.key (the private key, mode 0600: keep it secret) and <name>.pub (give it to\n' +
    'the hosts that should trust your packages). Both are versioned trust-key files with a key id.',
  positionals: [],
  options: {
    out: {
      type: 'string',
      short: 'o',
      valueName: 'name',
      description: 'file name without extension (default: signing, in the current directory)',
    },
    force: { type: 'boolean', description: 'overwrite existing key files' },
  },
  examples: [
    { command: 'trust keygen', explain: 'signing.key and signing.pub in the current directory' },
    { command: 'trust keygen --out ~/.trust/keys/release', explain: 'a named key elsewhere' },
    { command: 'trust keygen --json | jq -r .result.keyId', explain: 'the key id, for a script' },
  ],
  jsonShape: '{ "keyId": string, "alg": "ed25519", "privateKeyFile": string, "publicKeyFile": string }',
  async run({ io, out, values }) {
    const { formatKeyFile, generateSigningKey } = await import('@trust/wasm-host');
    const base = resolve(io.cwd, stringOption(values, 'out') ?? 'signing');
    const privateKeyFile = `${base}.key`;
    const publicKeyFile = `${base}.pub`;
    for (const f of [privateKeyFile, publicKeyFile]) {
      if (existsSync(f) && values.force !== true) {
        throw new CliError('CLI_FILE_EXISTS', `${f} already exists`, {
          hint: 'choose another --out name, or pass --force to replace it (the old key is lost)',
        });
      }
    }
    const { privateKey, publicKey } = generateSigningKey();
    await writeFile(privateKeyFile, formatKeyFile(privateKey), { mode: 0o600 });
    await writeFile(publicKeyFile, formatKeyFile(publicKey), { mode: 0o644 });
    out.result({ keyId: privateKey.keyId, alg: 'ed25519', privateKeyFile, publicKeyFile });
    out.line(`${out.style.green('created')} key ${privateKey.keyId}`);
    out.line(`  private: ${escapeTerminal(privateKeyFile)} (mode 0600, keep it secret)`);
    out.line(`  public:  ${escapeTerminal(publicKeyFile)} (hosts pass it as --trusted)`);
    return 0;
  },
};
