import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from './registry.js';
import { createTempHome, runCli } from './run-cli.test-helper.js';
import { failureSchema } from './json-schemas.js';

// The one exit-code rule for usage errors: anything wrong in the command line itself (an unknown
// flag, a missing or extra argument, a value that does not parse) exits 2 with a CLI_USAGE_* code,
// before anything is judged or run; 126 is only ever a policy's answer. One row or more per command.
const tmp = createTempHome();
afterAll(() => tmp.cleanup());
beforeAll(async () => {
  expect((await runCli(['package', 'init', 'hello'], { home: tmp.home })).code).toBe(0);
  writeFileSync(join(tmp.home, 'policy.json'), '{"v":1,"http":{"allow":["example.com"]}}');
});

type Row = readonly [command: string, argv: readonly string[], code: string, hint?: RegExp];

const ROWS: readonly Row[] = [
  ['doctor', ['doctor', 'extra'], 'CLI_USAGE_UNEXPECTED_ARGUMENT'],
  ['doctor', ['doctor', '--strikt'], 'CLI_USAGE_UNKNOWN_OPTION', /did you mean '--strict'/],
  ['egress check', ['egress', 'check', 'http://[bad'], 'CLI_USAGE_INVALID_URL'],
  ['egress check', ['egress', 'check', 'example.com/x'], 'CLI_USAGE_INVALID_URL', /https:\/\/example\.com\/x/],
  [
    'egress check',
    ['egress', 'check', 'http://x.test/', '--allow-cidr', 'bogus'],
    'CLI_USAGE_INVALID_VALUE',
    /--allow-cidr 10\.1\.0\.0\/16/,
  ],
  [
    'egress check',
    ['egress', 'check', 'http://x.test/', '--allowCidrs', '10.0.0.0/8'],
    'CLI_USAGE_UNKNOWN_OPTION',
    /did you mean '--allow-cidr'/,
  ],
  ['egress fetch', ['egress', 'fetch', 'not a url', '--policy', 'policy.json'], 'CLI_USAGE_INVALID_URL'],
  ['egress proxy', ['egress', 'proxy', '--policy', 'policy.json', '--listen', 'bogus'], 'CLI_USAGE_INVALID_VALUE'],
  ['package init', ['package', 'init', 'new-one', '--name', 'Bad Name'], 'CLI_USAGE_INVALID_VALUE'],
  ['package build', ['package', 'build', 'hello', '--outt', 'x'], 'CLI_USAGE_UNKNOWN_OPTION'],
  ['package inspect', ['package', 'inspect'], 'CLI_USAGE_MISSING_ARGUMENT'],
  ['package sign', ['package', 'sign', 'hello', '--ky', 'k'], 'CLI_USAGE_UNKNOWN_OPTION', /did you mean '--key'/],
  ['package verify', ['package', 'verify', 'hello', 'extra'], 'CLI_USAGE_UNEXPECTED_ARGUMENT'],
  ['keygen', ['keygen', 'extra'], 'CLI_USAGE_UNEXPECTED_ARGUMENT'],
  ['run', ['run', 'hello', 'add', '1', '--allow-unsigned'], 'CLI_USAGE_INVALID_ARGUMENT'],
  ['run', ['run', 'hello', 'add', 'a', 'b', '--allow-unsigned'], 'CLI_USAGE_INVALID_ARGUMENT', /for example 2/],
  ['run', ['run', 'hello', 'add', '1', '2', '--grant', 'bogus', '--allow-unsigned'], 'CLI_USAGE_INVALID_VALUE'],
  ['run', ['run', 'hello', 'add', '--trustedKeys', 'k.pub'], 'CLI_USAGE_UNKNOWN_OPTION', /did you mean '--trusted'/],
  ['sandbox', ['sandbox', '--cap', 'bogus', '--', 'true'], 'CLI_USAGE_INVALID_VALUE'],
  ['sandbox', ['sandbox', '--capability', 'stdin', '--', 'true'], 'CLI_USAGE_UNKNOWN_OPTION', /did you mean '--cap'/],
  ['sandbox', ['sandbox', '--timeout', 'abc', '--', 'true'], 'CLI_USAGE_INVALID_VALUE', /--timeout 30/],
  [
    'sandbox',
    ['sandbox', '--allow-degraded', 'no-procs', '--', 'true'],
    'CLI_USAGE_INVALID_VALUE',
    /did you mean 'no-proc'/,
  ],
  ['agent new', ['agent', 'new'], 'CLI_USAGE_MISSING_ARGUMENT'],
  ['agent inspect', ['agent', 'inspect', 'a.adf', 'b.adf'], 'CLI_USAGE_UNEXPECTED_ARGUMENT'],
  ['agent review', ['agent', 'review', 'a.adf', 'b.adf'], 'CLI_USAGE_UNEXPECTED_ARGUMENT'],
  [
    'agent chat',
    ['agent', 'chat', 'missing.adf', '--provider', 'opneai'],
    'CLI_USAGE_INVALID_VALUE',
    /did you mean 'openai'/,
  ],
  ['agent approve', ['agent', 'approve', '7e6d', '--args', '{not json'], 'CLI_USAGE_INVALID_VALUE'],
  ['agent deny', ['agent', 'deny', '7e6d', '--feedbak', 'no'], 'CLI_USAGE_UNKNOWN_OPTION', /did you mean '--feedback'/],
  ['audit tail', ['audit', 'tail', 'a.jsonl', '-n', 'abc'], 'CLI_USAGE_INVALID_VALUE', /^for example --lines 50$/],
  ['audit verify', ['audit', 'verify'], 'CLI_USAGE_MISSING_ARGUMENT'],
  ['studio', ['studio', '--port', 'abc'], 'CLI_USAGE_INVALID_VALUE'],
];

describe('usage errors exit 2 for every command (built binary)', () => {
  it('the table has a row for every command', () => {
    expect(new Set(ROWS.map(([c]) => c))).toEqual(new Set(COMMANDS.map((e) => e.name)));
  });

  it.each(ROWS.map(([command, argv, code, hint]) => ({ command, argv, code, hint })))(
    '$command: $argv exits 2 with $code',
    async ({ argv, code, hint }) => {
      const r = await runCli([...argv, '--json'], { home: tmp.home });
      const doc = failureSchema.parse(r.json());
      expect(doc.error.code).toBe(code);
      expect(doc.error.exitCode).toBe(2);
      expect(r.code).toBe(2);
      if (hint) expect(doc.error.hint).toMatch(hint);
    },
  );

  it.each(COMMANDS.map((e) => [e.name] as const))('trust %s --help states the usage rule', async (name) => {
    const r = await runCli([...name.split(' '), '--help'], { home: tmp.home });
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(
      '2 usage error: an unknown flag, a missing or extra argument, or a value that does not parse',
    );
  });

  it('trust --help states the rule and that 126 is never used for bad input', async () => {
    const r = await runCli(['--help'], { home: tmp.home });
    expect(r.stdout).toContain('2    usage error: the command line itself is wrong');
    expect(r.stdout).toContain('126  denied: a policy answered no to a well-formed request (never used for bad input)');
  });
});
