import type { CommandContext, ShellCommand } from '../shell-types.js';
import { DYNAMIC_WORD } from '../shell-types.js';
import { FindSyntaxError, planFind } from './find-expr.js';
import type { FindEntry, FindExpr } from './find-expr.js';
import { normalizeShellPath } from '../shell-path.js';
import { listedFiles } from './files.js';

export const tee: ShellCommand = {
  name: 'tee',
  summary: 'copy stdin to stdout and to files (-a append) (→ fs_write)',
  tools: (argv) => (argv.some((a) => !a.startsWith('-')) ? ['fs_write'] : []),
  async run(ctx, argv) {
    const append = argv.includes('-a') || argv.includes('--append');
    ctx.out.write(ctx.stdin);
    for (const path of argv.filter((a) => !a.startsWith('-')))
      await ctx.tool('fs_write', { path, content: ctx.stdin, mode: append ? 'append' : 'write' });
    return 0;
  },
};

export const mkdir: ShellCommand = {
  name: 'mkdir',
  summary:
    'directories are implicit in the virtual file store (a file path creates them): checks that fs_write is ' +
    'allowed, writes nothing (-p accepted) (→ fs_write)',
  tools: () => ['fs_write'],
  async run(ctx, argv) {
    if (argv.filter((a) => !a.startsWith('-')).length === 0) {
      ctx.err.write('mkdir: missing operand\n');
      return 1;
    }
    return 0;
  },
};

export const find: ShellCommand = {
  name: 'find',
  summary:
    'list virtual files under paths: ( ) ! -a -o, -name -iname -path -ipath -regex -iregex -type f|d -empty ' +
    '-maxdepth -mindepth, -print, -delete (→ fs_delete), -exec CMD {} ; and -exec CMD {} + (CMD is gated) (→ fs_list)',
  tools(argv) {
    try {
      return planFind(argv).deletes ? ['fs_list', 'fs_delete'] : ['fs_list'];
    } catch {
      return ['fs_list']; // refused with its message when it runs
    }
  },
  nested: (argv) => ({ commands: planFind(argv).execs.map((c) => c.map((w) => (w === '{}' ? DYNAMIC_WORD : w))) }),
  async run(ctx, argv) {
    let plan: ReturnType<typeof planFind>;
    try {
      plan = planFind(argv);
    } catch (e) {
      if (!(e instanceof FindSyntaxError)) throw e;
      ctx.err.write(`${e.message}\n`);
      return 1;
    }
    let status = 0;
    const batches = new Map<FindExpr, string[]>();
    const evaluate = async (x: FindExpr, e: FindEntry): Promise<boolean> => {
      switch (x.kind) {
        case 'and':
          return (await evaluate(x.x, e)) && evaluate(x.y, e);
        case 'or':
          return (await evaluate(x.x, e)) || evaluate(x.y, e);
        case 'not':
          return !(await evaluate(x.x, e));
        case 'test':
          return x.test(e);
        case 'print':
          ctx.out.write(`${e.shown}\n`);
          return true;
        case 'delete':
          if (!e.dir) await ctx.tool('fs_delete', { path: e.path });
          return true;
        case 'exec': {
          if (x.batch) {
            batches.set(x, [...(batches.get(x) ?? []), e.shown]);
            return true;
          }
          const s = await ctx.command(x.argv.map((w) => w.split('{}').join(e.shown)));
          if (s === 126 || s === 130) throw new FindRefused(s);
          return s === 0;
        }
      }
    };
    try {
      for (const root of plan.roots) {
        const entries = await findEntries(ctx, root);
        if (entries === undefined) {
          ctx.err.write(`find: '${root}': No such file or directory\n`);
          status = 1;
          continue;
        }
        for (const e of entries) {
          if (plan.maxdepth !== undefined && e.depth > plan.maxdepth) continue;
          if (plan.mindepth !== undefined && e.depth < plan.mindepth) continue;
          if ((await evaluate(plan.expr, e)) && !plan.acts) ctx.out.write(`${e.shown}\n`);
        }
      }
      for (const [x, paths] of batches) {
        if (x.kind !== 'exec') continue;
        const at = x.argv.lastIndexOf('{}');
        const s = await ctx.command([...x.argv.slice(0, at), ...paths, ...x.argv.slice(at + 1)]);
        if (s === 126 || s === 130) return s;
        if (s !== 0) status = 1;
      }
    } catch (e) {
      if (e instanceof FindRefused) return e.status;
      throw e;
    }
    return status;
  },
};

/** A command of `-exec` the gate refused: find stops with its status. */
class FindRefused extends Error {
  constructor(readonly status: number) {
    super('refused');
  }
}

/** The entries under a root, sorted, or `undefined` when nothing is there. */
async function findEntries(ctx: CommandContext, root: string): Promise<FindEntry[] | undefined> {
  const base = normalizeShellPath(root).replace(/\/+$/, '');
  const all = base === '' || base === '.';
  const listing = listedFiles(await ctx.tool('fs_list', all ? {} : { prefix: `${base}/` }));
  const files = listing.map((f) => f.path);
  const exact = all
    ? []
    : listedFiles(await ctx.tool('fs_list', { prefix: base }))
        .filter((f) => f.path === base)
        .map((f) => f.path);
  if (files.length === 0 && exact.length === 0) return undefined;
  const display = (p: string) =>
    all
      ? (root.endsWith('/') ? root : `${root}/`) + p
      : p === base
        ? root
        : root.replace(/\/+$/, '') + p.slice(base.length);
  const raw: Array<{ path: string; dir: boolean }> = [];
  if (files.length > 0) raw.push({ path: all ? '' : base, dir: true });
  const dirs = new Set<string>();
  for (const f of files) {
    const parts = f.split('/');
    for (let k = 1; k < parts.length; k++) dirs.add(parts.slice(0, k).join('/'));
  }
  for (const d of [...dirs].sort()) if (all || d.startsWith(`${base}/`)) raw.push({ path: d, dir: true });
  for (const f of [...exact, ...files]) raw.push({ path: f, dir: false });
  raw.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
  return raw.map((e) => ({
    path: e.path,
    dir: e.dir,
    shown: e.path === '' ? root : display(e.path),
    depth: e.path === (all ? '' : base) ? 0 : (all ? e.path : e.path.slice(base.length + 1)).split('/').length,
    empty: false,
  }));
}
