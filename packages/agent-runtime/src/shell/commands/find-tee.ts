import type { ShellCommand } from '../shell-types.js';
import { matchCasePattern } from '../shell-expand.js';
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

interface FindPlan {
  roots: string[];
  name?: string;
  iname?: string;
  path?: string;
  type?: 'f' | 'd';
  maxdepth?: number;
  del: boolean;
  error?: string;
}

function planFind(argv: readonly string[]): FindPlan {
  const plan: FindPlan = { roots: [], del: false };
  let i = 0;
  for (; i < argv.length && !argv[i]!.startsWith('-'); i++) plan.roots.push(argv[i]!);
  for (; i < argv.length; i++) {
    const a = argv[i]!;
    const v = argv[i + 1];
    if (a === '-name' && v !== undefined) {
      plan.name = v;
      i++;
    } else if (a === '-iname' && v !== undefined) {
      plan.iname = v;
      i++;
    } else if (a === '-path' && v !== undefined) {
      plan.path = v;
      i++;
    } else if (a === '-type' && (v === 'f' || v === 'd')) {
      plan.type = v;
      i++;
    } else if (a === '-maxdepth' && v !== undefined && /^[0-9]+$/.test(v)) {
      plan.maxdepth = Number(v);
      i++;
    } else if (a === '-delete') plan.del = true;
    else if (a === '-print') {
      /* the default */
    } else
      return {
        ...plan,
        error: `find: ${a} is not supported (supported: -name -iname -path -type f|d -maxdepth -delete -print)`,
      };
  }
  if (plan.roots.length === 0) plan.roots.push('.');
  return plan;
}

export const find: ShellCommand = {
  name: 'find',
  summary:
    'list virtual files under paths: -name -iname -path -type f|d -maxdepth -print; -delete removes matches ' +
    '(→ fs_list, -delete → fs_delete)',
  tools: (argv) => (planFind(argv).del ? ['fs_list', 'fs_delete'] : ['fs_list']),
  async run(ctx, argv) {
    const plan = planFind(argv);
    if (plan.error) {
      ctx.err.write(`${plan.error}\n`);
      return 1;
    }
    let status = 0;
    for (const root of plan.roots) {
      const base = normalizeShellPath(root).replace(/\/+$/, '');
      const all = base === '' || base === '.';
      const files = listedFiles(await ctx.tool('fs_list', all ? {} : { prefix: `${base}/` })).map((f) => f.path);
      const exact = all
        ? []
        : listedFiles(await ctx.tool('fs_list', { prefix: base }))
            .filter((f) => f.path === base)
            .map((f) => f.path);
      if (files.length === 0 && exact.length === 0) {
        ctx.err.write(`find: '${root}': No such file or directory\n`);
        status = 1;
        continue;
      }
      const display = (p: string) =>
        all
          ? (root.endsWith('/') ? root : `${root}/`) + p
          : p === base
            ? root
            : root.replace(/\/+$/, '') + p.slice(base.length);
      const entries: Array<{ path: string; dir: boolean }> = [];
      if (files.length > 0) entries.push({ path: all ? '' : base, dir: true });
      const dirs = new Set<string>();
      for (const f of files) {
        const parts = f.split('/');
        for (let k = 1; k < parts.length; k++) dirs.add(parts.slice(0, k).join('/'));
      }
      for (const d of [...dirs].sort()) if (all || d.startsWith(`${base}/`)) entries.push({ path: d, dir: true });
      for (const f of [...exact, ...files]) entries.push({ path: f, dir: false });
      entries.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
      for (const e of entries) {
        const shown = e.path === '' ? root : display(e.path);
        const depth =
          e.path === (all ? '' : base) ? 0 : (all ? e.path : e.path.slice(base.length + 1)).split('/').length;
        if (plan.maxdepth !== undefined && depth > plan.maxdepth) continue;
        const leaf = shown.replace(/\/+$/, '').split('/').pop() ?? shown;
        if (plan.type && (plan.type === 'd') !== e.dir) continue;
        if (plan.name !== undefined && !matchCasePattern(leaf, plan.name)) continue;
        if (plan.iname !== undefined && !matchCasePattern(leaf.toLowerCase(), plan.iname.toLowerCase())) continue;
        if (plan.path !== undefined && !matchCasePattern(shown, plan.path)) continue;
        if (plan.del) {
          if (!e.dir) await ctx.tool('fs_delete', { path: e.path });
          continue;
        }
        ctx.out.write(`${shown}\n`);
      }
    }
    return status;
  },
};
