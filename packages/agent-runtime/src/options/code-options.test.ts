import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { type CodeRunnerOptions, createCodeRunner } from '../code/code-runner.js';
import { type CodeSandbox, createCodeSandbox } from '../code/code-sandbox.js';
import { createTypeStripper } from '../code/type-strip.js';
import { codeRunnerOptionsSchema, codeSandboxOptionsSchema } from './code-options.js';
import { checkOptions } from './strict-options.js';
import { describeStrictOptions } from './strict-options.test-helper.js';

const dir = mkdtempSync(join(tmpdir(), 'code-options-'));
const adf = createAdf(join(dir, 'agent.adf'));
const sandbox = createCodeSandbox({ workers: 1 });
afterAll(async () => {
  adf.close();
  await sandbox.close();
});

describeStrictOptions('the code sandbox checks its options once, strictly', [
  {
    name: 'createCodeSandbox',
    make: (x) => createCodeSandbox({ workers: 1, ...x }),
    release: (made) => (made as CodeSandbox).close(),
    typo: 'maxNestedRun',
    meant: 'maxNestedRuns',
  },
  {
    name: 'createCodeRunner',
    make: (x) => createCodeRunner({ adf, sandbox, gate: () => undefined as never, ...x }),
    typo: 'methodQuota',
    meant: 'methodQuotas',
    wrong: [10],
  },
  {
    name: 'createTypeStripper',
    make: (x) => createTypeStripper({ maxEntries: 2, ...x }),
    typo: 'maxByte',
    meant: 'maxBytes',
    wrong: 1.5,
  },
]);

describe('checked code options keep their identity', () => {
  it('returns the very options object, injected stripper included', () => {
    const typeStripper = createTypeStripper();
    const options = { workers: 1, typeStripper };
    const checked = checkOptions('createCodeSandbox', codeSandboxOptionsSchema, options);
    expect(checked).toBe(options);
    expect(checked.typeStripper).toBe(typeStripper);
  });

  it('keeps the runner its adf, sandbox and gate', () => {
    const gate = () => undefined as never;
    const options: CodeRunnerOptions = { adf, sandbox, gate, methodQuotas: { model_invoke: 3 } };
    const checked = checkOptions('createCodeRunner', codeRunnerOptionsSchema, options);
    expect(checked).toBe(options);
    expect([checked.adf, checked.sandbox, checked.gate]).toEqual([adf, sandbox, gate]);
  });

  it('refuses a sandbox that is not one, naming the methods it lacks', () => {
    expect(() => createCodeRunner({ adf, sandbox: {} as never, gate: () => undefined as never })).toThrowTrustError(
      'AGENT_OPTIONS_INVALID',
    );
  });
});

describe('a method quota is checked field by field', () => {
  it('names the method whose quota is wrong', () => {
    const options = { adf, sandbox, gate: () => undefined as never, methodQuotas: { model_invoke: -1 } };
    expect(() => createCodeRunner(options)).toThrowTrustError('AGENT_OPTIONS_INVALID');
    expect(() => checkOptions('createCodeRunner', codeRunnerOptionsSchema, options)).toThrow(
      /methodQuotas\.model_invoke/,
    );
  });
});
