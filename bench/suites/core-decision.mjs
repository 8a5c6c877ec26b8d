// Baseline sanity suite: building a Decision value against building a plain object literal.
import { allow, deny } from '@trust/core';
import { sample, percentile } from '../lib/table.mjs';

export default async function run() {
  const n = 200_000;
  const ours = await sample(() => {
    for (let i = 0; i < 100; i++) i & 1 ? allow('r') : deny('X', 'y');
  }, n / 100);
  const base = await sample(() => {
    for (let i = 0; i < 100; i++) i & 1 ? { allow: true, rule: 'r' } : { allow: false, code: 'X', reason: 'y' };
  }, n / 100);
  return [
    {
      measure: 'decision value (100 per op)',
      unit: 'ns/op',
      ours: percentile(ours, 50),
      baseline: percentile(base, 50),
      baselineName: 'object literal',
      better: 'lower',
    },
  ];
}
