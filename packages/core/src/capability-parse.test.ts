import { describe, expect, it } from 'vitest';
import { CAPABILITY_NAMES, CAPABILITY_RISKS } from './capability.js';
import { parseCapabilities, tryParseCapabilities } from './capability-parse.js';
import { thrownBy } from './testing/thrown-by.js';

function problemsOf(list: readonly string[]): { code: string; path?: string; hint?: string }[] {
  const r = tryParseCapabilities(list);
  if (r.ok) throw new Error(`expected failure for ${JSON.stringify(list)}`);
  expect(r.error.code).toBeTrustCode('CAPABILITY_INVALID');
  return r.error.problems.map((p) => ({ code: p.code, path: p.path, hint: p.hint }));
}

describe('parseCapabilities: every valid form', () => {
  it.each([
    ['env:LOG_LEVEL', { kind: 'env', name: 'LOG_LEVEL' }, 'env:LOG_LEVEL'],
    ['env:STRIPE_API_BASE', { kind: 'env', name: 'STRIPE_API_BASE' }, 'env:STRIPE_API_BASE'],
    ['env:_x1', { kind: 'env', name: '_x1' }, 'env:_x1'],
    ['fs:ro:/etc/certs', { kind: 'fs', mode: 'ro', path: '/etc/certs' }, 'fs:ro:/etc/certs'],
    [
      'fs:rw:/var/lib/myapp/cache',
      { kind: 'fs', mode: 'rw', path: '/var/lib/myapp/cache' },
      'fs:rw:/var/lib/myapp/cache',
    ],
    ['fs:ro:/data/..hidden/v1.2', { kind: 'fs', mode: 'ro', path: '/data/..hidden/v1.2' }, 'fs:ro:/data/..hidden/v1.2'],
    ['fs:ro:/a:b', { kind: 'fs', mode: 'ro', path: '/a:b' }, 'fs:ro:/a:b'],
    ['args', { kind: 'args' }, 'args'],
    ['stdin', { kind: 'stdin' }, 'stdin'],
    ['stdout', { kind: 'stdout' }, 'stdout'],
    ['stderr', { kind: 'stderr' }, 'stderr'],
    ['network', { kind: 'network' }, 'network'],
    ['sockets', { kind: 'sockets' }, 'sockets'],
    ['http', { kind: 'http' }, 'http'],
    ['tcp', { kind: 'tcp' }, 'tcp'],
    ['udp', { kind: 'udp' }, 'udp'],
    ['clocks', { kind: 'clocks' }, 'clocks'],
    ['random', { kind: 'random' }, 'random'],
  ])('%s parses', (entry, capability, canonical) => {
    const set = parseCapabilities([entry]);
    expect(set.entries).toEqual([capability]);
    expect(set.toStrings()).toEqual([canonical]);
    expect(set.warnings).toEqual([]);
  });

  it.each([
    [['tcp', 'udp']],
    [['network', 'sockets']],
    [['http', 'tcp', 'udp']],
    [['http', 'network']],
    [['env:A', 'env:B', 'fs:ro:/a', 'fs:rw:/b', 'args', 'stdout', 'stderr', 'stdin', 'clocks', 'random']],
  ])('accepts the combination %j', (list) => {
    expect(parseCapabilities(list).toStrings()).toEqual(list);
  });

  it.each([[undefined], [[]]])('%j is deny-all (an empty set)', (list) => {
    const set = parseCapabilities(list);
    expect(set.entries).toEqual([]);
    expect(set.egressTier()).toBe('none');
    expect(set.fsGrant('/').access).toBe('none');
    expect(set.allowsEnv('HOME').allow).toBe(false);
  });

  it('round-trips the canonical strings', () => {
    const list = ['fs:ro:/a', 'env:X', 'http', 'fs:rw:/b/c'];
    const once = parseCapabilities(list).toStrings();
    expect(parseCapabilities(once).toStrings()).toEqual(once);
  });
});

