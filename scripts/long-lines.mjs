#!/usr/bin/env node
// Lists source lines longer than the formatter's line width (biome.json: formatter.lineWidth).
//
//   node scripts/long-lines.mjs                 lines over the width in the tree as it is
//   node scripts/long-lines.mjs --after-format  the same, measured on a formatted copy (the tree is not touched)
//   node scripts/long-lines.mjs --check         exit 1 when any line is over the width
//   node scripts/long-lines.mjs --summary       counts only
//   node scripts/long-lines.mjs packages/core   only files under the given paths
//
// The formatter wraps code but never splits a string literal or a comment, so the lines left
// after formatting are the ones a person has to rewrap. Each is tagged with what makes it long:
// `comment`, `string` (a quoted or template literal of at least a third of the line), `regex`
// (likewise) or `code` (mostly lines inside a multi-line template literal, e.g. guest source as text).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(name);
const paths = args.filter((a) => !a.startsWith('--'));
const config = JSON.parse(readFileSync(join(root, 'biome.json'), 'utf8'));
const width = config.formatter?.lineWidth ?? 80;
const SOURCE = /\.(ts|tsx|js|mjs|cjs)$/;

const files = execFileSync('git', ['ls-files', '-z', '--', ...(paths.length > 0 ? paths : ['.'])], {
  cwd: root,
  encoding: 'utf8',
})
  .split('\0')
  .filter((f) => SOURCE.test(f));

let base = root;
let temp;
if (flag('--after-format')) {
  temp = mkdtempSync(join(tmpdir(), 'long-lines-'));
  for (const f of files) {
    mkdirSync(dirname(join(temp, f)), { recursive: true });
    copyFileSync(join(root, f), join(temp, f));
  }
  const copy = { ...config, vcs: { enabled: false } };
  delete copy.$schema;
  writeFileSync(join(temp, 'biome.json'), JSON.stringify(copy));
  const biome = join(root, 'node_modules', '.bin', 'biome');
  try {
    execFileSync(biome, ['format', '--write', '--max-diagnostics=0', temp], {
      cwd: temp,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (e) {
    // files the formatter cannot parse stay as they are and are measured unformatted
    console.error(
      'the formatter reported errors; unparsable files are measured as they are:\n' +
        String(e.stderr ?? e).slice(0, 2000),
    );
  }
  base = temp;
}

/** What makes a long line long. */
function kindOf(line) {
  const t = line.trim();
  if (t.startsWith('//') || t.startsWith('*') || t.startsWith('/*')) return 'comment';
  const literals = t.match(/'(?:[^'\\]|\\.)*'|"(?:[^"\\]|\\.)*"|`(?:[^`\\]|\\.)*`/g) ?? [];
  const longest = Math.max(0, ...literals.map((s) => s.length));
  if (longest >= t.length / 3) return 'string';
  const regex = t.match(/\/(?:[^/\\\n]|\\.)+\/[dgimsuyv]*/g) ?? [];
  if (Math.max(0, ...regex.map((r) => r.length)) >= t.length / 3) return 'regex';
  const comment = t.indexOf(' // ');
  if (comment >= 0 && comment < width) return 'comment';
  return 'code';
}

const found = [];
for (const f of files) {
  const lines = readFileSync(join(base, f), 'utf8').split('\n');
  lines.forEach((line, i) => {
    const length = [...line].length;
    if (length > width)
      found.push({ file: f, line: i + 1, length, kind: kindOf(line), test: /\.test\.|\/test\/|^tests\//.test(f) });
  });
}
if (temp) rmSync(temp, { recursive: true, force: true });

if (!flag('--summary')) for (const l of found) console.log(`${l.file}:${l.line}: ${l.length} ${l.kind}`);
const count = (pred) => found.filter(pred).length;
const kinds = ['string', 'regex', 'comment', 'code'].map((k) => `${k} ${count((l) => l.kind === k)}`).join(', ');
console.log(
  `${found.length} lines over ${width} in ${new Set(found.map((l) => l.file)).size} of ${files.length} files` +
    `${flag('--after-format') ? ' (after formatting)' : ''}: ${kinds}; ${count((l) => !l.test)} outside tests`,
);
if (flag('--check') && found.length > 0) process.exitCode = 1;
