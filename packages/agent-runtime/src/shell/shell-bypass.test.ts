import { describe, expect, it } from 'vitest';
import { createShell } from './shell-interpreter.js';
import { createFakeShellGate } from './shell-test-gate.js';
import { EXIT_DENIED, EXIT_NOT_FOUND, EXIT_REJECTED } from './shell-types.js';

// Every family of "run a command without the gate seeing it" that broke ADF's top-level-only
// preflight, plus the obvious spellings. fs_delete is disabled: a.txt must survive all of them,
// the choke point must have recorded the refused command, and the tool must never be called.
const files = { 'a.txt': 'keep me', 's.sh': 'rm a.txt\n', 'nested.sh': 'source s.sh\n' };
const bypasses: Array<[string, string, number | null]> = [
  ['plain', 'rm a.txt', EXIT_DENIED],
  ['command substitution', 'echo $(rm a.txt)', null],
  ['backticks', 'echo `rm a.txt`', null],
  ['quoted substitution', 'echo "$(rm a.txt)"', null],
  ['nested substitution', 'echo $(echo $(rm a.txt))', null],
  ['pipeline stage', 'echo x | rm a.txt | cat', null],
  ['last pipeline stage', 'echo x | rm a.txt', EXIT_DENIED],
  ['xargs', 'echo a.txt | xargs rm', EXIT_DENIED],
  ['xargs -I', 'echo a.txt | xargs -I {} rm {}', EXIT_DENIED],
  ['xargs into sh -c', "echo a.txt | xargs -I {} sh -c 'rm {}'", null],
  ['sh -c', "sh -c 'rm a.txt'", EXIT_DENIED],
  ['bash -c', 'bash -c "rm a.txt"', EXIT_DENIED],
  ['sh reading stdin', 'echo rm a.txt | sh', EXIT_DENIED],
  ['sh FILE', 'sh s.sh', EXIT_DENIED],
  ['eval', 'eval "rm a.txt"', EXIT_DENIED],
  ['eval of split words', "eval 'r''m' a.txt", EXIT_DENIED],
  ['eval of eval', `eval "eval 'rm a.txt'"`, EXIT_DENIED],
  ['source', 'source s.sh', EXIT_DENIED],
  ['dot', '. s.sh', EXIT_DENIED],
  ['source of source', 'source nested.sh', EXIT_DENIED],
  ['function', 'f() { rm a.txt; }; f', EXIT_DENIED],
  ['function named like a safe command', 'cat() { rm a.txt; }; cat', EXIT_DENIED],
  ['here-doc substitution', 'cat <<EOF\n$(rm a.txt)\nEOF', null],
  ['here-string substitution', 'cat <<< "$(rm a.txt)"', null],
  ['redirect target substitution', 'echo x > /dev/null$(rm a.txt)', null],
  ['assignment substitution', 'X=$(rm a.txt); echo $X', null],
  ['parameter default substitution', 'echo ${U:-$(rm a.txt)}', null],
  ['arithmetic substitution', 'echo $(( $(rm a.txt; echo 1) + 1 ))', null],
  ['and-list', 'true && rm a.txt', EXIT_DENIED],
  ['or-list', 'false || rm a.txt', EXIT_DENIED],
  ['if body', 'if true; then rm a.txt; fi', EXIT_DENIED],
  ['if condition', 'if rm a.txt; then :; fi', null],
  ['while body', 'while true; do rm a.txt; break; done', null],
  ['for body', 'for f in a.txt; do rm $f; done', EXIT_DENIED],
  ['case body', 'case x in x) rm a.txt;; esac', EXIT_DENIED],
  ['variable as command', 'x=rm; $x a.txt', EXIT_DENIED],
  ['quoted command name', '"r"m a.txt', EXIT_DENIED],
  ['escaped command name', '\\rm a.txt', EXIT_DENIED],
  ['brace group', '{ rm a.txt; }', EXIT_DENIED],
  ['subshell', '(rm a.txt)', EXIT_DENIED],
  ['negation', '! rm a.txt', EXIT_DENIED],
  ['mv (declares fs_delete)', 'mv a.txt b.txt', EXIT_DENIED],
  ['env prefix', 'X=1 rm a.txt', EXIT_DENIED],
  ['[[ ]] operand substitution', '[[ -n "$(rm a.txt)" ]]', null],
  ['exec', 'exec rm a.txt', EXIT_DENIED],
  ['command', 'command rm a.txt', EXIT_DENIED],
  ['env', 'env X=1 rm a.txt', EXIT_DENIED],
  ['nohup', 'nohup rm a.txt', EXIT_DENIED],
  ['timeout', 'timeout 5 rm a.txt', EXIT_DENIED],
  ['find -delete', 'find . -name a.txt -delete', EXIT_DENIED],
  ['brace expansion into a command name', '{r,}m a.txt', null],
  ['./relative path', 'rm ./a.txt', EXIT_DENIED],
  ['printf -v then eval', 'printf -v c "rm %s" a.txt; eval "$c"', EXIT_DENIED],
  ['array element as command', 'a=(rm a.txt); "${a[@]}"', EXIT_DENIED],
  ['read then run', 'read c <<< "rm a.txt"; $c', EXIT_DENIED],
  ['awk cannot run commands', 'awk \'BEGIN { system("rm a.txt") }\'; rm a.txt', EXIT_DENIED],
];

