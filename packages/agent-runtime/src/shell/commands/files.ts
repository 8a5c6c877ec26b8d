import type { ShellCommand } from '../shell-types.js';
import { fileContent } from '../file-content.js';
import { parseArgs } from './text.js';

interface Listed {
  path: string;
  size?: number;
}

export function listedFiles(result: unknown): Listed[] {
  const arr = Array.isArray(result) ? result : (result as { files?: unknown })?.files;
  if (!Array.isArray(arr)) return [];
  return arr.map((f) =>
    typeof f === 'string' ? { path: f } : { path: String((f as Listed).path), size: (f as Listed).size },
  );
}

export const ls: ShellCommand = {
  name: 'ls',
  summary: 'list virtual files by prefix (-l sizes) (→ fs_list)',
  tools: () => ['fs_list'],
  async run(ctx, argv) {
    const { flags, operands } = parseArgs(argv);
    const prefixes = operands.length ? operands : [''];
    for (const p of prefixes) {
      const prefix = p === '.' || p === './' ? '' : p.replace(/^\.\//, '');
      for (const f of listedFiles(await ctx.tool('fs_list', prefix ? { prefix } : {})))
        ctx.out.write(flags.has('l') ? `${String(f.size ?? '').padStart(8)} ${f.path}\n` : `${f.path}\n`);
    }
    return 0;
  },
};

export const rm: ShellCommand = {
  name: 'rm',
  summary: 'delete virtual files (-f ignore missing) (→ fs_delete)',
  tools: () => ['fs_delete'],
  async run(ctx, argv) {
    const { flags, operands } = parseArgs(argv);
    let status = 0;
    for (const path of operands) {
      try {
        await ctx.tool('fs_delete', { path });
      } catch (e) {
        if (
          flags.has('f') &&
          /not.?found|NOT_FOUND/i.test(`${(e as { code?: string }).code ?? ''} ${(e as Error).message}`)
        )
          continue;
        ctx.err.write(`rm: ${path}: ${(e as Error).message}\n`);
        status = 1;
      }
    }
    return status;
  },
};

export const cp: ShellCommand = {
  name: 'cp',
  summary: 'copy a virtual file (→ fs_read, fs_write)',
  tools: () => ['fs_read', 'fs_write'],
  async run(ctx, argv) {
    const { operands } = parseArgs(argv);
    if (operands.length !== 2) {
      ctx.err.write('usage: cp SOURCE DEST\n');
      return 2;
    }
    const content = fileContent(await ctx.tool('fs_read', { path: operands[0] }));
    await ctx.tool('fs_write', { path: operands[1], content, mode: 'write' });
    return 0;
  },
};

export const mv: ShellCommand = {
  name: 'mv',
  summary: 'move a virtual file (→ fs_read, fs_write, fs_delete)',
  tools: () => ['fs_read', 'fs_write', 'fs_delete'],
  async run(ctx, argv) {
    const { operands } = parseArgs(argv);
    if (operands.length !== 2) {
      ctx.err.write('usage: mv SOURCE DEST\n');
      return 2;
    }
    const content = fileContent(await ctx.tool('fs_read', { path: operands[0] }));
    await ctx.tool('fs_write', { path: operands[1], content, mode: 'write' });
    await ctx.tool('fs_delete', { path: operands[0] });
    return 0;
  },
};

export const touch: ShellCommand = {
  name: 'touch',
  summary: 'create an empty virtual file if missing (→ fs_write)',
  tools: () => ['fs_write'],
  async run(ctx, argv) {
    for (const path of parseArgs(argv).operands) await ctx.tool('fs_write', { path, content: '', mode: 'append' });
    return 0;
  },
};
