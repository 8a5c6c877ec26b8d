import type { ShellCommand } from '../shell-types.js';
import { fileContent } from '../file-content.js';

/** `sh -c SCRIPT [name args…]` / `sh FILE`: a child shell; each of its commands is gated again. */
const shellCmd = (name: string): ShellCommand => ({
  name,
  summary: `${name} -c SCRIPT, or ${name} FILE (→ fs_read); runs in the virtual shell`,
  tools: (argv) => (argv[0] === '-c' ? [] : ['fs_read']),
  nested: (argv) => (argv[0] === '-c' && argv[1] !== undefined ? { scripts: [argv[1]] } : {}),
  async run(ctx, argv) {
    if (argv[0] === '-c') return ctx.script(argv[1] ?? '', { child: true, args: argv.slice(3) });
    if (!argv[0]) return ctx.script(ctx.stdin, { child: true });
    return ctx.script(fileContent(await ctx.tool('fs_read', { path: argv[0] })), { child: true, args: argv.slice(1) });
  },
});
export const sh = shellCmd('sh');
export const bash = shellCmd('bash');

export const evalCmd: ShellCommand = {
  name: 'eval',
  summary: 'run words as shell source in this shell (each command gated)',
  tools: () => [],
  nested: (argv) => ({ scripts: [argv.join(' ')] }),
  run: (ctx, argv) => ctx.script(argv.join(' '), { child: false }),
};

const sourceCmd = (name: string): ShellCommand => ({
  name,
  summary: 'run a virtual file in this shell (→ fs_read; each command gated)',
  tools: () => ['fs_read'],
  async run(ctx, argv) {
    if (!argv[0]) {
      ctx.err.write(`${name}: filename argument required\n`);
      return 2;
    }
    return ctx.script(fileContent(await ctx.tool('fs_read', { path: argv[0] })), { child: false });
  },
});
export const source = sourceCmd('source');
export const dot = sourceCmd('.');

export const xargs: ShellCommand = {
  name: 'xargs',
  summary: 'run a command with stdin words as arguments (-n N, -I R); the command is gated',
  tools: () => [],
  nested: (argv) => ({ commands: [xargsCommand(argv)] }),
  async run(ctx, argv) {
    let i = 0;
    let perCall = Infinity;
    let replace: string | undefined;
    while (i < argv.length && argv[i]!.startsWith('-')) {
      if (argv[i] === '-n') {
        perCall = Math.max(1, Number(argv[i + 1]) || 1);
        i += 2;
      } else if (argv[i] === '-I') {
        replace = argv[i + 1];
        i += 2;
      } else if (argv[i]!.startsWith('-I')) {
        replace = argv[i]!.slice(2);
        i += 1;
      } else if (/^-n[0-9]+$/.test(argv[i]!)) {
        perCall = Math.max(1, Number(argv[i]!.slice(2)));
        i += 1;
      } else if (argv[i] === '-0' || argv[i] === '-r') {
        i++;
      } else {
        ctx.err.write(`xargs: option ${argv[i]} is not supported\n`);
        return 2;
      }
    }
    const base = argv.slice(i).length ? argv.slice(i) : ['echo'];
    const words =
      replace !== undefined ? ctx.stdin.split('\n').filter(Boolean) : ctx.stdin.split(/\s+/).filter(Boolean);
    if (words.length === 0) return 0;
    let status = 0;
    if (replace !== undefined) {
      const r = replace;
      for (const w of words) {
        const s = await ctx.command(base.map((a) => a.split(r).join(w)));
        if (s === 126 || s === 130) return s;
        if (s !== 0) status = 123;
      }
      return status;
    }
    for (let k = 0; k < words.length; k += perCall === Infinity ? words.length : perCall) {
      const s = await ctx.command([...base, ...words.slice(k, perCall === Infinity ? words.length : k + perCall)]);
      if (s === 126 || s === 130) return s;
      if (s !== 0) status = 123;
    }
    return status;
  },
};

/** The command xargs runs (its options skipped; `echo` when there is none). */
function xargsCommand(argv: readonly string[]): readonly string[] {
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-')) i += argv[i] === '-n' || argv[i] === '-I' ? 2 : 1;
  return argv.length > i ? argv.slice(i) : ['echo'];
}
