// createAhead: one thing made ahead, taken once, or discarded after it waited unused.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAhead } from './ahead.js';

describe('createAhead', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('gives what was offered to the first take only', async () => {
    const discard = vi.fn(async () => undefined);
    const ahead = createAhead<string>(1000, discard);
    expect(ahead.holding).toBe(false);
    ahead.offer(Promise.resolve('run'));
    expect(ahead.holding).toBe(true);
    expect(await ahead.take()).toBe('run');
    expect(ahead.holding).toBe(false);
    expect(await ahead.take()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(5000);
    expect(discard).not.toHaveBeenCalled();
  });

  it('discards what waited expireMs untaken, counted from the offer', async () => {
    const discard = vi.fn(async () => undefined);
    const ahead = createAhead<string>(1000, discard);
    ahead.offer(Promise.resolve('run'));
    await vi.advanceTimersByTimeAsync(999);
    expect(discard).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(discard).toHaveBeenCalledWith('run');
    expect(ahead.holding).toBe(false);
    expect(await ahead.take()).toBeUndefined();
  });

  it(
    'a new offer discards what was held and restarts the wait; ' + 'a failed making (undefined) is not discarded',
    async () => {
      const discard = vi.fn(async () => undefined);
      const ahead = createAhead<string>(1000, discard);
      ahead.offer(Promise.resolve(undefined));
      await vi.advanceTimersByTimeAsync(1000);
      expect(discard).not.toHaveBeenCalled();
      ahead.offer(Promise.resolve('first'));
      await vi.advanceTimersByTimeAsync(600);
      ahead.offer(Promise.resolve('second'));
      await vi.advanceTimersByTimeAsync(600);
      expect(discard).toHaveBeenCalledExactlyOnceWith('first');
      expect(await ahead.take()).toBe('second');
      await vi.advanceTimersByTimeAsync(1000);
      expect(discard).toHaveBeenCalledTimes(1);
    },
  );
});
