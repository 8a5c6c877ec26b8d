// Test-only: the three checks every strictly checked `create*` must pass, as one table-driven
// describe. Not exported from the package.
import { isTrustError } from '@trust/core';
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

async function thrown(make: () => unknown, release?: (made: unknown) => unknown): Promise<unknown> {
  try {
    const made = await make();
    await release?.(made);
  } catch (e) {
    return e;
  }
  return undefined;
}

/** Declares the table tests: valid options pass, an unknown key gets "did you mean", a wrong value its example. */
export function describeStrictOptions(title: string, cases: readonly StrictCase[]): void {
  const table = cases.map((c) => [c.name, c] as const);
  describe(title, () => {
    it.each(table)('%s accepts its valid options', async (_name, c) => {
      expect(await thrown(() => c.make({}), c.release)).toBeUndefined();
    });

    it.each(table)('%s refuses an unknown key with a did-you-mean hint', async (name, c) => {
      const error = await thrown(() => c.make({ [c.typo]: 1 }), c.release);
      expect(error).toHaveTrustCode('AGENT_OPTIONS_INVALID');
      if (!isTrustError(error)) throw new Error('not a TrustError');
      expect(error.message).toContain(name);
      expect(error.problems).toEqual([
        expect.objectContaining({
          code: expect.toBeTrustCode('AGENT_OPTIONS_UNKNOWN_KEY'),
          path: c.typo,
          hint: expect.stringContaining(`did you mean "${c.meant}"?`),
        }),
      ]);
    });

    it.each(table)('%s refuses a wrong value with the field example, every problem at once', async (_name, c) => {
      const wrong = 'wrong' in c ? c.wrong : Symbol('wrong');
      const error = await thrown(() => c.make({ [c.meant]: wrong, extra: true }), c.release);
      expect(error).toHaveTrustCode('AGENT_OPTIONS_INVALID');
      if (!isTrustError(error)) throw new Error('not a TrustError');
      const codes = error.problems.map((p) => `${p.code} ${p.path}`).sort();
      expect(codes).toEqual([`AGENT_OPTIONS_INVALID ${c.meant}`, 'AGENT_OPTIONS_UNKNOWN_KEY extra']);
      expect(error.problems.find((p) => p.path === c.meant)?.hint).toMatch(/e\.g\. /);
    });
  });
}
