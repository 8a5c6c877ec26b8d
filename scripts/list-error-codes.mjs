#!/usr/bin/env node
// Lists every error code the source throws, denies with or reports, and fails when one is not in
// @trust/core's lists (packages/core/src/error-codes*.ts) or is built at run time from a template.
// tsc already rejects an unknown literal passed to a typed parameter; this also catches a code that
// reaches TrustError through a cast or an untyped helper, and tells which list a new code belongs in.
//
//   node scripts/list-error-codes.mjs            summary per area; exit 1 on an unknown or dynamic code
//   node scripts/list-error-codes.mjs --all      also print every code with where it is used
//   node scripts/list-error-codes.mjs --unused   also print listed codes that no source uses
//
// A code position is: the first argument of `new SomethingError(...)` or of a call to a function whose
// name ends in `Error` or is deny/refuse/fail/reject/no/make/close; the value of a `code` or
// `trustCode` property. Node's and undici's own codes (ERR_*, UND_ERR_*, HPE_*, SQLITE_*) are not ours.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { readKnownCodes } from './known-error-codes.mjs';

const CODE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/;
const FOREIGN = /^(ERR_|UND_ERR_|HPE_|SQLITE_|WS_ERR_)/;
const CALLEES = /(Error|^deny|^refuse|^fail|^reject|^no|^make|^close)$/;

function calleeName(expr) {
  if (ts.isIdentifier(expr)) return expr.text;
  if (ts.isPropertyAccessExpression(expr)) return expr.name.text;
  return '';
}

/** Every code position in one file: { code, line, dynamic }. */
export function codesInSource(text, fileName) {
  const sf = ts.createSourceFile(
    fileName,
    text,
    ts.ScriptTarget.Latest,
    true,
    fileName.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  );
  const found = [];
  const take = (node) => {
    if (!node) return;
    if (ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node))
      return take(node.expression);
    if (ts.isConditionalExpression(node)) {
      take(node.whenTrue);
      take(node.whenFalse);
      return;
    }
    if (
      ts.isBinaryExpression(node) &&
      (node.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken ||
        node.operatorToken.kind === ts.SyntaxKind.BarBarToken)
    )
      return take(node.right);
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    if (ts.isStringLiteralLike(node) && CODE.test(node.text) && !FOREIGN.test(node.text))
      found.push({ code: node.text, line, dynamic: false });
    if (ts.isTemplateExpression(node) && /^[A-Z][A-Z0-9_]*_$/.test(node.head.text))
      found.push({ code: node.getText(sf), line, dynamic: true });
  };
  const visit = (node) => {
    if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && CALLEES.test(calleeName(node.expression)))
      take(node.arguments?.[0]);
    if (
      ts.isPropertyAssignment(node) &&
      (ts.isIdentifier(node.name) || ts.isStringLiteral(node.name)) &&
      ['code', 'trustCode'].includes(node.name.text)
    )
      take(node.initializer);
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

/** Scans the non-test sources of packages/* and apps/*. */
export function scanErrorCodes(root) {
  const known = readKnownCodes(root);
  const files = execFileSync(
    'git',
    [
      'ls-files',
      '--cached',
      '--others',
      '--exclude-standard',
      'packages/*/src/**.ts',
      'packages/*/src/**.tsx',
      'apps/*/src/**.ts',
      'apps/*/src/**.tsx',
    ],
    { cwd: root, encoding: 'utf8' },
  )
    .split('\n')
    .filter(
      (f) =>
        f !== '' &&
        !/\.test\.tsx?$/.test(f) &&
        !f.includes('/testing/') &&
        !f.endsWith('test-setup.ts') &&
        !/\/error-codes[^/]*\.ts$/.test(f),
    );
  const uses = new Map();
  const unknown = [];
  const dynamic = [];
  for (const file of files) {
    for (const hit of codesInSource(readFileSync(join(root, file), 'utf8'), file)) {
      const where = `${file}:${hit.line}`;
      if (hit.dynamic) dynamic.push({ code: hit.code, where });
      else if (!known.has(hit.code)) unknown.push({ code: hit.code, where });
      else uses.set(hit.code, [...(uses.get(hit.code) ?? []), where]);
    }
  }
  const unused = [...known.keys()].filter((c) => !uses.has(c));
  return { known, uses, unknown, dynamic, unused };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const args = new Set(process.argv.slice(2));
  const { known, uses, unknown, dynamic, unused } = scanErrorCodes(root);
  const perArea = new Map();
  for (const [code, file] of known) perArea.set(file, (perArea.get(file) ?? 0) + (code ? 1 : 0));
  for (const [file, n] of [...perArea].sort())
    console.log(`${String(n).padStart(4)} codes listed in packages/core/src/${file}`);
  console.log(`${String(known.size).padStart(4)} codes listed in all; ${uses.size} used by the source`);
  if (args.has('--all'))
    for (const [code, where] of [...uses].sort()) console.log(`${code} (${known.get(code)}): ${where.join(', ')}`);
  if (args.has('--unused'))
    for (const code of unused) console.log(`listed but not used by the source: ${code} (${known.get(code)})`);
  for (const u of unknown)
    console.error(
      `unknown code ${u.code} at ${u.where}: add it to the area's list in packages/core/src/error-codes*.ts`,
    );
  for (const d of dynamic)
    console.error(`code built at run time ${d.code} at ${d.where}: enumerate the codes it can produce`);
  if (unknown.length > 0 || dynamic.length > 0) process.exitCode = 1;
}