describe('parseCapabilities: every rejection', () => {
  it.each([
    ['env', 'CAPABILITY_BARE_ENV'],
    ['fs', 'CAPABILITY_BARE_FS'],
    ['filesystem', 'CAPABILITY_BARE_FS'],
    ['fs:ro:/', 'CAPABILITY_BARE_FS'],
    ['fs:rw:/..', 'CAPABILITY_FS_PATH'],
    ['fs:ro:/data/../etc', 'CAPABILITY_FS_PATH'],
    ['fs:ro:/etc/myapp/certs/', 'CAPABILITY_FS_PATH'],
    ['fs:rw://data/x', 'CAPABILITY_FS_PATH'],
    ['fs:rw:/data//x', 'CAPABILITY_FS_PATH'],
    ['fs:rw:/data/./x', 'CAPABILITY_FS_PATH'],
    ['fs:rw:/data/.', 'CAPABILITY_FS_PATH'],
    ['fs:rw://', 'CAPABILITY_BARE_FS'],
    ['fs:ro:/data\n', 'CAPABILITY_FS_PATH'],
    [`fs:ro:/${'a'.repeat(4096)}`, 'CAPABILITY_FS_PATH'],
    ['', 'CAPABILITY_EMPTY'],
    ['env:', 'CAPABILITY_EMPTY'],
    ['fs:ro:', 'CAPABILITY_EMPTY'],
    ['fs:rw:', 'CAPABILITY_EMPTY'],
    ['http\0', 'CAPABILITY_NUL'],
    ['env:A\0B', 'CAPABILITY_NUL'],
    ['fs:ro:/etc\0/x', 'CAPABILITY_NUL'],
    ['fs:xx:/data', 'CAPABILITY_FS_MODE'],
    ['fs:xx:', 'CAPABILITY_FS_MODE'],
    ['fs:RO:/data', 'CAPABILITY_FS_MODE'],
    ['fs:/data', 'CAPABILITY_FS_MODE'],
    ['fs:', 'CAPABILITY_FS_MODE'],
    ['fs:ro:data', 'CAPABILITY_FS_RELATIVE'],
    ['fs:rw:./cache', 'CAPABILITY_FS_RELATIVE'],
    ['fs:ro:~/x', 'CAPABILITY_FS_RELATIVE'],
    ['env:1ABC', 'CAPABILITY_ENV_NAME'],
    ['env:A=B', 'CAPABILITY_ENV_NAME'],
    ['env:A B', 'CAPABILITY_ENV_NAME'],
    ['env:*', 'CAPABILITY_ENV_NAME'],
    ['netwrok', 'CAPABILITY_UNKNOWN'],
    ['HTTP', 'CAPABILITY_UNKNOWN'],
    [' http', 'CAPABILITY_UNKNOWN'],
    ['clock', 'CAPABILITY_UNKNOWN'],
    ['wasi:http', 'CAPABILITY_UNKNOWN'],
    ['http:api.example.com', 'CAPABILITY_UNKNOWN'],
    ['evn:HOME', 'CAPABILITY_UNKNOWN'],
    ['gpu', 'CAPABILITY_UNKNOWN'],
  ])('%j is rejected with %s', (entry, code) => {
    const problems = problemsOf([entry]);
    expect(problems).toHaveLength(1);
    expect(problems[0]?.code).toBe(code);
    expect(problems[0]?.path).toBe('[0]');
    expect(problems[0]?.hint).toBeTruthy();
  });

  it.each([
    ['netwrok', 'did you mean "network"'],
    ['HTTP', 'did you mean "http"'],
    [' http', 'did you mean "http"'],
    ['clock', 'did you mean "clocks"'],
    ['evn:HOME', 'did you mean "env:HOME"'],
    ['filesystem:ro:/x', 'did you mean "fs:ro:/x"'],
    ['http:api.example.com', 'write "http"'],
    ['fs:RO:/data', '"fs:ro:/data"'],
    ['fs:/data', '"fs:ro:/data"'],
    ['fs:ro:data', '"fs:ro:/data"'],
    ['env', '"env:LOG_LEVEL"'],
  ])('%j hints %s', (entry, fragment) => {
    expect(problemsOf([entry])[0]?.hint).toContain(fragment);
  });

  it.each([[['tcp', 'network']], [['udp', 'sockets']], [['network', 'tcp', 'udp']]])(
    '%j is a tier conflict',
    (list) => {
      expect(problemsOf(list).map((p) => p.code)).toEqual(['CAPABILITY_TIER_CONFLICT']);
    },
  );

  it('lists every problem at once, in order, with paths', () => {
    const problems = problemsOf(['env', 'http', 'fs', 'netwrok', 'env:', 'tcp', 'network']);
    expect(problems.map((p) => [p.code, p.path])).toEqual([
      ['CAPABILITY_BARE_ENV', '[0]'],
      ['CAPABILITY_BARE_FS', '[2]'],
      ['CAPABILITY_UNKNOWN', '[3]'],
      ['CAPABILITY_EMPTY', '[4]'],
      ['CAPABILITY_TIER_CONFLICT', '[6]'],
    ]);
  });

  it('throws a TrustError from parseCapabilities, escaping the entry in the message', () => {
    const e = thrownBy(() => parseCapabilities(['bad\u001b[31m']));
    expect(e.code).toBeTrustCode('CAPABILITY_INVALID');
    expect(e.message).not.toContain('\u001b');
  });

  it('parseCapabilities throws CAPABILITY_INVALID', () => {
    expect(() => parseCapabilities(['env', 'fs'])).toThrowTrustError('CAPABILITY_INVALID');
  });

  it.each([['http'], [{ 0: 'http' }], [null]])('rejects a list that is not an array: %j', (list) => {
    expect(() => parseCapabilities(list as unknown as string[])).toThrowTrustError('CAPABILITY_INVALID');
  });

  it('rejects non-string entries from untyped input', () => {
    expect(problemsOf([42 as unknown as string])[0]?.code).toBeTrustCode('CAPABILITY_UNKNOWN');
  });
});

