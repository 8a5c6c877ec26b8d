import { describe, expect, it } from 'vitest';
import { withContentKeys } from './content-keys';

describe('withContentKeys', () => {
  it('keys items by their content and numbers repeats so keys stay unique', () => {
    const rows = withContentKeys(['a', 'b', 'a', 'a'], (s) => s);
    expect(rows.map((r) => r.key)).toEqual(['a', 'b', 'a#2', 'a#3']);
    expect(rows.map((r) => r.item)).toEqual(['a', 'b', 'a', 'a']);
  });

  it('keeps the key of an item when an unrelated item before it goes', () => {
    const before = withContentKeys(['x', 'y'], (s) => s);
    const after = withContentKeys(['y'], (s) => s);
    expect(after[0]!.key).toBe(before[1]!.key);
  });
});
