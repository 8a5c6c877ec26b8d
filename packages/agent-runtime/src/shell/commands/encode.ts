import { createHash } from 'node:crypto';
import type { ShellCommand } from '../shell-types.js';
import { fileContent } from '../file-content.js';
import { inputText, parseArgs, readsFiles } from './text.js';

export const base64: ShellCommand = {
  name: 'base64',
  summary: 'encode (wrapped at 76, -w N; -w 0 no wrap) or decode (-d) base64 (file → fs_read)',
  tools: (argv) => readsFiles(parseArgs(argv, ['w']).operands),
  async run(ctx, argv) {
    const { flags, operands } = parseArgs(
      argv.map((a) => (a === '--decode' ? '-d' : a)),
      ['w'],
    );
    const text = await inputText(ctx, operands);
    if (flags.has('d')) {
      const clean = text.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) {
        ctx.err.write('base64: invalid input\n');
        return 1;
      }
      ctx.out.write(Buffer.from(clean, 'base64').toString('utf8'));
      return 0;
    }
    const wrap = flags.has('w') ? Number(flags.get('w')) : 76;
    const enc = Buffer.from(text, 'utf8').toString('base64');
    ctx.out.write(enc === '' ? '' : `${wrap > 0 ? enc.match(new RegExp(`.{1,${wrap}}`, 'g'))!.join('\n') : enc}\n`);
    return 0;
  },
};

const hashCommand = (name: string, algorithm: string): ShellCommand => ({
  name,
  summary: `${algorithm.toUpperCase()} digest of files or stdin (files → fs_read)`,
  tools: (argv) => readsFiles(parseArgs(argv).operands),
  async run(ctx, argv) {
    const { operands } = parseArgs(argv);
    for (const f of operands.length ? operands : ['-']) {
      const text = f === '-' ? ctx.stdin : fileContent(await ctx.tool('fs_read', { path: f }));
      ctx.out.write(`${createHash(algorithm).update(text, 'utf8').digest('hex')}  ${f}\n`);
    }
    return 0;
  },
});
export const sha256sum = hashCommand('sha256sum', 'sha256');
export const sha1sum = hashCommand('sha1sum', 'sha1');
export const md5sum = hashCommand('md5sum', 'md5');
