import { describe, expect, it } from 'vitest';
import { riskLevel } from './plugin-reports.js';

describe('riskLevel', () => {
  it.each([
    ['http', 'high'],
    ['network', 'high'],
    ['fs:rw:/x', 'high'],
    ['fs:ro:/x', 'medium'],
    ['env:HOME', 'medium'],
    ['stdout', 'low'],
    ['clocks', 'low'],
  ] as const)('%s → %s', (cap, level) => {
    expect(riskLevel(cap)).toBe(level);
  });
});
