#!/usr/bin/env node
// Builds the test fixtures into .fixtures/ (git-ignored), skipping any whose inputs are unchanged.
//
//   node scripts/build-fixtures.mjs [--only tiny,mini,probe,fetcher]
//
// - tiny, mini: hand-written WAT assembled with jco (parse -> embed -> new), milliseconds each.
// - probe, fetcher: JavaScript guests built with componentize-js (SpiderMonkey inside, ~12 MB, slow).
//
// This is build tooling, never host code: jco's WIT reader goes through preview2-shim's
// process-global preopens, which are empty by default, so this process opens `/` for it. The
// plugin host never does that. Run it as its own process (the vitest global setup does).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync, existsSync, cpSync, rmSync, renameSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const here = dirname(fileURLToPath(import.meta.url));
const pkgDir = resolve(here, '..');
const srcDir = join(pkgDir, 'fixtures');
const outDir = join(pkgDir, '.fixtures');
const require = createRequire(import.meta.url);
const jcoDir = dirname(dirname(require.resolve('@bytecodealliance/jco')));
const builtinWit = join(jcoDir, 'lib', 'wit', 'builtin', '0.2.12');
const BUILD_VERSION = '1';

const only = (() => {
  const i = process.argv.indexOf('--only');
  return i >= 0 ? new Set(process.argv[i + 1].split(',')) : undefined;
})();

function hashOf(parts) {
  const h = createHash('sha256');
  h.update(BUILD_VERSION);
  for (const p of parts) h.update(readFileSync(p)).update('\0');
  return h.digest('hex');
}

/** Writes a WIT dir: the world file plus jco's bundled WASI 0.2.12 packages under deps/. */
function witDir(name, worldFile) {
  const dir = join(outDir, 'wit', name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, 'deps'), { recursive: true });
  cpSync(worldFile, join(dir, 'world.wit'));
  for (const pkg of [
    'wasi-cli',
    'wasi-clocks',
    'wasi-filesystem',
    'wasi-http',
    'wasi-io',
    'wasi-random',
    'wasi-sockets',
  ]) {
    mkdirSync(join(dir, 'deps', pkg));
    let text = readFileSync(join(builtinWit, pkg, 'package.wit'), 'utf8');
    // componentize-js omits the wrapper class of a method-less resource that crosses interfaces;
    // a never-called method works around it (the host's network resource provides `noop`).
    if (pkg === 'wasi-sockets') text = text.replace('resource network;', 'resource network { noop: func(); }');
    writeFileSync(join(dir, 'deps', pkg, 'package.wit'), text);
  }
  return dir;
}

async function prepare() {
  // componentize-js imports its AOT helper (weval) eagerly, and weval imports a native xz binding
  // that is an optional, platform-specific install. The AOT path is never used here, so the
  // binding is replaced by a stub that throws if anything ever calls it.
  const { register } = await import('node:module');
  const stub = 'export default { decompress() { throw new Error("xz is not available in fixture builds"); } };';
  const loader = `export async function resolve(specifier, context, next) {
    if (specifier === '@napi-rs/lzma/xz')
      return { url: 'data:text/javascript,' + encodeURIComponent(${JSON.stringify(stub)}), shortCircuit: true };
    return next(specifier, context);
  }`;
  register(`data:text/javascript,${encodeURIComponent(loader)}`);
  const { _setPreopens } = await import('@bytecodealliance/preview2-shim/filesystem');
  _setPreopens({ '/': '/' });
}

async function buildWat(name) {
  const wat = join(srcDir, `${name}.wat`);
  const wit = join(srcDir, `${name}.wit`);
  const out = join(outDir, `${name}.wasm`);
  const digest = hashOf([wat, wit, fileURLToPath(import.meta.url)]);
  if (upToDate(out, digest)) return false;
  const { parse, componentEmbed, componentNew } = await import('@bytecodealliance/jco');
  const core = await parse(readFileSync(wat, 'utf8'));
  const embedded = await componentEmbed({ binary: core, witPath: witDir(name, wit), world: name });
  const component = await componentNew(embedded);
  commit(out, component, digest);
  return true;
}

async function buildJs(name) {
  const js = join(srcDir, `${name}.js`);
  const wit = join(srcDir, `${name}.wit`);
  const out = join(outDir, `${name}.wasm`);
  const digest = hashOf([js, wit, fileURLToPath(import.meta.url)]);
  if (upToDate(out, digest)) return false;
  const { componentize } = await import('@bytecodealliance/componentize-js');
  const { component } = await componentize({ sourcePath: js, witPath: witDir(name, wit), worldName: name });
  commit(out, component, digest);
  return true;
}

function upToDate(out, digest) {
  return existsSync(out) && existsSync(`${out}.inputs`) && readFileSync(`${out}.inputs`, 'utf8') === digest;
}

function commit(out, bytes, digest) {
  writeFileSync(`${out}.tmp`, bytes);
  renameSync(`${out}.tmp`, out);
  writeFileSync(`${out}.inputs`, digest);
}

mkdirSync(outDir, { recursive: true });
await prepare();
const jobs = {
  tiny: () => buildWat('tiny'),
  mini: () => buildWat('mini'),
  probe: () => buildJs('probe'),
  fetcher: () => buildJs('fetcher'),
};
for (const [name, job] of Object.entries(jobs)) {
  if (only && !only.has(name)) continue;
  const t0 = Date.now();
  const built = await job();
  process.stdout.write(`fixture ${name}: ${built ? `built in ${Date.now() - t0} ms` : 'up to date'}\n`);
}
