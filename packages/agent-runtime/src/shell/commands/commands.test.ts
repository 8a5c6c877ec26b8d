import { describe, expect, it } from 'vitest';
import { createShell } from '../shell-interpreter.js';
import { createFakeShellGate } from '../shell-test-gate.js';
import { createDefaultCommands } from './index.js';

const files = {
  'a.txt': 'b\na\nc\n',
  'b.txt': 'a\nb\nd\n',
  'csv.txt': 'x,1\ny,2\nx,3\n',
  'dir/one.md': '1',
  'dir/sub/two.md': '2',
};

async function run(script: string, gateOptions: Parameters<typeof createFakeShellGate>[0] = {}) {
  const gate = createFakeShellGate({ files, ...gateOptions });
  const r = await createShell({ gate }).run(script);
  return { ...r, gate };
}

describe('text commands', () => {
  it.each([
    ['sed s///g', "echo aXbX | sed 's/X/-/g'", 'a-b-\n'],
    ['sed groups (BRE) and &', "echo 'ab12' | sed 's/\\([a-z]*\\)\\([0-9]*\\)/\\2\\1[&]/'", '12ab[ab12]\n'],
    ['sed -E, -n p, addresses', "sed -n -E '2,3{p}' a.txt 2>/dev/null || sed -n '2,3p' a.txt", 'a\nc\n'],
    ['sed d and /re/', "sed '/a/d' a.txt", 'b\nc\n'],
    ['sed y and $', "sed -e 'y/abc/xyz/' -e '$d' a.txt", 'y\nx\n'],
    ['cut -d -f', 'cut -d, -f2 csv.txt', '1\n2\n3\n'],
    ['cut -c', 'echo hello | cut -c2-4', 'ell\n'],
    ['awk fields, -F, sum by key', 'awk -F, \'{s[$1]+=$2} END {print s["x"], s["y"]}\' csv.txt', '4 2\n'],
    ['awk NR NF pattern', "printf 'a b\\nc d e\\n' | awk 'NF > 2 {print NR\": \"$NF}'", '2: e\n'],
    ['awk printf and arithmetic', "echo '3 4' | awk '{printf \"%d %.1f\\n\", $1*$2, $1/$2}'", '12 0.8\n'],
    ['awk /re/ and length', 'awk \'/^[ab]/ {n++} END {print n, length("xyz")}\' a.txt', '2 3\n'],
    ['paste', 'paste -d: a.txt b.txt', 'b:a\na:b\nc:d\n'],
    ['paste -s', 'paste -sd, a.txt', 'b,a,c\n'],
    ['comm', 'sort a.txt > s.txt; comm s.txt b.txt', '\t\ta\n\t\tb\nc\n\td\n'],
    ['nl', 'nl a.txt', '     1\tb\n     2\ta\n     3\tc\n'],
    ['rev', 'echo abc | rev', 'cba\n'],
    ['diff', 'diff a.txt b.txt; echo $?', '1d0\n< b\n3c2,3\n< c\n---\n> b\n> d\n1\n'],
    ['diff -u', 'diff -u a.txt a.txt; echo $?', '0\n'],
    ['base64 round trip', 'echo hi | base64; echo aGkK | base64 -d', 'aGkK\nhi\n'],
    ['sha256sum', 'printf abc | sha256sum', 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  -\n'],
    ['basename dirname', 'basename dir/sub/two.md .md; dirname dir/sub/two.md; dirname x', 'two\ndir/sub\n.\n'],
    ['realpath', 'realpath ./dir/../a.txt', '/a.txt\n'],
    ['date', 'date -u -d @0 +%Y-%m-%dT%H:%M:%S%z', '1970-01-01T00:00:00+0000\n'],
    ['env prints and runs', 'X=1; env -i Y=2 sh -c \'echo "$Y-${X-unset}"\'', '2-unset\n'],
    ['timeout runs the command', 'timeout 5 echo ok', 'ok\n'],
    ['command -v', 'command -v sed nosuch; echo $?', 'sed\n1\n'],
    ['tee', 'echo x | tee t.txt; cat t.txt', 'x\nx\n'],
    ['find', 'find dir -name "*.md"', 'dir/one.md\ndir/sub/two.md\n'],
    ['find -type d', 'find . -type d', '.\n./dir\n./dir/sub\n'],
  ])('%s', async (_label, script, out) => {
    const r = await run(script);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(out);
  });

  it('exec ends the shell with the command status', async () => {
    const r = await run('exec false; echo not-reached');
    expect([r.stdout, r.exitCode]).toEqual(['', 1]);
  });

  it('sed -i edits the file through fs_write', async () => {
    const r = await run("sed -i 's/a/A/' a.txt");
    expect(r.gate.files.get('a.txt')).toBe('b\nA\nc\n');
  });

  it('timeout ends a loop with 124 once its time has passed', async () => {
    const r = await run("timeout 0.001 sh -c 'while true; do echo x > /dev/null; done'; echo $?");
    expect(r.stdout).toBe('124\n');
  });
});

describe('each command declares the tools it resolves to', () => {
  it.each([
    ['sed -i s/a/b/ a.txt', 'fs_write'],
    ['find . -delete', 'fs_delete'],
    ['tee out.txt', 'fs_write'],
    ['mkdir d', 'fs_write'],
    ['cp a.txt c.txt', 'fs_write'],
    ['rm a.txt', 'fs_delete'],
    ['msg send did:key:z1 hello', 'msg_send'],
    ['msg read 1', 'msg_read'],
    ['msg list', 'msg_list'],
    ['config get', 'sys_get_config'],
    ['config set model.temperature 0', 'sys_update_config'],
    ['mcp call my-server Search {}', 'mcp_my__dserver_x_search_'],
    ['echo p | at now + 5 minutes', 'sys_set_timer'],
    ['echo "* * * * * p" | crontab -', 'sys_set_timer'],
    ['crontab -l', 'sys_list_timers'],
  ])('%s → %s, refused when that tool is disabled', async (script, tool) => {
    const r = await run(script, { disabled: [tool] });
    expect(r.exitCode).toBe(126);
    expect(r.gate.calls).toEqual([]);
    expect(r.trace.some((t) => t.outcome === 'disabled' && t.tools.includes(tool))).toBe(true);
  });

  it.each([
    ['timeout', 'timeout 5 rm a.txt'],
    ['env', 'env X=1 rm a.txt'],
    ['exec', 'exec rm a.txt'],
    ['command', 'command rm a.txt'],
    ['nohup', 'nohup rm a.txt'],
    ['xargs', 'echo a.txt | xargs rm'],
  ])('%s runs its argument through the same gate', async (_label, script) => {
    const r = await run(script, { disabled: ['fs_delete'] });
    expect(r.exitCode).toBe(126);
    expect(r.gate.files.has('a.txt')).toBe(true);
    expect(r.gate.calls).toEqual([]);
  });

  it('msg, config, mcp, at and crontab call their tool with the parsed arguments', async () => {
    const r = await run(
      'msg send did:key:z1 --subject S hi there; config set a.b \'{"x":1}\'; mcp call srv Tool \'{"q":1}\'; ' +
        'echo wake | at now + 2 minutes; echo "*/5 * * * * ping" | crontab -',
    );
    expect(r.gate.calls).toEqual([
      { tool: 'msg_send', args: { to: 'did:key:z1', content: 'hi there', subject: 'S' } },
      { tool: 'sys_update_config', args: { path: 'a.b', op: 'set', value: { x: 1 } } },
      { tool: 'mcp_srv_x_tool_', args: { q: 1 } },
      { tool: 'sys_set_timer', args: { kind: 'delay', ms: 120_000, payload: 'wake' } },
      { tool: 'sys_set_timer', args: { kind: 'cron', cron: '*/5 * * * *', payload: 'ping' } },
    ]);
  });
});

describe('help', () => {
  it('lists every command with one line each, and <cmd> --help works for each', async () => {
    const names = [...createDefaultCommands().keys()];
    for (const n of [
      'sed',
      'find',
      'tee',
      'mkdir',
      'cut',
      'awk',
      'diff',
      'base64',
      'date',
      'env',
      'basename',
      'dirname',
      'read',
      'export',
      'timeout',
      'realpath',
      'nl',
      'rev',
      'paste',
      'comm',
      'sha256sum',
      'msg',
      'config',
      'mcp',
      'at',
      'crontab',
      'exec',
      'command',
      'nohup',
    ])
      expect(names).toContain(n);
    expect(names.length).toBeGreaterThanOrEqual(60);
    const help = await run('help');
    expect(help.stdout.trim().split('\n')).toHaveLength(names.length);
    const script = names
      .filter((n) => n !== '[')
      .map((n) => `${n === '.' ? '.' : n} --help`)
      .join('; ');
    const r = await run(script);
    expect(r.stderr).toBe('');
    for (const n of names.filter((x) => x !== '[')) expect(r.stdout).toContain(`${n}: `);
  });
});
