import { describe, expect, it } from 'vitest';
import { createShell } from './shell-interpreter.js';
import { createFakeShellGate } from './shell-test-gate.js';

const run = async (script: string, files: Record<string, string> = {}, stdin?: string) => {
  const gate = createFakeShellGate({ files });
  const r = await createShell({ gate }).run(script, stdin === undefined ? {} : { stdin });
  return { ...r, gate };
};

describe('adf_shell interpreter', () => {
  it.each([
    ['echo hello world', 'hello world\n'],
    ['echo -n a; echo b', 'ab\n'],
    ['echo \'single $X\' "double $X"', 'single $X double 1\n'],
    ['echo $((2 + 3 * 4)) $((10 / 3)) $(( (1+2) * 2 ))', '14 3 6\n'],
    ['echo ${U:-dflt} ${X:+set} ${#X}', 'dflt set 1\n'],
    ['V=a.b.c; echo ${V%.*} ${V%%.*} ${V#*.} ${V##*.} ${V/b/B}', 'a.b a b.c c a.B.c\n'],
    ['printf "%s=%d\\n" a 1 b 2', 'a=1\nb=2\n'],
    ['f() { echo "[$1|$2|$#]"; }; f x "y z"', '[x|y z|2]\n'],
    ['for i in 1 2 3; do echo -n $i; done; echo', '123\n'],
    ['if false; then echo no; elif true; then echo yes; fi', 'yes\n'],
    ['case abc in a*) echo A;; *) echo other;; esac', 'A\n'],
    ['i=0; while [ $i -lt 3 ]; do i=$((i+1)); done; echo $i', '3\n'],
    ['echo a; false; echo $?', 'a\n1\n'],
    ['! false && echo negated', 'negated\n'],
    ['echo "$(echo inner)" `echo back`', 'inner back\n'],
    ['seq 3 | sort -r | head -n 2', '3\n2\n'],
    ['printf "b\\na\\nb\\n" | sort | uniq -c', '      1 a\n      2 b\n'],
    ['echo hello | tr a-z A-Z', 'HELLO\n'],
    ['x="a b  c"; for w in $x; do echo "<$w>"; done', '<a>\n<b>\n<c>\n'],
    ['set -- ignored; echo "${Y:=assigned}" $Y', 'assigned assigned\n'],
    ['echo "\\$HOME is literal"', '$HOME is literal\n'],
    ["echo $'tab\\there'", 'tab\there\n'],
  ])('%s', async (script, out) => {
    const gate = createFakeShellGate();
    const r = await createShell({ gate }).run(script, { env: { X: '1' } });
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(out);
  });

  it('reads and writes virtual files through redirects and commands', async () => {
    const r = await run(
      'cat notes.md | grep -n TODO > todo.txt; echo more >> todo.txt; wc -l < todo.txt; cp todo.txt ' +
        'copy.txt; mv copy.txt moved.txt; ls',
      { 'notes.md': 'a\nTODO one\nb\nTODO two\n' },
    );
    expect(r.stdout).toBe('3\nmoved.txt\nnotes.md\ntodo.txt\n');
    expect(r.gate.files.get('todo.txt')).toBe('2:TODO one\n4:TODO two\nmore\n');
    expect(r.gate.files.get('moved.txt')).toBe(r.gate.files.get('todo.txt'));
  });

  it('here-docs expand unless the delimiter is quoted; <<- strips tabs; <<< feeds one word', async () => {
    const r = await run(
      "X=v; cat <<EOF\nval=$X $(echo sub)\nEOF\ncat <<'EOF'\nraw=$X\nEOF\ncat " +
        '<<-EOF\n\t\tindented\n\tEOF\ngrep -c o <<< foo',
    );
    expect(r.stdout).toBe('val=v sub\nraw=$X\nindented\n1\n');
  });

  it('/dev/null discards without a tool; 2>&1 and >&2 move streams', async () => {
    const r = await run('echo gone > /dev/null; n=nosuch; $n 2>&1; echo err >&2');
    expect(r.gate.calls).toEqual([]);
    expect(r.stdout).toMatch(/nosuch: command not found/);
    expect(r.stderr).toBe('err\n');
  });

  it('jq subset, curl, sqlite3 and node map to their tools', async () => {
    const r = await run(
      `echo '{"a":{"b":[1,2]},"s":"x"}' | jq -c .a.b; echo '{"s":"x"}' | jq -r .s; echo '[{"n":1},{"n":2}]' ` +
        `| jq '.[].n'; curl -s http://127.0.0.1:9/x; sqlite3 -json "select 1"; sqlite3 "insert into local_t ` +
        `values (1)"; node -e 'console.log(1)'`,
    );
    expect(r.stdout).toBe('[1,2]\nx\n1\n2\nfetched http://127.0.0.1:9/x[{"sql":"select 1","n":1}]\nhello from code\n');
    expect(r.gate.calls.map((c) => c.tool)).toEqual(['sys_fetch', 'db_query', 'db_execute', 'sys_code']);
  });

  it('xargs runs the command once per batch of words', async () => {
    const r = await run('printf "a\\nb\\nc\\n" | xargs -n 2 echo got; echo x y | xargs -I {} echo "[{}]"');
    expect(r.stdout).toBe('got a b\ngot c\n[x y]\n');
  });

  it('sh -c gets its own positional parameters; source shares variables', async () => {
    const r = await run(`sh -c 'echo "$1-$2"' name one two; source lib.sh; echo $FROM_LIB; . lib.sh; greet you`, {
      'lib.sh': 'FROM_LIB=yes\ngreet() { echo "hi $1"; }\n',
    });
    expect(r.stdout).toBe('one-two\nyes\nhi you\n');
  });

  it('exit stops the script with its status', async () => {
    const r = await run('echo a; exit 3; echo b');
    expect([r.stdout, r.exitCode]).toEqual(['a\n', 3]);
  });

  it('a syntax error is exit 2 with the parser message', async () => {
    const r = await run('echo (');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/syntax error/);
  });

  it.each([
    ['[[ -n x && x == x* ]] && echo y', 'y\n'],
    ['[[ abc =~ ^a.c$ ]] && echo re', 're\n'],
    ['[[ 3 -lt 10 || 1 -eq 2 ]] && echo num', 'num\n'],
    ['[[ ! -z "" ]] || echo empty', 'empty\n'],
    ['[[ -f notes.md ]] && echo file; [[ -e missing ]] || echo missing', 'file\nmissing\n'],
  ])('[[ ]]: %s', async (script, out) => {
    const r = await run(script, { 'notes.md': 'x' });
    expect(r.stdout).toBe(out);
  });

  it('unsupported syntax fails clearly instead of guessing', async () => {
    const r = await run('echo a; for ((i=0; i<3; i++)); do echo $i; done');
    expect([r.exitCode, r.stdout]).toEqual([126, '']);
    expect(r.stderr).toMatch(/unsupported syntax: C-style for loops/);
  });
});
