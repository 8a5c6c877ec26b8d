#!/usr/bin/env node
// Rewrites test assertions that match an error code written as a bare string into the typed trust
// matchers, so that tsc rejects a misspelt code. Idempotent: a second run changes nothing.
//
//   node scripts/codemods/typed-error-codes.mjs            rewrite every *.test.ts in the tree
//   node scripts/codemods/typed-error-codes.mjs FILE...    rewrite only these files
//   node scripts/codemods/typed-error-codes.mjs --check    change nothing; exit 1 if a file would change
//
// Only literals that are known codes (in @trust/core's lists) are rewritten; anything else (a
// Node errno such as 'ENOENT', a code-run result written as data) is left alone. Rewrites:
//   expect(v).toMatchObject({ code: 'C' })              -> expect(v).toHaveTrustCode('C')
//   expect(p).rejects.toMatchObject({ code: 'C' })      -> expect(p).rejects.toHaveTrustCode('C')
//   expect(v).toEqual(expect.objectContaining({ code: 'C' }))  -> expect(v).toHaveTrustCode('C')
//   expect(f).toThrow(expect.objectContaining({ code: 'C' }))  -> expect(f).toThrowTrustError('C')
//   expect(x.code).toBe('C') / toEqual / toStrictEqual  -> expect(x.code).toBeTrustCode('C')
//   any other { code: 'C' } inside a matcher's argument -> { code: expect.toBeTrustCode('C') }
// CliError is not a TrustError, so a CLI_* code thrown by a function keeps the object form.
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { readKnownCodes } from '../known-error-codes.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const known = readKnownCodes(root);
const cliCodes = new Set([...known].filter(([, file]) => file === 'error-codes-cli.ts').map(([code]) => code));

const VALUE_EQUALITY = new Set(['toBe', 'toEqual', 'toStrictEqual']);
const OBJECT_MATCH = new Set(['toMatchObject', 'toEqual', 'toStrictEqual']);
const THROW_MATCH = new Set(['toThrow', 'toThrowError']);

const isKnownLiteral = (node) => node !== undefined && ts.isStringLiteralLike(node) && known.has(node.text);

/** True when `node` is `expect(...)` or a property chain on it (`expect(x).rejects.not`). */
function isExpectChain(node) {
  while (ts.isPropertyAccessExpression(node)) node = node.expression;
  return ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === 'expect';
}

/** `expect.objectContaining(arg)` → arg, else undefined. */
function objectContainingArg(node) {
  if (!ts.isCallExpression(node) || node.arguments.length !== 1) return undefined;
  const c = node.expression;
  if (
    !ts.isPropertyAccessExpression(c) ||
    c.name.text !== 'objectContaining' ||
    !ts.isIdentifier(c.expression) ||
    c.expression.text !== 'expect'
  )
    return undefined;
  return node.arguments[0];
}

/** `{ code: 'C' }` with a known C and nothing else → the literal, else undefined. */
function soleCode(node) {
  if (node === undefined || !ts.isObjectLiteralExpression(node) || node.properties.length !== 1) return undefined;
  const p = node.properties[0];
  if (!ts.isPropertyAssignment(p) || propName(p) !== 'code' || !isKnownLiteral(p.initializer)) return undefined;
  return p.initializer;
}

function propName(p) {
  return ts.isIdentifier(p.name) || ts.isStringLiteral(p.name) ? p.name.text : undefined;
}

export function transform(text, fileName = 'file.test.ts') {
  const sf = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const edits = [];
  const q = (lit) => lit.getText(sf);
  const replaceCall = (call, name, lit) => {
    const callee = call.expression;
    edits.push({ start: callee.name.getStart(sf), end: call.getEnd(), text: `${name}(${q(lit)})` });
  };
  const wrapNested = (node) => {
    const visit = (n) => {
      if (ts.isPropertyAssignment(n) && propName(n) === 'code' && isKnownLiteral(n.initializer)) {
        edits.push({
          start: n.initializer.getStart(sf),
          end: n.initializer.getEnd(),
          text: `expect.toBeTrustCode(${q(n.initializer)})`,
        });
        return;
      }
      ts.forEachChild(n, visit);
    };
    visit(node);
  };
  const visit = (node) => {
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      isExpectChain(node.expression.expression)
    ) {
      const name = node.expression.name.text;
      const [arg] = node.arguments;
      if (node.arguments.length === 1) {
        const inner = objectContainingArg(arg);
        const objectCode = soleCode(arg) ?? soleCode(inner);
        if (OBJECT_MATCH.has(name) && objectCode && (name === 'toMatchObject' || inner !== undefined))
          return replaceCall(node, 'toHaveTrustCode', objectCode);
        if (THROW_MATCH.has(name) && objectCode && !cliCodes.has(objectCode.text))
          return replaceCall(node, 'toThrowTrustError', objectCode);
        if (VALUE_EQUALITY.has(name) && isKnownLiteral(arg)) return replaceCall(node, 'toBeTrustCode', arg);
      }
      // toRefuseOptions' problems are typed (TrustErrorCode) already and compared as plain values.
      if (name !== 'toRefuseOptions') node.arguments.forEach(wrapNested);
      ts.forEachChild(node.expression, visit);
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  edits.sort((a, b) => b.start - a.start);
  let out = text;
  for (const e of edits) out = out.slice(0, e.start) + e.text + out.slice(e.end);
  return { text: out, changes: edits.length };
}

function testFiles() {
  const listed = execFileSync(
    'git',
    ['ls-files', '--cached', '--others', '--exclude-standard', '*.test.ts', '*.test.tsx'],
    { cwd: root, encoding: 'utf8' },
  );
  return listed
    .split('\n')
    .filter((f) => f !== '' && !f.includes('node_modules/'))
    .map((f) => join(root, f));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const check = args.includes('--check');
  const files = args.filter((a) => a !== '--check').map((f) => resolve(f));
  let changedFiles = 0;
  let changes = 0;
  for (const file of files.length > 0 ? files : testFiles()) {
    const before = readFileSync(file, 'utf8');
    const after = transform(before, file);
    if (after.changes === 0 || after.text === before) continue;
    changedFiles++;
    changes += after.changes;
    if (check) console.log(`would rewrite ${after.changes} assertion(s) in ${file.slice(root.length + 1)}`);
    else writeFileSync(file, after.text);
  }
  console.log(`${check ? 'would rewrite' : 'rewrote'} ${changes} assertion(s) in ${changedFiles} file(s)`);
  if (check && changedFiles > 0) process.exitCode = 1;
}
