import { describe, expect, it } from 'vitest';
import { createStubResolver } from './stub-resolver.js';

describe('createStubResolver', () => {
  const resolve = createStubResolver({
    'a.test': ['1.2.3.4', '2001:db8::1'],
    'Rebind.test.': { sequence: [['127.0.0.1'], { fail: 'ESERVFAIL' }, ['10.0.0.1']] },
    'empty.test': [],
    'slow.test': { delayMs: 5, answer: ['5.6.7.8'] },
  });

  it('answers from the table, case- and trailing-dot-insensitively', async () => {
    await expect(resolve('A.TEST.')).resolves.toEqual(['1.2.3.4', '2001:db8::1']);
    await expect(resolve('empty.test')).resolves.toEqual([]);
    await expect(resolve('slow.test')).resolves.toEqual(['5.6.7.8']);
  });

  it('plays a sequence, repeating the last outcome', async () => {
    await expect(resolve('rebind.test')).resolves.toEqual(['127.0.0.1']);
    await expect(resolve('rebind.test')).rejects.toMatchObject({ code: 'ESERVFAIL' });
    await expect(resolve('rebind.test')).resolves.toEqual(['10.0.0.1']);
    await expect(resolve('rebind.test')).resolves.toEqual(['10.0.0.1']);
    expect(resolve.count('rebind.test')).toBe(4);
  });

  it('fails unknown names with ENOTFOUND and records calls', async () => {
    await expect(resolve('nope.test')).rejects.toMatchObject({ code: 'ENOTFOUND' });
    expect(resolve.calls).toContain('nope.test');
  });

  it('hangs when told to', async () => {
    const r = createStubResolver({}, { fallback: { hang: true } });
    const winner = await Promise.race([
      r('x.test').then(() => 'answered'),
      new Promise((ok) => setTimeout(() => ok('hung'), 20)),
    ]);
    expect(winner).toBe('hung');
  });
});