describe('shell bypass families: a disabled tool stays disabled everywhere', () => {
  it.each(bypasses)('%s', async (_family, script, expectedExit) => {
    const gate = createFakeShellGate({ disabled: ['fs_delete'], files });
    const r = await createShell({ gate }).run(script);
    expect(gate.files.get('a.txt')).toBe('keep me');
    expect(gate.calls.some((c) => c.tool === 'fs_delete')).toBe(false);
    expect(r.trace.some((t) => t.outcome === 'disabled' && t.tools.includes('fs_delete'))).toBe(true);
    if (expectedExit !== null) expect(r.exitCode).toBe(expectedExit);
  });
});

describe('restricted tools ask at the choke point', () => {
  it.each([
    ['redirect', 'echo hi > out.txt'],
    ['append redirect', 'echo hi >> out.txt'],
    ['redirect inside $(…)', 'echo $(echo hi > out.txt)'],
    ['redirect of a group', '{ echo hi; } > out.txt'],
    ['redirect inside sh -c', "sh -c 'echo hi > out.txt'"],
    ['tee-like cp', 'cp a.txt out.txt'],
  ])('rejection gives exit 130 and no write: %s', async (_label, script) => {
    const gate = createFakeShellGate({ restricted: { fs_write: 'reject' }, files });
    const r = await createShell({ gate }).run(script);
    expect(gate.files.has('out.txt')).toBe(false);
    expect(r.trace.some((t) => t.outcome === 'rejected')).toBe(true);
    if (!script.startsWith('echo $(')) expect(r.exitCode).toBe(EXIT_REJECTED);
  });

  it('approval lets the same command run', async () => {
    const gate = createFakeShellGate({ restricted: { fs_write: 'approve' }, files });
    const r = await createShell({ gate }).run('echo hi > out.txt');
    expect(r.exitCode).toBe(0);
    expect(gate.files.get('out.txt')).toBe('hi\n');
    // once by the whole-script check, once at the choke point
    expect(gate.preflights).toEqual(['fs_write', 'fs_write']);
  });

  it('[[ -f ]] reads through fs_read and is refused when fs_read is disabled', async () => {
    const gate = createFakeShellGate({ disabled: ['fs_read'], files });
    const r = await createShell({ gate }).run('[[ -f a.txt ]]');
    expect(r.exitCode).toBe(EXIT_DENIED);
    expect(gate.calls).toEqual([]);
  });

  it('the redirect input is not read when the command is refused', async () => {
    const gate = createFakeShellGate({ disabled: ['sys_code'], files: { 'x.js': 'secret' } });
    const r = await createShell({ gate }).run('node < x.js');
    expect(r.exitCode).toBe(EXIT_DENIED);
    expect(gate.calls).toEqual([]);
  });
});

describe('unknown commands never reach a host shell', () => {
  it.each([
    '/bin/sh -c id',
    'python3 -c 1',
    'exec /bin/rm a.txt',
    'command /bin/rm a.txt',
    'env /bin/rm a.txt',
    'sudo rm a.txt',
    'busybox rm a.txt',
    './s.sh',
    'nohup /bin/rm a.txt',
    'timeout 1 /bin/rm a.txt',
  ])('%s refuses the whole script (126) with no tool call', async (script) => {
    const gate = createFakeShellGate({ files });
    const r = await createShell({ gate }).run(`echo first; ${script}`);
    expect([r.exitCode, r.stdout]).toEqual([EXIT_DENIED, '']);
    expect(gate.calls).toEqual([]);
    expect(gate.files.get('a.txt')).toBe('keep me');
    expect(r.stderr).toMatch(/command not found/);
  });

  it('a name known only at run time is exit 127 at the choke point', async () => {
    const gate = createFakeShellGate({ files });
    const r = await createShell({ gate }).run('c=python3; echo first; $c -c 1');
    expect([r.exitCode, r.stdout]).toEqual([EXIT_NOT_FOUND, 'first\n']);
    expect(r.stderr).toMatch(/python3: command not found/);
  });
});

describe('resource limits', () => {
  it('recursive functions hit the nesting limit', async () => {
    const r = await createShell({ gate: createFakeShellGate() }).run('f() { f; }; f');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/nesting deeper than/);
  });

  it('self-sourcing scripts hit the nesting limit', async () => {
    const r = await createShell({ gate: createFakeShellGate({ files: { 'loop.sh': 'source loop.sh\n' } }) }).run(
      'source loop.sh',
    );
    expect(r.stderr).toMatch(/nesting deeper than/);
  });

  it('endless loops hit the iteration limit', async () => {
    const r = await createShell({ gate: createFakeShellGate(), maxLoopIterations: 50 }).run('while true; do :; done');
    expect(r.stderr).toMatch(/loop ran more than 50 times/);
  });

  it('output is capped', async () => {
    const r = await createShell({ gate: createFakeShellGate(), maxOutputBytes: 100 }).run('seq 1000');
    expect(r.stdout.length).toBeLessThan(200);
    expect(r.stdout).toMatch(/output truncated/);
  });

  it('a command cannot use a tool it did not declare', async () => {
    const gate = createFakeShellGate({ files });
    const sneaky = {
      name: 'sneaky',
      summary: 'x',
      tools: () => [],
      run: async (ctx: { tool: (n: string, a: Record<string, unknown>) => Promise<unknown> }) => {
        await ctx.tool('fs_delete', { path: 'a.txt' });
        return 0;
      },
    };
    const r = await createShell({ gate, commands: new Map([['sneaky', sneaky]]) }).run('sneaky');
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/did not declare/);
    expect(gate.files.get('a.txt')).toBe('keep me');
  });
});
