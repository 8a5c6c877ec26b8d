import { describe, expect, it } from 'vitest';
import { createShell } from './shell-interpreter.js';
import { createFakeShellGate } from './shell-test-gate.js';
import { EXIT_DENIED, EXIT_REJECTED } from './shell-types.js';

const files = { 'secret.txt': 'the secret', 'a.txt': 'keep me' };

async function run(script: string, gateOptions: Parameters<typeof createFakeShellGate>[0] = {}) {
  const gate = createFakeShellGate({ files, ...gateOptions });
  const r = await createShell({ gate }).run(script);
  return { ...r, gate };
}

// A command named only at run time (`$c`) passes the whole-script check and is refused by the
// choke point when it runs: these pin how that refusal travels out of substitutions.
describe('a refusal stops the script: substitutions carry the gate status', () => {
  it('x=$($c secret.txt) && echo ok does not print ok when fs_read is disabled', async () => {
    const r = await run('c=cat; f=curl; x=$($c secret.txt) && echo ok', { disabled: ['fs_read'] });
    expect(r.stdout).toBe('');
    expect(r.exitCode).toBe(EXIT_DENIED);
  });

  it('x=$(curl …) || exit 1 exits after a person rejected the fetch', async () => {
    const r = await run('c=cat; f=curl; x=$($f -s http://127.0.0.1:9/) || exit 1; echo after', {
      restricted: { sys_fetch: 'reject' },
    });
    expect(r.stdout).toBe('');
    expect(r.exitCode).toBe(1);
  });

  it.each([
    ['backticks', 'c=cat; x=`$c secret.txt`; echo $?', `${EXIT_DENIED}\n`],
    ['${x:-$(…)}', 'c=cat; x=${u:-$($c secret.txt)}; echo $?', `${EXIT_DENIED}\n`],
    ['quoted', 'c=cat; x="pre $($c secret.txt)"; echo $?', `${EXIT_DENIED}\n`],
    ['nested', 'c=cat; x=$(echo $($c secret.txt)); echo $?', `${EXIT_DENIED}\n`],
    ['refusal then success inside', 'c=cat; x=$($c secret.txt; echo fine); echo $?', `${EXIT_DENIED}\n`],
  ])('%s: $? after the assignment is 126', async (_label, script, out) => {
    const r = await run(script, { disabled: ['fs_read'] });
    expect(r.stdout).toBe(out);
  });

  it('a rejected approval inside $(…) gives 130', async () => {
    const r = await run('c=cat; f=curl; x=$($f -s http://127.0.0.1:9/); echo $?', {
      restricted: { sys_fetch: 'reject' },
    });
    expect(r.stdout).toBe(`${EXIT_REJECTED}\n`);
  });

  it('a command whose argument substitution was refused does not run', async () => {
    const r = await run('c=cat; f=curl; echo "body: $($c secret.txt)" > out.txt; echo $?', { disabled: ['fs_read'] });
    expect(r.gate.files.has('out.txt')).toBe(false);
    expect(r.stdout).toBe(`${EXIT_DENIED}\n`);
  });

  it('a redirect target built from a refused substitution is not written', async () => {
    const r = await run('c=cat; f=curl; echo data > "out-$($c secret.txt).txt"; echo $?', { disabled: ['fs_read'] });
    expect([...r.gate.files.keys()].filter((k) => k.startsWith('out'))).toEqual([]);
    expect(r.gate.calls.some((c) => c.tool === 'fs_write')).toBe(false);
    expect(r.stdout).toBe(`${EXIT_DENIED}\n`);
  });

  it('a redirect target built from a failed substitution is not written', async () => {
    const r = await run('c=cat; f=curl; echo data > "out-$(false).txt"; echo $?');
    expect(r.gate.calls.some((c) => c.tool === 'fs_write')).toBe(false);
    expect(r.stdout).toBe('1\n');
  });

  it('a pipeline with a refused stage has the refusal status', async () => {
    const r = await run('c=cat; f=curl; $c secret.txt | grep -c x; echo $?', { disabled: ['fs_read'] });
    expect(r.stdout).toBe(`0\n${EXIT_DENIED}\n`);
  });

  it('for-in and case over a refused substitution do not run their body', async () => {
    const r = await run(
      'c=cat; for w in $($c secret.txt); do echo "w=$w"; done; echo $?; ' +
        'case $($c secret.txt) in *) echo body;; esac; echo $?',
      { disabled: ['fs_read'] },
    );
    expect(r.stdout).toBe(`${EXIT_DENIED}\n${EXIT_DENIED}\n`);
  });

  it('set -e ends the script at the first refusal', async () => {
    const r = await run('c=cat; f=curl; set -e; $c secret.txt; echo after', { disabled: ['fs_read'] });
    expect(r.stdout).toBe('');
    expect(r.exitCode).toBe(EXIT_DENIED);
  });

  it('set -e ends the script at a refused substitution in an assignment', async () => {
    const r = await run('c=cat; f=curl; set -e; x=$($c secret.txt); echo after', { disabled: ['fs_read'] });
    expect(r.stdout).toBe('');
    expect(r.exitCode).toBe(EXIT_DENIED);
  });
});

