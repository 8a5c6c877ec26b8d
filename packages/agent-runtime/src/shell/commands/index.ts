import type { ShellCommand } from '../shell-types.js';
import { bracket, cat, colon, echo, falseCmd, grep, head, printf, seq, sort, tail, test, tr, trueCmd, uniq, wc } from './text.js';
import { cp, ls, mv, rm, touch } from './files.js';
import { curl, node, sqlite3 } from './tools.js';
import { bash, dot, evalCmd, sh, source, xargs } from './control.js';
import { jq } from './json.js';

/**
 * The default commands of `adf_shell`, by name. Each declares the tools it resolves to; a
 * caller may pass its own map to add or remove commands.
 */
export function createDefaultCommands(): ReadonlyMap<string, ShellCommand> {
  const all = [echo, printf, trueCmd, falseCmd, colon, cat, grep, head, tail, wc, sort, uniq, tr, test, bracket, seq, ls, rm, cp, mv, touch, curl, sqlite3, node, sh, bash, evalCmd, source, dot, xargs, jq];
  const map = new Map<string, ShellCommand>(all.map((c) => [c.name, c]));
  const help: ShellCommand = {
    name: 'help', summary: 'list the commands of this virtual shell', tools: () => [],
    async run(ctx) { for (const c of [...map.values()].sort((a, b) => a.name.localeCompare(b.name))) ctx.out.write(`${c.name.padEnd(8)} ${c.summary}\n`); return 0; },
  };
  map.set('help', help);
  return map;
}

export { parseArgs } from './text.js';
