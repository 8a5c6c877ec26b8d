import { describe, expect, it } from 'vitest';
import { main } from './main.js';
import { createMemoryIo } from './memory-io.test-helper.js';
import type { CommandEntry } from './registry.js';
import { COMMANDS } from './registry.js';
import type { CommandSpec } from './command.js';
import { failureSchema } from './json-schemas.js';

function fakeCommand(name: string, run: CommandSpec['run']): CommandEntry {
  const command: CommandSpec = {
    name,
    summary: `${name} summary`,
    positionals: [{ name: 'thing', description: 'a thing', required: false }],
    options: { policy: { type: 'string', description: 'a policy file', valueName: 'file' } },
    examples: [{ command: `trust ${name} x`, explain: 'does x' }],
    jsonShape: '{ "thing": string }',
    run,
  };
  return { name, summary: command.summary, load: async () => ({ command }) };
}

const entries: CommandEntry[] = [
  fakeCommand('hello', async ({ out, positionals }) => {
    out.result({ thing: positionals[0] ?? null });
    out.line(`hello ${positionals[0] ?? ''}`);
    return 0;
  }),
  fakeCommand('grp one', async () => 0),
  { name: 'grp two', summary: 'not yet', unavailable: 'its package has not landed' },
  fakeCommand('boom', async () => {
    throw new TypeError('kaput');
  }),
  fakeCommand('deny', async () => {
    throw Object.assign(new Error('nope'), { code: 'EGRESS_DENIED', hint: 'allow it' });
  }),
];

describe('main', () => {
  it('prints root help with unavailable commands marked, exit 0', async () => {
    const m = createMemoryIo();
    expect(await main(['--help'], m.io, entries)).toBe(0);
    expect(m.stdout()).toMatch(/grp two\s+not yet \(not available yet\)/);
    expect(m.stdout()).toMatch(/hello\s+hello summary\n/);
    expect(await main([], createMemoryIo().io, entries)).toBe(0);
  });

  it('runs a command with its arguments and honours --json before or after the name', async () => {
    const m = createMemoryIo();
    expect(await main(['hello', 'world'], m.io, entries)).toBe(0);
    expect(m.stdout()).toBe('hello world\n');
    const j = createMemoryIo();
    expect(await main(['--json', 'hello', 'w'], j.io, entries)).toBe(0);
    expect(JSON.parse(j.stdout())).toEqual({ v: 1, ok: true, command: 'hello', result: { thing: 'w' } });
  });

  it('shows command help with examples and the JSON shape', async () => {
    const m = createMemoryIo();
    expect(await main(['hello', '--help'], m.io, entries)).toBe(0);
    expect(m.stdout()).toContain('# does x\n  trust hello x');
    expect(m.stdout()).toContain('"result": { "thing": string }');
    expect(m.stdout()).toContain('--policy <file>');
  });

  it.each([
    [['helo'], 2, 'CLI_USAGE_UNKNOWN_COMMAND', "did you mean 'trust hello'?"],
    [['grp', 'on'], 2, 'CLI_USAGE_UNKNOWN_COMMAND', "did you mean 'trust grp one'?"],
    [['grp'], 2, 'CLI_USAGE_MISSING_COMMAND', 'one of: one, two'],
    [['hello', '--polic', 'x'], 2, 'CLI_USAGE_UNKNOWN_OPTION', "did you mean '--policy'?"],
    [['--jsn', 'hello'], 2, 'CLI_USAGE_UNKNOWN_OPTION', "did you mean '--json'?"],
    [['grp', 'two'], 1, 'NOT_IMPLEMENTED', 'run `trust --help` to see the commands that work today'],
    [['deny'], 126, 'EGRESS_DENIED', 'allow it'],
    [['boom'], 1, 'CLI_INTERNAL', 'this is a bug in trust; set TRUST_DEBUG=1 to see the stack and report it'],
  ])('%j exits %i with %s', async (argv, exit, code, hint) => {
    const m = createMemoryIo();
    expect(await main([...argv, '--json'], m.io, entries)).toBe(exit);
    const doc = failureSchema.parse(JSON.parse(m.stdout()));
    expect(doc.error.code).toBe(code);
    expect(doc.error.hint).toBe(hint);
    expect(doc.error.exitCode).toBe(exit);
  });

  it('explains an unavailable command on --help and exits 0', async () => {
    const m = createMemoryIo();
    expect(await main(['grp', 'two', '--help'], m.io, entries)).toBe(0);
    expect(m.stdout()).toContain('not available yet: its package has not landed');
  });

  it('prints group help', async () => {
    const m = createMemoryIo();
    expect(await main(['grp', '--help'], m.io, entries)).toBe(0);
    expect(m.stdout()).toContain('trust grp <subcommand>');
  });

  it('prints the version', async () => {
    const m = createMemoryIo();
    expect(await main(['--version'], m.io, entries)).toBe(0);
    expect(m.stdout()).toMatch(/^trust \d+\.\d+\.\d+\n$/);
  });
});

describe('COMMANDS', () => {
  it('lists every command of the issue exactly once, each either loadable or with a reason', () => {
    expect(COMMANDS.map((c) => c.name)).toEqual([
      'doctor',
      'egress check',
      'egress fetch',
      'egress proxy',
      'package init',
      'package build',
      'package inspect',
      'package sign',
      'package verify',
      'keygen',
      'run',
      'sandbox',
      'agent new',
      'agent inspect',
      'agent review',
      'agent chat',
      'agent approve',
      'agent deny',
      'audit tail',
      'audit verify',
      'studio',
    ]);
    for (const c of COMMANDS) expect(c.load === undefined).toBe(typeof c.unavailable === 'string');
  });

  it('loads each available command and its spec names itself and has examples', async () => {
    for (const entry of COMMANDS.filter((c) => c.load)) {
      const { command } = await (entry.load as NonNullable<CommandEntry['load']>)();
      expect(command.name).toBe(entry.name);
      expect(command.examples.length).toBeGreaterThan(0);
      expect(command.summary).toBe(entry.summary);
    }
  });
});
