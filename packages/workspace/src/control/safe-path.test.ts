import { describe, expect, it } from 'vitest';
import { evaluateRelativePath } from './safe-path.js';

describe('evaluateRelativePath', () => {
  it.each([
    ['notes/a.md', 'notes/a.md'],
    ['a%20b.txt', 'a b.txt'],
    ['..', false],
    ['../etc/passwd', false],
    ['..%2f..%2fetc%2fpasswd', false],
    ['a/../../b', false],
    ['a/./b', false],
    ['%2Fetc%2Fpasswd', false],
    ['/etc/passwd', false],
    ['a//b', false],
    ['a%5c..%5cb', false],
    ['a%00.txt', false],
    ['%E0%A4%A', false],
  ] as const)('%s', (input, expected) => {
    const d = evaluateRelativePath(input, '/root');
    if (expected === false)
      expect(d).toMatchObject({ allow: false, code: expect.toBeTrustCode('CONTROL_PATH_INVALID') });
    else expect(d).toMatchObject({ allow: true, path: expected });
  });
});
