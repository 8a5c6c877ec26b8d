import { describe, expect, it } from 'vitest';
import { checkImports, checkManifest, type PackedManifest } from './manifest-checks.js';

const good: PackedManifest = {
  name: '@trust/x',
  version: '0.1.0',
  license: 'Apache-2.0',
  keywords: ['sandbox'],
  types: './dist/index.d.ts',
  exports: { '.': { types: './dist/index.d.ts', import: './dist/index.js' } },
  engines: { node: '>=20.19' },
  bin: { x: './bin/x.cjs' },
  dependencies: { '@trust/core': '0.1.0', zod: '4.6.7' },
};
const files = new Set(['dist/index.d.ts', 'dist/index.js', 'bin/x.cjs', 'package.json', 'LICENSE']);

describe('checkManifest', () => {
  it('accepts a complete manifest', () => {
    expect(checkManifest(good, files, '>=20.19')).toEqual([]);
  });

  it('accepts a command package: a bin and no exports, types or main', () => {
    const command: PackedManifest = {
      name: '@trust/x',
      version: '0.1.0',
      license: 'Apache-2.0',
      keywords: ['cli'],
      engines: { node: '>=20.19' },
      bin: { x: './bin/x.cjs' },
    };
    expect(checkManifest(command, files, '>=20.19')).toEqual([]);
  });

  it.each<[string, PackedManifest, RegExp]>([
    [
      'a workspace range',
      { ...good, dependencies: { '@trust/core': 'workspace:*' } },
      /dependencies.@trust\/core is "workspace:\*"/,
    ],
    ['a missing types entry', { ...good, types: undefined }, /no "types" entry/],
    ['types naming a missing file', { ...good, types: './dist/other.d.ts' }, /not in the tarball/],
    ['a missing exports map', { ...good, exports: undefined, bin: undefined }, /no "exports" map/],
    [
      'a command that names types but exports nothing',
      { ...good, exports: undefined },
      /a command package names "types"/,
    ],
    [
      'an export without types',
      { ...good, exports: { '.': { import: './dist/index.js' } } },
      /exports\["\."\] has no "types"/,
    ],
    ['a bin not packed', { ...good, bin: { x: './bin/y.cjs' } }, /bin.x names/],
    ['another engines range', { ...good, engines: { node: '>=18' } }, /engines.node/],
    ['no license field', { ...good, license: undefined }, /no "license" field/],
    ['no keywords', { ...good, keywords: [] }, /no "keywords"/],
  ])('reports %s', (_, m, problem) => {
    expect(checkManifest(m, files, '>=20.19')).toEqual([expect.stringMatching(problem)]);
  });

  it('reports a tarball without its LICENSE text', () => {
    const unlicensed = new Set([...files].filter((f) => f !== 'LICENSE'));
    expect(checkManifest(good, unlicensed, '>=20.19')).toEqual(['no LICENSE file in the tarball']);
  });
});

describe('checkImports', () => {
  it.each<[string, string, string[]]>([
    ['relative inside', "import { a } from './chunk-1.js';", []],
    ['node built-ins', "import fs from 'node:fs'; import path from 'path';", []],
    ['dependencies and self', "import { z } from 'zod'; export * from '@trust/core'; import('@trust/x/sub');", []],
    [
      'a path outside the package',
      "import a from '../../core/src/index.js';",
      ['dist/index.js imports ../../core/src/index.js, outside the package'],
    ],
    ['an absolute path', "const a = require('/opt/x.js');", ['dist/index.js imports /opt/x.js, outside the package']],
    [
      'SQL text that mentions from/import',
      'db.exec(\'CREATE TABLE t (a TEXT); SELECT a from " TEXT, " import "x y"\');',
      [],
    ],
    [
      'an undeclared package',
      "import type { Database } from 'better-sqlite3';",
      ['dist/index.js imports better-sqlite3, which is not a dependency'],
    ],
  ])('%s', (_, text, problems) => {
    expect(checkImports(good, new Map([['dist/index.js', text]]))).toEqual(problems);
  });
});
