import { describe, expect, it } from 'vitest';
import { createShell } from './shell-interpreter.js';
import { createFakeShellGate } from './shell-test-gate.js';

const files = { 'notes.txt': 'one\ntwo\n', 'dir/a.txt': 'A\n' };

async function run(script: string, gateOptions: Parameters<typeof createFakeShellGate>[0] = {}) {
  const gate = createFakeShellGate({ files, ...gateOptions });
  const r = await createShell({ gate }).run(script);
  return { ...r, gate };
}

describe('syntax the shell now supports', () => {
  it.each([
    ['brace list', 'echo a{b,c}d', 'abd acd\n'],
    ['brace sequence', 'echo {1..3} {a..c} {3..1} {01..03}', '1 2 3 a b c 3 2 1 01 02 03\n'],
    ['brace with step', 'echo {0..10..5}', '0 5 10\n'],
    ['nested braces', 'echo {a,b{1,2}}', 'a b1 b2\n'],
    ['quoted braces stay', 'echo "{a,b}" \'{1..2}\'', '{a,b} {1..2}\n'],
    ['braces in for', 'for i in {1..3}; do echo -n $i; done; echo', '123\n'],
    ['assignment keeps braces', 'x={a,b}; echo "$x"', '{a,b}\n'],
    ['./relative paths', 'cat ./notes.txt ./dir/../dir/a.txt', 'one\ntwo\nA\n'],
    ['printf -v', 'printf -v out "%s-%03d" x 7; echo "$out"', 'x-007\n'],
    [
      'arrays',
      'a=(x "y z" w); echo ${a[1]} ${#a[@]} "${a[@]}" $a; a[3]=v; echo ${a[-1]} ${#a[@]}',
      'y z 3 x y z w x\nv 4\n',
    ],
    ['array append and loop', 'a=(1 2); a+=(3); for e in "${a[@]}"; do echo -n "<$e>"; done; echo', '<1><2><3>\n'],
    ['empty array in quotes gives no word', 'a=(); set -- "${a[@]}"; echo $#', '0\n'],
    ['xargs -I{} without a space', 'printf "a\\nb\\n" | xargs -I{} echo "[{}]"', '[a]\n[b]\n'],
    ['read in a loop', 'printf "a b\\nc d\\n" | while read x y; do echo "$y$x"; done', 'ba\ndc\n'],
    ['read -r and REPLY', 'read -r <<< "a\\\\b"; echo "$REPLY"', 'a\\b\n'],
    ['local restores', 'x=1; f() { local x=2; echo $x; }; f; echo $x', '2\n1\n'],
    ['arithmetic extras', 'echo $((2**10)) $((-3+1)) $((7%3)) $((1<<4)) $((!0))', '1024 -2 1 16 1\n'],
    ['printf formats', 'printf "%5.2f|%-4s|%x|%c|%e\\n" 3.14159 ab 255 hello 1234.5', ' 3.14|ab  |ff|h|1.234500e+03\n'],
  ])('%s', async (_label, script, out) => {
    const r = await run(script);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(out);
  });

  it('>& FILE and &> FILE write both streams to the file', async () => {
    const r = await run('{ echo out; echo err >&2; } >& both.txt; { echo o2; echo e2 >&2; } &> both2.txt');
    expect(r.stdout).toBe('');
    expect(r.gate.files.get('both.txt')).toBe('out\nerr\n');
    expect(r.gate.files.get('both2.txt')).toBe('o2\ne2\n');
  });

  it('combined short flags of curl: -so FILE writes the body to the file', async () => {
    const r = await run('curl -so page.html http://127.0.0.1:9/p; curl -sSL http://127.0.0.1:9/q');
    expect(r.exitCode).toBe(0);
    expect(r.gate.files.get('page.html')).toBe('fetched http://127.0.0.1:9/p');
    expect(r.stdout).toBe('fetched http://127.0.0.1:9/q');
  });

  it('curl -so declares fs_write, so a disabled fs_write refuses it before the fetch', async () => {
    const r = await run('curl -so page.html http://127.0.0.1:9/p', { disabled: ['fs_write'] });
    expect(r.exitCode).toBe(126);
    expect(r.gate.calls).toEqual([]);
  });

  it.each([
    ['process substitution', 'cat <(echo x)', /unsupported syntax: process substitution/],
    ['C-style for', 'for ((i=0;i<2;i++)); do :; done', /unsupported syntax: C-style for loops/],
    ['arithmetic command', '((x=1))', /unsupported syntax: arithmetic command/],
    ['background job', 'echo a &', /unsupported syntax: background jobs/],
    ['select', 'select x in a b; do :; done', /unsupported syntax: select loops/],
    ['associative array', 'declare -A m', /unsupported syntax: associative arrays/],
    ['substring expansion', 'x=abc; echo ${x:1:1}', /unsupported syntax: substring expansion/],
    ['indirect expansion', 'x=y; echo ${!x}', /unsupported syntax: indirect/],
    ['++ in arithmetic', 'i=1; echo $((i++))', /unsupported syntax: \+\+/],
    ['extra file descriptors', 'echo x 3> f', /unsupported syntax: file descriptor 3/],
    ['coproc', 'coproc cat', /unsupported syntax: coproc/],
  ])('%s refuses the whole script, naming it', async (_label, script, message) => {
    const r = await run(`echo first; ${script}`);
    // found before anything runs (126, nothing printed) or, for what only evaluation meets, exit 2
    expect(r.exitCode === 126 ? r.stdout : 'ran').toBe(r.exitCode === 126 ? '' : 'ran');
    expect([126, 2]).toContain(r.exitCode);
    expect(r.stderr).toMatch(message);
  });
});
