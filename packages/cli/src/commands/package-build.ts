import { createHash } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { CommandSpec } from '../command.js';
import { stringOption } from '../args.js';
import { readPackage } from '../plugin-files.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'package build',
  summary: 'pack a plugin package directory into a .tpkg archive',
  description:
    'Validates package.toml (unknown keys and bad capabilities are errors) and packs every file of the\n' +
    'directory, package.sig included when present, into one .tpkg archive (tar + gzip).',
  positionals: [
    { name: 'dir', description: 'the package directory (default: the current directory)', required: false },
  ],
  options: {
    out: {
      type: 'string',
      short: 'o',
      valueName: 'file',
      description: 'the archive to write (default: <name>-<version>.tpkg)',
    },
  },
  examples: [
    { command: 'trust package build hello', explain: 'writes hello-0.1.0.tpkg' },
    {
      command: 'trust package sign hello --key signing.key && trust package build hello -o dist/hello.tpkg',
      explain: 'sign, then pack',
    },
  ],
  jsonShape:
    '{ "dir": string, "out": string, "bytes": number, "sha256": string, "files": string[], "signed": boolean }',
  async run({ io, out, values, positionals }) {
    const { packPackage, parseManifest, PACKAGE_EXTENSION, SIGNATURE_FILE } = await import('@trust/wasm-host');
    const pkg = await readPackage(io.cwd, positionals[0] ?? '.');
    const manifest = parseManifest(
      Buffer.from(pkg.files.files.get('package.toml') ?? new Uint8Array()).toString('utf8'),
    );
    out.progress(`packing ${pkg.files.files.size} file(s)`);
    const archive = await packPackage(pkg.files);
    const target = resolve(
      io.cwd,
      stringOption(values, 'out') ?? `${manifest.name}-${manifest.version}${PACKAGE_EXTENSION}`,
    );
    await writeFile(target, archive);
    const sha256 = createHash('sha256').update(archive).digest('hex');
    const files = [...pkg.files.files.keys()].sort();
    const signed = pkg.files.files.has(SIGNATURE_FILE);
    out.result({ dir: pkg.path, out: target, bytes: archive.length, sha256, files, signed });
    out.line(
      `${out.style.green('built')} ${escapeTerminal(basename(target))} (${archive.length} ` +
        `bytes, ${files.length} files, ${signed ? 'signed' : out.style.yellow('unsigned')})`,
    );
    out.line(`  sha256 ${sha256}`);
    return 0;
  },
};
