import { describe, expect, it } from 'vitest';
import { createShell } from './shell-interpreter.js';
import { createFakeShellGate } from './shell-test-gate.js';
import { EXIT_DENIED, EXIT_REJECTED } from './shell-types.js';

const files = { 'a.txt': 'keep me\n', 'lib.sh': 'greet() { echo "hi $1"; }\n' };

async function run(script: string, gateOptions: Parameters<typeof createFakeShellGate>[0] = {}) {
  const gate = createFakeShellGate({ files, ...gateOptions });
  const r = await createShell({ gate }).run(script);
  return { ...r, gate };
}

// Each script starts with a command that would print: a whole-script refusal prints nothing,
// calls no tool, and names what was refused and on which line.
describe('the whole script is checked before any command runs', () => {
  it.each([
    ['a disabled tool after other commands', 'echo first\nrm a.txt', /line 2: rm: fs_delete is not allowed/],
    ['inside $( … )', 'echo first; x=$(rm a.txt)', /line 1: rm: fs_delete/],
    ['inside a here-document', 'echo first\ncat <<EOF\n$(rm a.txt)\nEOF', /line 3: rm: fs_delete/],
    ['in a branch not taken', 'echo first; if false; then rm a.txt; fi', /rm: fs_delete/],
    ['in a function never called', 'echo first; f() { rm a.txt; }', /rm: fs_delete/],
    ['in find -exec … ;', 'echo first; find . -name a.txt -exec rm {} \\;', /rm: fs_delete/],
    ['in find -exec … +', 'echo first; find . -name "*.txt" -exec rm {} +', /rm: fs_delete/],
    ['in xargs', 'echo first; echo a.txt | xargs rm', /rm: fs_delete/],
    ['in sh -c', "echo first; sh -c 'echo inner; rm a.txt'", /line 1: sh: line 1: rm: fs_delete/],
    ['in eval', "echo first; eval 'rm a.txt'", /rm: fs_delete/],
    ['in env / timeout / nohup', 'echo first; env X=1 timeout 5 nohup rm a.txt', /rm: fs_delete/],
    ['a redirect', 'echo first; echo x > /tmp/out', /line 1: \(redirect\): fs_write/],
  ])('%s', async (_label, script, message) => {
    const r = await run(script, { disabled: ['fs_delete', 'fs_write'] });
    expect([r.exitCode, r.stdout]).toEqual([EXIT_DENIED, '']);
    expect(r.gate.calls).toEqual([]);
    expect(r.stderr).toMatch(/script refused before it ran/);
    expect(r.stderr).toMatch(message);
    expect(r.trace.some((t) => t.outcome === 'disabled')).toBe(true);
  });

  it.each([
    ['an unknown command', 'echo first\n\npython3 x.py', /line 3: python3: command not found/],
    ['an unknown command inside $( … )', 'echo first; echo $(jqq .)', /jqq: command not found/],
    ['an unknown command in find -exec', 'echo first; find . -exec file {} \\;', /file: command not found/],
    ['background jobs', 'echo first; sleep 1 &', /unsupported syntax: background jobs/],
    ['process substitution', 'echo first; cat <(echo x)', /unsupported syntax: process substitution/],
    ['select', 'echo first; select x in a; do :; done', /unsupported syntax: select loops/],
    ['associative arrays', 'echo first; declare -A m', /unsupported syntax: associative arrays/],
    ['a fourth file descriptor', 'echo first; echo x 3>f', /file descriptor 3/],
  ])('%s refuses the script with 126', async (_label, script, message) => {
    const r = await run(script);
    expect([r.exitCode, r.stdout]).toEqual([EXIT_DENIED, '']);
    expect(r.gate.calls).toEqual([]);
    expect(r.stderr).toMatch(message);
  });

  it('a rejected approval found by the check is 130', async () => {
    const r = await run('echo first; curl -s http://127.0.0.1:9/', { restricted: { sys_fetch: 'reject' } });
    expect([r.exitCode, r.stdout]).toEqual([EXIT_REJECTED, '']);
    expect(r.stderr).toMatch(/curl: sys_fetch was not approved/);
  });

  it('functions the script defines, builtins and `command -v NAME` operands are not unknown commands', async () => {
    const r = await run('f() { echo "f $1"; }; f x; command -v python3 || echo none; export A=1; echo $A');
    expect([r.exitCode, r.stdout]).toEqual([0, 'f x\nnone\n1\n']);
  });

  it('a script that sources a file may call the functions it defines', async () => {
    const r = await run('source lib.sh; greet you');
    expect([r.exitCode, r.stdout]).toEqual([0, 'hi you\n']);
  });

  it('a script run later (sourced, sh FILE) is checked as a whole when it starts', async () => {
    const r = await run('echo outer; source s.sh; echo $?', {
      disabled: ['fs_delete'],
      files: { 's.sh': 'echo inner\nrm a.txt\n', 'a.txt': 'keep' },
    });
    expect(r.stdout).toBe(`outer\n${EXIT_DENIED}\n`);
    expect(r.gate.files.get('a.txt')).toBe('keep');
  });
});

describe('find -exec runs each command through the gate', () => {
  const tree = { 'd/a.txt': 'one\n', 'd/b.md': 'two\nlines\n', 'd/c.txt': 'three\n' };
  it.each([
    ['find d -name "*.txt" -exec cat {} \\;', 'one\nthree\n'],
    ['find d -name "*.txt" -exec echo x {} +', 'x d/a.txt d/c.txt\n'],
    ['find d -type f \\( -name "*.md" -o -name "a*" \\) -print', 'd/a.txt\nd/b.md\n'],
    ['find d -iregex ".*/[AB]\\..*"', 'd/a.txt\nd/b.md\n'],
    ['find d ! -name "*.txt" -type f', 'd/b.md\n'],
    ['find d -type f -exec grep -q two {} \\; -print', 'd/b.md\n'],
  ])('%s', async (script, out) => {
    const r = await run(script, { files: tree });
    expect([r.stdout, r.exitCode]).toEqual([out, 0]);
    if (script.includes('-exec cat')) expect(r.trace.filter((t) => t.command === 'cat')).toHaveLength(2);
  });

  it('a command of -exec whose tool is refused at run time stops find with 126', async () => {
    const r = await run('c=rm; find d -name "*.txt" -exec $c {} \\;', { files: tree, disabled: ['fs_delete'] });
    expect(r.exitCode).toBe(EXIT_DENIED);
    expect(r.gate.files.has('d/a.txt')).toBe(true);
  });

  it('an unknown predicate is refused by name', async () => {
    const r = await run('find d -size +1k', { files: tree });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/unknown predicate `-size'/);
  });
});
