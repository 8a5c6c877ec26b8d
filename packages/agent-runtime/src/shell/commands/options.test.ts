import { describe, expect, it } from 'vitest';
import { createShell } from '../shell-interpreter.js';
import { createFakeShellGate } from '../shell-test-gate.js';
import { builtinCommands } from './builtins.js';
import { createDefaultCommands } from './index.js';
import { parseOptions, UsageError } from './options.js';

// Commands that read their argv themselves, with the reason. Every other command declares an
// option table; this list must name exactly the rest, so a new command has to choose.
const OWN_ARGV: Readonly<Record<string, string>> = {
  echo: 'bash prints an unknown option as text',
  printf: 'the first word is the format',
  true: 'ignores its arguments, as bash does',
  false: 'ignores its arguments, as bash does',
  ':': 'ignores its arguments, as bash does',
  test: 'operands are an expression',
  '[': 'operands are an expression',
  sh: 'runs a script', // -c SCRIPT, then the script's own arguments
  bash: 'runs a script',
  eval: 'runs its words as source',
  source: 'runs a file',
  '.': 'runs a file',
  xargs: 'options, then a command with its own options',
  env: 'NAME=VALUE words, then a command',
  timeout: 'a duration, then a command',
  nohup: 'a command',
  exec: 'a command',
  command: 'a command',
  find: 'an expression of predicates (unknown ones are refused by name)',
  awk: 'a program',
  sed: 'a script',
  jq: 'a filter',
  help: 'command names',
  expr: 'operands are an expression (-1 is a number)',
  // not yet converted to a table: they parse their own flags and may ignore one they do not know
  seq: 'not yet converted',
  cut: 'not yet converted',
  paste: 'not yet converted',
  comm: 'not yet converted',
  rev: 'not yet converted',
  dirname: 'not yet converted',
  base64: 'not yet converted',
  sha256sum: 'not yet converted',
  sha1sum: 'not yet converted',
  md5sum: 'not yet converted',
  ls: 'not yet converted',
  rm: 'not yet converted',
  cp: 'not yet converted',
  mv: 'not yet converted',
  touch: 'not yet converted',
  tee: 'not yet converted',
  mkdir: 'not yet converted',
  realpath: 'not yet converted',
  curl: 'not yet converted',
  sqlite3: 'not yet converted',
  node: 'not yet converted',
  msg: 'not yet converted',
  config: 'not yet converted',
  mcp: 'not yet converted',
  at: 'not yet converted',
  crontab: 'not yet converted',
  date: 'not yet converted',
};

const commands = createDefaultCommands();
const tabled = [...commands.values()].filter((c) => c.options !== undefined);

describe('every command reads its options by one declared table', () => {
  it('the commands without a table are exactly the listed ones', () => {
    const builtins = new Set(builtinCommands().map((c) => c.name));
    const without = [...commands.values()]
      .filter((c) => c.options === undefined && !builtins.has(c.name))
      .map((c) => c.name);
    expect(without.sort()).toEqual(Object.keys(OWN_ARGV).sort());
    expect(tabled.map((c) => c.name).sort()).toEqual(
      [
        'basename',
        'cat',
        'diff',
        'fold',
        'grep',
        'head',
        'nl',
        'printenv',
        'sort',
        'tac',
        'tail',
        'tr',
        'uniq',
        'wc',
      ].sort(),
    );
  });

  it.each(tabled.map((c) => [c.name]))('%s refuses an unknown short and long option with exit 2', async (name) => {
    const table = commands.get(name)!.options!;
    const letter = [...'ZQYXWVUTSRPONLKJGFDBA'].find((c) => !`${table.flags ?? ''}${table.values ?? ''}`.includes(c))!;
    const gate = createFakeShellGate({ files: { 'a.txt': 'x\n' } });
    const shell = createShell({ gate });
    const short = await shell.run(`${name} -${letter} a.txt`);
    expect(short.exitCode).toBe(2);
    expect(short.stderr).toContain(`invalid option -- '${letter}'`);
    const long = await shell.run(`${name} --no-such-option a.txt`);
    expect(long.exitCode).toBe(2);
    expect(long.stderr).toContain("unrecognized option '--no-such-option'");
    expect(gate.calls).toEqual([]);
  });
});

describe('parseOptions', () => {
  const table = { flags: 'rn', values: 'k', numeric: 'n', long: { key: { key: 'k', value: true } } };
  it.each([
    [['-rk2', 'f'], { r: '', k: '2' }, ['f']],
    [['-k', '2', '--', '-r'], { k: '2' }, ['-r']],
    [['--key=3', 'f', '-n'], { k: '3', n: '' }, ['f']],
    [['-5'], { n: '5' }, []],
    [['-', 'x'], {}, ['-', 'x']],
  ])('%j', (argv, flags, operands) => {
    const r = parseOptions('t', table, argv);
    expect(Object.fromEntries(r.flags)).toEqual(flags);
    expect(r.operands).toEqual(operands);
  });

  it.each([
    [['-x'], "t: invalid option -- 'x'"],
    [['--nope'], "t: unrecognized option '--nope'"],
    [['-k'], "t: option requires an argument -- 'k'"],
    [['--key'], "t: option '--key' requires an argument"],
  ])('%j is refused', (argv, message) => {
    expect(() => parseOptions('t', table, argv)).toThrow(UsageError);
    expect(() => parseOptions('t', table, argv)).toThrow(message);
  });
});
