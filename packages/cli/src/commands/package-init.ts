import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import type { CommandSpec } from '../command.js';
import { stringOption } from '../args.js';
import { CliError, usageError } from '../cli-error.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'package init',
  summary: 'create a plugin package directory with a package.toml',
  description:
    'Creates a package directory: package.toml (deny-all capabilities) and plugin.wasm, a small sample\n' +
    'component that exports add(a, b) and hello(). Replace plugin.wasm with your own component and\n' +
    'list the capabilities it needs.',
  positionals: [
    {
      name: 'dir',
      description: 'the directory to create (default: the current directory, which must be empty)',
      required: false,
    },
  ],
  options: {
    name: { type: 'string', valueName: 'name', description: 'package name (default: the directory name)' },
  },
  examples: [
    { command: 'trust package init hello', explain: 'a new package in ./hello' },
    {
      command: 'trust package init hello && trust run hello add 2 3 --allow-unsigned',
      explain: 'create it and run it at once',
    },
  ],
  jsonShape: '{ "dir": string, "name": string, "files": string[] }',
  async run({ io, out, values, positionals }) {
    const dir = resolve(io.cwd, positionals[0] ?? '.');
    const name =
      stringOption(values, 'name') ??
      basename(dir)
        .toLowerCase()
        .replace(/[^a-z0-9._-]/g, '-')
        .replace(/^[^a-z0-9]+/, '');
    if (!/^[a-z0-9][a-z0-9._-]{0,63}$/.test(name)) {
      throw usageError(
        'CLI_USAGE_INVALID_VALUE',
        `'${name}' is not a valid package name`,
        'use lowercase letters, digits, ".", "_" or "-" (up to 64), e.g. --name hello',
      );
    }
    await mkdir(dir, { recursive: true });
    const existing = await readdir(dir);
    if (existing.length > 0) {
      throw new CliError('CLI_FILE_EXISTS', `${dir} is not empty`, {
        hint: 'choose a new directory: trust package init <dir>',
      });
    }
    const { sampleComponent, sampleManifest } = await import('@trust/workspace');
    await writeFile(join(dir, 'package.toml'), sampleManifest(name));
    await writeFile(join(dir, 'plugin.wasm'), sampleComponent());
    const files = ['package.toml', 'plugin.wasm'];
    out.result({ dir, name, files });
    out.line(`${out.style.green('created')} plugin package ${escapeTerminal(name)} in ${escapeTerminal(dir)}`);
    for (const f of files) out.line(`  ${f}`);
    out.line('next: trust package inspect, trust keygen, trust package sign --key signing.key, trust run');
    return 0;
  },
};
