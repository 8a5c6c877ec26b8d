import { describe, expect, it } from 'vitest';
import { createOutput, printError } from './output.js';
import { createMemoryIo } from './memory-io.test-helper.js';
import { CliError } from './cli-error.js';
import { failureSchema } from './json-schemas.js';

describe('printError', () => {
  it('prints code, reason and hint on stderr, escaping untrusted text, without colour off a TTY', () => {
    const m = createMemoryIo();
    const code = printError(
      m.io,
      new CliError('EGRESS_POLICY_DENIED', 'denied \u001b[2Jhttp://x\u0007', { hint: 'allow it' }),
      { json: false, command: 'egress check' },
    );
    expect(code).toBe(126);
    expect(m.stderr()).toBe('error[EGRESS_POLICY_DENIED]: denied http://x\\x07\n  hint: allow it\n');
    expect(m.stdout()).toBe('');
  });

  it('prints a hint once when the message ends with it (the egress denial text does)', () => {
    const m = createMemoryIo();
    const hint = 'add "example.org" to the allow list of policy-file:http.allow to permit it';
    const message = `egress denied: example.org:80 is not on the allow list (rule policy-file:http.allow); ${hint}`;
    printError(m.io, new CliError('EGRESS_HOST_NOT_ALLOWED', message, { hint }), { json: false, command: 'c' });
    expect(m.stderr()).toBe(
      'error[EGRESS_HOST_NOT_ALLOWED]: egress denied: example.org:80 is not on the allow list ' +
        `(rule policy-file:http.allow)\n  hint: ${hint}\n`,
    );
    const json = createMemoryIo();
    printError(json.io, new CliError('EGRESS_HOST_NOT_ALLOWED', message, { hint }), { json: true, command: 'c' });
    expect(failureSchema.parse(JSON.parse(json.stdout())).error.message).toBe(message);
  });

  it('colours on a TTY unless NO_COLOR is set', () => {
    const tty = createMemoryIo({ tty: true });
    printError(tty.io, new CliError('CLI_INTERNAL', 'y'), { json: false, command: 'c' });
    expect(tty.stderr()).toContain('\u001b[31m');
    const noColor = createMemoryIo({ tty: true, env: { NO_COLOR: '1' } });
    printError(noColor.io, new CliError('CLI_INTERNAL', 'y'), { json: false, command: 'c' });
    expect(noColor.stderr()).not.toContain('\u001b[');
  });

  it('lists every problem of a validation error', () => {
    const m = createMemoryIo();
    const err = Object.assign(new Error('2 problems'), {
      code: 'CAPABILITY_INVALID',
      problems: [
        { code: 'A', message: 'bad env', hint: 'write env:NAME', path: '0' },
        { code: 'B', message: 'bad fs' },
      ],
    });
    printError(m.io, err, { json: false, command: 'c' });
    expect(m.stderr()).toContain('  - A (at 0): bad env\n    fix: write env:NAME\n  - B: bad fs');
  });

  it('prints one schema-valid JSON document on stdout in json mode', () => {
    const m = createMemoryIo();
    const code = printError(m.io, new CliError('CLI_USAGE_INVALID_VALUE', 'bad', { hint: 'h', exitCode: 2 }), {
      json: true,
      command: 'doctor',
    });
    expect(code).toBe(2);
    const doc = failureSchema.parse(JSON.parse(m.stdout()));
    expect(doc.error).toEqual({
      code: expect.toBeTrustCode('CLI_USAGE_INVALID_VALUE'),
      message: 'bad',
      hint: 'h',
      exitCode: 2,
    });
    expect(m.stderr()).toBe('');
  });
});

describe('createOutput', () => {
  it('prints lines in human mode and only the result in json mode; progress always on stderr', () => {
    const human = createMemoryIo();
    const o = createOutput(human.io, { json: false, command: 'doctor' });
    o.line('hello');
    o.result({ a: 1 });
    o.progress('working');
    expect(human.stdout()).toBe('hello\n');
    expect(human.stderr()).toBe('› working\n');

    const json = createOutput(createMemoryIo().io, { json: true, command: 'doctor' });
    const j = createMemoryIo();
    const oj = createOutput(j.io, { json: true, command: 'doctor' });
    oj.line('hidden');
    oj.result({ a: 1 });
    oj.progress('working');
    expect(JSON.parse(j.stdout())).toEqual({ v: 1, ok: true, command: 'doctor', result: { a: 1 } });
    expect(j.stderr()).toBe('› working\n');
    expect(json.json).toBe(true);
  });
});