describe('duplicates', () => {
  it('keeps one and warns with CAPABILITY_DUPLICATE', () => {
    const set = parseCapabilities(['http', 'env:A', 'http', 'fs:ro:/a']);
    expect(set.toStrings()).toEqual(['http', 'env:A', 'fs:ro:/a']);
    expect(set.warnings.map((w) => [w.code, w.path, w.severity])).toEqual([['CAPABILITY_DUPLICATE', '[2]', 'warning']]);
  });

  it('collapses an exact duplicate fs grant with a warning', () => {
    const set = parseCapabilities(['fs:ro:/a', 'env:A', 'fs:ro:/a']);
    expect(set.toStrings()).toEqual(['fs:ro:/a', 'env:A']);
    expect(set.warnings.map((w) => [w.code, w.path, w.severity])).toEqual([['CAPABILITY_DUPLICATE', '[2]', 'warning']]);
  });
});

describe('fs grants are canonical and nest', () => {
  it('accepts a path of exactly PATH_MAX bytes and refuses one byte more', () => {
    const at = `/${'a'.repeat(4095)}`;
    expect(parseCapabilities([`fs:ro:${at}`]).fsGrants[0]?.path).toBe(at);
    expect(problemsOf([`fs:ro:${at}b`])[0]?.code).toBeTrustCode('CAPABILITY_FS_PATH');
    // bytes, not UTF-16 units: 2048 two-byte characters are 4096 bytes plus the slash
    expect(problemsOf([`fs:ro:/${'\u00e9'.repeat(2048)}`])[0]?.code).toBeTrustCode('CAPABILITY_FS_PATH');
  });

  it('names the canonical form in the hint instead of rewriting', () => {
    expect(problemsOf(['fs:rw://data/./x/'])[0]?.hint).toContain('"fs:rw:/data/x"');
  });

  it.each([
    [
      ['fs:rw:/data', 'fs:ro:/data/sub'],
      ['/data/x', 'rw'],
      ['/data/sub/x', 'ro'],
    ],
    [
      ['fs:ro:/data/sub', 'fs:rw:/data'],
      ['/data/x', 'rw'],
      ['/data/sub/x', 'ro'],
    ],
    [
      ['fs:ro:/repo', 'fs:rw:/repo/dist'],
      ['/repo/src/a.ts', 'ro'],
      ['/repo/dist/a.js', 'rw'],
    ],
    [
      ['fs:rw:/w', 'fs:none:/w/.git/hooks'],
      ['/w/.git/config', 'rw'],
      ['/w/.git/hooks/pre-commit', 'none'],
    ],
    [
      ['fs:ro:/a', 'fs:rw:/a/b', 'fs:none:/a/b/s'],
      ['/a/b/t', 'rw'],
      ['/a/b/s/k', 'none'],
    ],
    [
      ['fs:ro:/a', 'fs:none:/a/b', 'fs:rw:/a/b/c'],
      ['/a/b/x', 'none'],
      ['/a/b/c/x', 'rw'],
    ],
  ])('accepts nested entries, the most specific winning: %j', (list, [p1, a1], [p2, a2]) => {
    const set = parseCapabilities(list);
    expect(set.fsGrants).toHaveLength(list.length);
    expect(set.fsGrant(p1 as string).access).toBe(a1);
    expect(set.fsGrant(p2 as string).access).toBe(a2);
  });

  it.each([
    [['fs:rw:/d', 'fs:ro:/d'], '[1]'],
    [['fs:ro:/d', 'fs:none:/d'], '[1]'],
    [['fs:none:/d/x', 'fs:rw:/d', 'fs:ro:/d/x'], '[2]'],
  ])('refuses one path in two modes: %j', (list, path) => {
    expect(problemsOf(list).map((p) => [p.code, p.path])).toEqual([['CAPABILITY_FS_MODE_CONFLICT', path]]);
  });

  it.each([[['fs:none:/etc/shadow']], [['fs:ro:/data', 'fs:none:/database/x']], [['fs:rw:/a/b', 'fs:none:/a']]])(
    'refuses a deny entry inside no grant: %j',
    (list) => {
      const problems = problemsOf(list);
      expect(problems.map((p) => p.code)).toEqual(['CAPABILITY_FS_DENY_UNCOVERED']);
      expect(problems[0]?.hint).toMatch(/fs:ro:\//);
    },
  );

  it('parses fs:none with the same path rules as a grant', () => {
    expect(problemsOf(['fs:ro:/a', 'fs:none:/a/../b'])[0]?.code).toBeTrustCode('CAPABILITY_FS_PATH');
    expect(problemsOf(['fs:ro:/a', 'fs:none:a/b'])[0]?.code).toBeTrustCode('CAPABILITY_FS_RELATIVE');
    expect(problemsOf(['fs:NONE:/a'])[0]?.hint).toContain('"fs:none:/a"');
  });

  it('accepts siblings and prefix-sharing names', () => {
    expect(
      parseCapabilities(['fs:rw:/data', 'fs:ro:/database', 'fs:ro:/data-old', 'fs:rw:/srv/a', 'fs:ro:/srv/b']).fsGrants,
    ).toHaveLength(5);
  });
});

describe('CAPABILITY_RISKS', () => {
  it('has a one-line note for every capability name', () => {
    expect(Object.keys(CAPABILITY_RISKS).sort()).toEqual([...CAPABILITY_NAMES].sort());
    for (const note of Object.values(CAPABILITY_RISKS)) expect(note).toMatch(/^may [^\n]+$/);
  });
});
