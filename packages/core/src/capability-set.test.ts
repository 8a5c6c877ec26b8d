import { describe, expect, it } from 'vitest';
import { parseCapabilities } from './capability-parse.js';

describe('CapabilitySet', () => {
  it('is frozen', () => {
    const set = parseCapabilities(['env:A', 'fs:ro:/a']);
    expect(Object.isFrozen(set)).toBe(true);
    expect(Object.isFrozen(set.entries)).toBe(true);
    expect(Object.isFrozen(set.entries[0])).toBe(true);
    expect(Object.isFrozen(set.fsGrants)).toBe(true);
    expect(Object.isFrozen(set.envNames)).toBe(true);
  });

  it.each([
    ['A', true],
    ['B', true],
    ['a', false],
    ['C', false],
    ['', false],
  ])('allowsEnv(%j) is %s', (name, allowed) => {
    const d = parseCapabilities(['env:A', 'env:B', 'http']).allowsEnv(name);
    if (allowed) expect(d).toBeAllowed();
    else expect(d).toBeDenied('CAPABILITY_ENV_NOT_GRANTED');
    if (!d.allow) {
      expect(d.code).toBeTrustCode('CAPABILITY_ENV_NOT_GRANTED');
      expect(d.hint).toContain(`"env:${name}"`);
    } else {
      expect(d.rule).toBe(`env:${name}`);
    }
  });

  it('lists env names and fs grants', () => {
    const set = parseCapabilities(['env:A', 'fs:rw:/x', 'env:B', 'fs:ro:/y']);
    expect(set.envNames).toEqual(['A', 'B']);
    expect(set.fsGrants).toEqual([
      { mode: 'rw', path: '/x' },
      { mode: 'ro', path: '/y' },
    ]);
  });

  it.each([
    ['env', true],
    ['fs', true],
    ['http', true],
    ['tcp', false],
    ['network', false],
  ] as const)('has(%s) is %s', (kind, expected) => {
    expect(parseCapabilities(['env:A', 'fs:ro:/a', 'http']).has(kind)).toBe(expected);
  });

  const grants = ['fs:rw:/data', 'fs:ro:/secret', 'fs:ro:/etc/certs', 'fs:rw:/same'];
  it.each([
    ['/data', 'rw', '/data'],
    ['/data/', 'rw', '/data'],
    ['/data/a/b.txt', 'rw', '/data'],
    ['/secret', 'ro', '/secret'],
    ['/secret/key.pem', 'ro', '/secret'],
    ['/secretive', 'none', undefined],
    ['/database', 'none', undefined],
    ['/dat', 'none', undefined],
    ['/', 'none', undefined],
    ['//data//x', 'rw', '/data'],
    ['/data/secret/../x', 'rw', '/data'],
    ['/data/../etc/passwd', 'none', undefined],
    ['/data/../secret/./k', 'ro', '/secret'],
    ['/etc/certs/../../data/x', 'rw', '/data'],
    ['/../data', 'rw', '/data'],
    ['data/x', 'none', undefined],
    ['./data', 'none', undefined],
    ['', 'none', undefined],
    ['/etc/certs/ca.pem', 'ro', '/etc/certs'],
    ['/etc/certsX', 'none', undefined],
    ['/same/x', 'rw', '/same'],
  ])('fsGrant(%j) is %s via %s', (path, access, root) => {
    const r = parseCapabilities(grants).fsGrant(path);
    expect(r.access).toBe(access);
    expect(r.root).toBe(root);
  });

  it.each([
    [[], 'none'],
    [['env:A', 'fs:ro:/a', 'clocks'], 'none'],
    [['http'], 'brokered'],
    [['tcp'], 'brokered'],
    [['udp'], 'brokered'],
    [['network'], 'coarse'],
    [['sockets'], 'coarse'],
    [['http', 'network'], 'coarse'],
  ])('%j has egress tier %s', (list, tier) => {
    expect(parseCapabilities(list).egressTier()).toBe(tier);
  });

  describe('narrow', () => {
    it('keeps what both sets grant', () => {
      const a = parseCapabilities(['http', 'env:A', 'env:B', 'stdout', 'fs:rw:/a', 'fs:ro:/z']);
      const b = parseCapabilities(['env:B', 'stdout', 'tcp', 'fs:rw:/a/b', 'fs:ro:/z/c']);
      const n = a.narrow(b);
      expect(n.toStrings()).toEqual(['env:B', 'stdout', 'fs:rw:/a/b', 'fs:ro:/z/c']);
      expect(n.fsGrant('/a/x').access).toBe('none');
      expect(n.fsGrant('/a/b/x').access).toBe('rw');
      expect(n.fsGrant('/z/c/d').access).toBe('ro');
      expect(n.fsGrant('/z/d').access).toBe('none');
    });

    it('takes the weaker mode for the same directory', () => {
      const n = parseCapabilities(['fs:rw:/d']).narrow(parseCapabilities(['fs:ro:/d']));
      expect(n.toStrings()).toEqual(['fs:ro:/d']);
    });

    it('with an empty set is empty', () => {
      expect(parseCapabilities(['http', 'fs:rw:/d']).narrow(parseCapabilities([])).entries).toEqual([]);
    });

    it('keeps a deny entry of either side where a kept grant covers it', () => {
      const a = parseCapabilities(['fs:rw:/w', 'fs:none:/w/secret']);
      const b = parseCapabilities(['fs:ro:/w', 'fs:rw:/w/out']);
      const n = a.narrow(b);
      expect(n.toStrings()).toEqual(['fs:ro:/w', 'fs:rw:/w/out', 'fs:none:/w/secret']);
      expect(n.fsGrant('/w/secret/k').access).toBe('none');
      expect(n.fsGrant('/w/out/x').access).toBe('rw');
      expect(n.fsGrant('/w/x').access).toBe('ro');
      expect(b.narrow(a).toStrings()).toEqual(n.toStrings());
    });
  });
});
