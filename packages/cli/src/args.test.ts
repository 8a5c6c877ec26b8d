import { describe, expect, it } from 'vitest';
import { choiceOption, integerOption, listOption, parseCommandArgs } from './args.js';
import type { CommandSpec } from './command.js';

const spec: CommandSpec = {
  name: 'egress check',
  summary: 's',
  positionals: [{ name: 'url', description: 'u' }],
  options: {
    mode: { type: 'string', description: 'm' },
    policy: { type: 'string', description: 'p' },
    cap: { type: 'string', multiple: true, description: 'c' },
  },
  examples: [{ command: 'trust egress check https://example.com', explain: 'e' }],
  jsonShape: '{}',
  run: async () => 0,
};

const passthrough: CommandSpec = {
  ...spec,
  name: 'sandbox',
  positionals: [],
  passthrough: { name: 'argv', description: 'a' },
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return undefined;
}

describe('parseCommandArgs', () => {
  it('parses positionals, strings, repeated flags and globals', () => {
    const p = parseCommandArgs(spec, [
      'https://a.test',
      '--mode',
      'strict',
      '--cap',
      'http',
      '--cap',
      'env:X',
      '--json',
    ]);
    expect(p.positionals).toEqual(['https://a.test']);
    expect(p.values.mode).toBe('strict');
    expect(listOption(p.values, 'cap')).toEqual(['http', 'env:X']);
    expect(p.json).toBe(true);
    expect(p.color).toBeUndefined();
  });

  it('reports an unknown flag as a usage error with did-you-mean', () => {
    try {
      parseCommandArgs(spec, ['https://a.test', '--polcy', 'x']);
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({
        code: expect.toBeTrustCode('CLI_USAGE_UNKNOWN_OPTION'),
        exitCode: 2,
        hint: "did you mean '--policy'?",
      });
    }
  });

  it.each([
    [['--mode'], 'CLI_USAGE_INVALID_VALUE'],
    [['https://a.test', '--json=yes'], 'CLI_USAGE_INVALID_VALUE'],
    [[], 'CLI_USAGE_MISSING_ARGUMENT'],
    [['a', 'b'], 'CLI_USAGE_UNEXPECTED_ARGUMENT'],
  ])('%j is a usage error %s', (argv, code) => {
    expect(codeOf(() => parseCommandArgs(spec, argv))).toBe(code);
  });

  it('does not demand positionals when --help is given', () => {
    expect(parseCommandArgs(spec, ['--help']).help).toBe(true);
    expect(parseCommandArgs(spec, ['-h']).help).toBe(true);
  });

  it('splits the argv after -- for passthrough commands, flags included', () => {
    const p = parseCommandArgs(passthrough, ['--cap', 'stdout', '--', 'sh', '-c', 'exit 3', '--json']);
    expect(p.rest).toEqual(['sh', '-c', 'exit 3', '--json']);
    expect(p.json).toBe(false);
    expect(codeOf(() => parseCommandArgs(passthrough, ['--cap', 'stdout']))).toBeTrustCode(
      'CLI_USAGE_MISSING_ARGUMENT',
    );
  });

  it('lets a positional start with a dash after -- for other commands', () => {
    expect(parseCommandArgs(spec, ['--', '-weird']).positionals).toEqual(['-weird']);
  });

  it('reads a negative number as a value, never as short flags (run calc add 2 -1)', () => {
    const variadic: CommandSpec = {
      ...spec,
      name: 'run',
      positionals: [
        { name: 'export', description: 'e' },
        { name: 'args', description: 'a', required: false, variadic: true },
      ],
    };
    expect(parseCommandArgs(variadic, ['add', '2', '-1', '-0.5', '-3e2']).positionals).toEqual([
      'add',
      '2',
      '-1',
      '-0.5',
      '-3e2',
    ]);
    expect(parseCommandArgs(spec, ['u', '--mode', '-1']).values.mode).toBe('-1');
    expect(parseCommandArgs(spec, ['u', '--cap', '-2', '--cap', 'x']).values.cap).toEqual(['-2', 'x']);
    // A dash word that is not a number is still a flag, and an unknown one is refused.
    expect(codeOf(() => parseCommandArgs(variadic, ['add', '-x']))).toBeTrustCode('CLI_USAGE_UNKNOWN_OPTION');
  });

  it('marks --no-color as colour off', () => {
    expect(parseCommandArgs(spec, ['u', '--no-color']).color).toBe(false);
  });
});

describe('integerOption and choiceOption', () => {
  it('accepts in-range integers and rejects everything else with code CLI_USAGE_INVALID_VALUE', () => {
    expect(integerOption({ port: '8080' }, 'port', { min: 0, max: 65535 })).toBe(8080);
    expect(integerOption({}, 'port', { min: 0, max: 65535 })).toBeUndefined();
    for (const bad of ['-1', '70000', '1e3', '0x10', 'abc', '']) {
      expect(codeOf(() => integerOption({ port: bad }, 'port', { min: 0, max: 65535 }))).toBeTrustCode(
        'CLI_USAGE_INVALID_VALUE',
      );
    }
  });

  it('accepts a listed word and suggests the closest one otherwise', () => {
    expect(choiceOption({ mode: 'strict' }, 'mode', ['default', 'strict'])).toBe('strict');
    try {
      choiceOption({ mode: 'strct' }, 'mode', ['default', 'strict']);
      expect.unreachable();
    } catch (e) {
      expect(e).toMatchObject({
        code: expect.toBeTrustCode('CLI_USAGE_INVALID_VALUE'),
        hint: "did you mean 'strict'?",
      });
    }
  });
});
