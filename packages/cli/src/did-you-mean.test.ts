import { describe, expect, it } from 'vitest';
import { didYouMean, didYouMeanFlag } from './did-you-mean.js';

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

  it.each([
    ['--trustedKeys', ['--trusted', '--grant', '--policy'], '--trusted'],
    ['--allowCidrs', ['--allow-cidr', '--deny-cidr'], '--allow-cidr'],
    ['--capability', ['--cap', '--policy', '--cwd'], '--cap'],
    ['--polcy', ['--policy', '--json'], '--policy'],
    ['-x', ['-h', '-n', '--lines'], undefined],
    ['--zzzzzz', ['--policy'], undefined],
  ] as const)('flag %s → %s', (input, candidates, expected) => {
    expect(didYouMeanFlag(input, candidates)).toBe(expected);
  });
});
