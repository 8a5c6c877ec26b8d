// Test-only: the three checks every strictly checked `create*` must pass, as one table-driven
// describe. Not exported from the package.
import { rejectionOf } from '@trust/core/testing';
import { describe, expect, it } from 'vitest';

/** One `create*` under test. */
export interface StrictCase {
  /** The function's name; the error message starts with it. */
  readonly name: string;
  /** Calls it with valid options plus `extra`; returns what the function returned (awaited). */
  readonly make: (extra: Record<string, unknown>) => unknown;
  /** Releases what a successful `make` started (a server, workers). */
  readonly release?: (made: unknown) => unknown;
  /** A misspelt key and the key it should be. */
  readonly typo: string;
  readonly meant: string;
  /** A wrong value for `meant` (default a symbol, which no field accepts). */
  readonly wrong?: unknown;
}

/** Makes it with valid options plus `extra` and releases what it started; resolves to 'accepted'. */
async function accept(c: StrictCase, extra: Record<string, unknown>): Promise<'accepted'> {
  const made = await c.make(extra);
  await c.release?.(made);
  return 'accepted';
}

/** Declares the table tests: valid options pass, an unknown key gets "did you mean", a wrong value its example. */
export function describeStrictOptions(title: string, cases: readonly StrictCase[]): void {
  const table = cases.map((c) => [c.name, c] as const);
  describe(title, () => {
    it.each(table)('%s accepts its valid options', async (_name, c) => {
      await expect(accept(c, {})).resolves.toBe('accepted');
    });

    it.each(table)('%s refuses an unknown key with a did-you-mean hint', async (name, c) => {
      expect(await rejectionOf(() => accept(c, { [c.typo]: 1 }))).toRefuseOptions(
        'AGENT_OPTIONS_INVALID',
        [{ code: 'AGENT_OPTIONS_UNKNOWN_KEY', path: c.typo, hint: `did you mean "${c.meant}"?` }],
        name,
      );
    });

    it.each(table)('%s refuses a wrong value with the field example, every problem at once', async (_name, c) => {
      const wrong = 'wrong' in c ? c.wrong : Symbol('wrong');
      expect(await rejectionOf(() => accept(c, { [c.meant]: wrong, extra: true }))).toRefuseOptions(
        'AGENT_OPTIONS_INVALID',
        [
          { code: 'AGENT_OPTIONS_INVALID', path: c.meant, hint: /e\.g\. / },
          { code: 'AGENT_OPTIONS_UNKNOWN_KEY', path: 'extra' },
        ],
      );
    });
  });
}
