import { describe, expect, it } from 'vitest';
import { rewriteImports } from './guest-imports.js';

describe('rewriteImports', () => {
  it.each([
    ["import path from 'node:path';", 'const path = require("node:path");'],
    ['import * as qs from "querystring"', 'const qs = require("querystring");'],
    ["import { format, inspect as i } from 'util';", 'const { format, inspect: i } = require("util");'],
    ["import E, { once } from 'events';", 'const E = require("events"), { once } = E;'],
    ["import E, * as all from 'events';", 'const all = require("events"), E = all;'],
    ["import 'assert';", 'require("assert");'],
  ])('%s', (input, expected) => {
    expect(rewriteImports(input)).toBe(expected);
  });

  it('rewrites only the leading block and keeps the line count', () => {
    const code = "// header\nimport a from 'path';\n\nimport b from 'util';\nreturn 1;\nimport c from 'events';";
    const out = rewriteImports(code);
    expect(out.split('\n')).toHaveLength(code.split('\n').length);
    expect(out).toContain('const a = require("path");');
    expect(out).toContain('const b = require("util");');
    expect(out).toContain("import c from 'events';");
  });

  it('leaves code without imports (and an import() call) untouched', () => {
    for (const code of ['return 1', "const m = await import('path');", 'important()'])
      expect(rewriteImports(code)).toBe(code);
  });
});
