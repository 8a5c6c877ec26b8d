#!/usr/bin/env node
// Runs every benchmark suite in bench/suites/ (or those named on the command line), prints one
// table of measures against baselines measured in the same run, and writes results/latest.json.
//
//   pnpm bench                 all suites
//   pnpm bench egress wasm     only suites whose file name contains one of the words
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { formatTable, summarise } from './lib/table.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const filters = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const files = (await readdir(join(here, 'suites')))
  .filter((f) => f.endsWith('.mjs'))
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)))
  .sort();

if (files.length === 0) {
  console.error(`bench: no suite matches ${filters.join(', ') || '(none present)'}; suites live in bench/suites/*.mjs`);
  process.exit(2);
}

const rows = [];
const failures = [];
for (const file of files) {
  const name = file.replace(/\.mjs$/, '');
  process.stderr.write(`bench: running ${name} ...\n`);
  try {
    const mod = await import(pathToFileURL(join(here, 'suites', file)).href);
    const suiteRows = await mod.default({ log: (m) => process.stderr.write(`  ${name}: ${m}\n`) });
    for (const r of suiteRows) rows.push(summarise({ suite: name, ...r }));
  } catch (err) {
    failures.push({ suite: name, error: String(err?.stack ?? err) });
    process.stderr.write(`bench: ${name} failed: ${err?.message ?? err}\n`);
  }
}

process.stdout.write(formatTable(rows) + '\n');
const out = { v: 1, time: new Date().toISOString(), node: process.version, rows, failures };
await mkdir(join(here, 'results'), { recursive: true });
await writeFile(join(here, 'results', 'latest.json'), JSON.stringify(out, null, 2) + '\n');
process.stderr.write(
  `bench: wrote bench/results/latest.json (${rows.length} measures, ${failures.length} failed suites)\n`,
);
if (failures.length > 0) process.exitCode = 1;
