import { describe, expect, it } from 'vitest';
import { isPathWithin, normalizeAbsolutePath } from './path.js';
import { editDistance, suggest } from './suggest.js';

describe('normalizeAbsolutePath', () => {
  it.each([
    ['/', '/'],
    ['//', '/'],
    ['/a/b/', '/a/b'],
    ['/a//b', '/a/b'],
    ['/a/./b', '/a/b'],
    ['/a/../b', '/b'],
    ['/../..', '/'],
    ['/a/b/../../..', '/'],
    ['/a/..b', '/a/..b'],
    ['a', undefined],
    ['', undefined],
    ['./a', undefined],
  ])('%j -> %j', (input, expected) => {
    expect(normalizeAbsolutePath(input)).toBe(expected);
  });

  it.each([
    ['/data', '/data', true],
    ['/data', '/data/x', true],
    ['/data', '/database', false],
    ['/data', '/', false],
    ['/', '/anything', true],
  ])('isPathWithin(%j, %j) is %s', (root, path, expected) => {
    expect(isPathWithin(root, path)).toBe(expected);
  });
});

describe('suggest', () => {
  it.each([
    ['', '', 0],
    ['abc', 'abc', 0],
    ['abc', 'abd', 1],
    ['kitten', 'sitting', 3],
    ['evn', 'env', 1],
    ['ca', 'abc', 3],
    ['', 'abc', 3],
  ])('editDistance(%j, %j) is %i', (a, b, d) => {
    expect(editDistance(a, b)).toBe(d);
  });

  it.each([
    ['netwrok', 'network'],
    ['HTTP', 'http'],
    ['tpc', 'tcp'],
    ['ab', undefined],
    ['xyz', undefined],
    ['stdot', 'stdout'],
  ])('suggest(%j) is %j', (input, expected) => {
    expect(suggest(input, ['http', 'tcp', 'network', 'stdout', 'stderr'])).toBe(expected);
  });
});
