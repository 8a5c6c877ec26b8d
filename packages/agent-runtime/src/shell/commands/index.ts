import type { ShellCommand } from '../shell-types.js';
import { bracket, cat, colon, echo, falseCmd, grep, head, printf, seq, tail, test, trueCmd, wc } from './text.js';
import { sort, uniq } from './sort.js';
import { tr } from './tr.js';
import { expr, fold, printenv, tac } from './more-text.js';
import { cp, ls, mv, rm, touch } from './files.js';
import { curl, node, sqlite3 } from './tools.js';
import { bash, dot, evalCmd, sh, source, xargs } from './control.js';
import { jq } from './json.js';
import { basename, comm, cut, dirname, nl, paste, rev } from './columns.js';
import { sed } from './sed.js';
import { awk } from './awk.js';
import { diff } from './diff.js';
import { base64, md5sum, sha1sum, sha256sum } from './encode.js';
import { find, mkdir, tee } from './find-tee.js';
import { command, date, env, exec, nohup, realpath, timeout } from './process.js';
import { at, config, crontab, mcp, msg } from './agent.js';
import { builtinCommands } from './builtins.js';

/**
 * The default commands of `adf_shell`, by name. Each declares the tools it resolves to; a
 * caller may pass its own map to add or remove commands.
 */
export function createDefaultCommands(): ReadonlyMap<string, ShellCommand> {
  const all = [
    echo,
    printf,
    trueCmd,
    falseCmd,
    colon,
    cat,
    grep,
    head,
    tail,
    wc,
    sort,
    uniq,
    tr,
    test,
    bracket,
    seq,
    cut,
    paste,
    comm,
    nl,
    rev,
    basename,
    dirname,
    sed,
    awk,
    diff,
    base64,
    sha256sum,
    sha1sum,
    md5sum,
    ls,
    rm,
    cp,
    mv,
    touch,
    tee,
    mkdir,
    find,
    realpath,
    curl,
    sqlite3,
    node,
    msg,
    config,
    mcp,
    at,
    crontab,
    sh,
    bash,
    evalCmd,
    source,
    dot,
    xargs,
    env,
    timeout,
    nohup,
    exec,
    command,
    date,
    jq,
    tac,
    fold,
    printenv,
    expr,
    ...builtinCommands(),
  ];
  const map = new Map<string, ShellCommand>(all.map((c) => [c.name, c]));
  const help: ShellCommand = {
    name: 'help',
    summary: 'list the commands of this virtual shell',
    tools: () => [],
    async run(ctx, argv) {
      const pick = argv.length
        ? argv.map((n) => map.get(n)).filter((c): c is ShellCommand => c !== undefined)
        : [...map.values()].sort((a, b) => a.name.localeCompare(b.name));
      for (const c of pick) ctx.out.write(`${c.name.padEnd(9)} ${c.summary}\n`);
      return pick.length > 0 || argv.length === 0 ? 0 : 1;
    },
  };
  map.set('help', help);
  return map;
}

export { parseArgs } from './text.js';
