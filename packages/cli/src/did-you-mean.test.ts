import { describe, expect, it } from 'vitest';
import { didYouMean } from './did-you-mean.js';

describe('didYouMean', () => {
  it.each([
    ['--polcy', ['--policy', '--json'], '--policy'],
    ['--jsn', ['--policy', '--json'], '--json'],
    ['egres', ['egress', 'agent'], 'egress'],
    ['agnet', ['egress', 'agent'], 'agent'],
    ['pack', ['package', 'run'], 'package'],
    ['zzz', ['package', 'run'], undefined],
    ['--x', ['--policy'], undefined],
    ['DOCTOR', ['doctor'], 'doctor'],
  ] as const)('%s → %s', (input, candidates, expected) => {
    expect(didYouMean(input, candidates)).toBe(expected);
  });
});