describe('bash exit-status rules', () => {
  it.each([
    ['x=$(false); echo $?', '1\n'],
    ['x=$(exit 3) y=$(true); echo $?', '0\n'],
    ['x=$(true) y=$(exit 4); echo $?', '4\n'],
    ['$(exit 3); echo $?', '3\n'],
    ['x=$(exit 5) true; echo $?', '0\n'],
    ['x=`exit 2`; echo $?', '2\n'],
    ['x=${u:-$(exit 6)}; echo $?', '6\n'],
    ['x=$(y=inner; echo v); echo "$x ${y-unset}"', 'v unset\n'],
    ['(exit 3); echo $?', '3\n'],
    ['(y=1); echo ${y-unset}', 'unset\n'],
    ['exit 3 | cat; echo $?', '0\n'],
    ['false | true; echo $?', '0\n'],
    ['set -o pipefail; false | true; echo $?', '1\n'],
    ['set -o pipefail; true | (exit 3) | true; echo $?', '3\n'],
    ['set -e; false || true; echo after', 'after\n'],
    ['set -e; false && true; echo after', 'after\n'],
    ['set -e; true && false; echo after', ''],
    ['set -e; if false; then :; fi; echo after', 'after\n'],
    ['set -e; while false; do :; done; echo after', 'after\n'],
    ['set -e; ! true; echo after', 'after\n'],
    ['set -e; ! { false; echo in; }; echo after', 'in\nafter\n'],
    ['set -e; { false && true; }; echo after', 'after\n'],
    ['set -e; (false && true); echo after', ''],
    ['set -e; f() { false; echo in; }; f && echo ok', 'in\nok\n'],
    ['set -e; f() { false; echo in; }; f; echo after', ''],
    ['set -e; x=$(false; echo in); echo "after $x"', 'after in\n'],
    ['set -e; false | true; echo after', 'after\n'],
    ['set -e; [[ a == b ]]; echo after', ''],
    ['set -e; for i in 1; do false; done; echo after', ''],
    ['set -e; set +e; false; echo after', 'after\n'],
    ['set -euo pipefail; echo ok', 'ok\n'],
    ['set -u; echo "${u:-dflt}"', 'dflt\n'],
    ['set -u; echo "$@" ok', 'ok\n'],
    ['set -u; (echo $u); echo "after $?"', 'after 1\n'],
    ['set -u; echo $u; echo after', ''],
    ['set -- a b; echo $# $2', '2 b\n'],
  ])('%s', async (script, out) => {
    const r = await run(script);
    expect(r.stdout).toBe(out);
  });

  it.each([
    ['set -e; true && false; echo after', 1],
    ['set -u; echo $u', 127],
    ['echo ${u:?needed}', 127],
    ['set -e; (false && true)', 1],
  ])('exit status of %s', async (script, code) => {
    expect((await run(script)).exitCode).toBe(code);
  });

  it('set -u names the variable', async () => {
    expect((await run('set -u; echo $nope')).stderr).toMatch(/nope: unbound variable/);
  });

  it('unsupported set options fail clearly', async () => {
    const r = await run('set -x; echo hi');
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/unsupported option -x/);
  });
});
