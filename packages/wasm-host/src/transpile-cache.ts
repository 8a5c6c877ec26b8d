import { mkdir, readFile, readdir, rename, writeFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomBytes } from 'node:crypto';
import { generateBindings } from './component-bindgen.js';
import { wasmError } from './errors.js';
import { sha256Hex } from './hash.js';

/** Bump when the transpile options or the glue patch change: old cache entries are then ignored. */
const CACHE_VERSION = 'jco-transpile-0.15.0-async-v1';
/** The JSPI glue's entries (`<sha256>-jspi/`); the async exports are part of what the component is. */
const JSPI_CACHE_VERSION = 'jco-transpile-0.15.0-async-jspi-v1';

/** A transpiled component: its glue (as a loadable URL) and compiled core modules. */
export interface TranspiledComponent {
  readonly digest: string;
  /** `file:` URL of the cached glue, or a `data:` URL when there is no cache dir. */
  readonly glueUrl: string;
  readonly modules: ReadonlyMap<string, WebAssembly.Module>;
  /** Unversioned imports jco reports (`wasi:cli/environment`). */
  readonly imports: readonly string[];
  /** Top-level export names as the glue exposes them (camelCase). */
  readonly exports: readonly string[];
  /** True when this load came from the disk cache. */
  readonly fromCache: boolean;
}

/**
 * jco's glue calls `_debugLog` several times per call, and each call reads
 * `process.env.JCO_DEBUG`; that is about half of the per-call cost. The host never enables jco
 * debug output, so the check is replaced by an early return.
 */
function patchGlue(js: string): string {
  return js.replace('if (!globalThis?.process?.env?.JCO_DEBUG) { return; }', 'return;');
}

interface Meta {
  v: string;
  imports: string[];
  exports: string[];
  modules: string[];
}

async function fromDisk(
  dir: string,
  version: string,
): Promise<{ meta: Meta; files: Map<string, Uint8Array> } | undefined> {
  try {
    const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as Meta;
    if (meta.v !== version) return undefined;
    const files = new Map<string, Uint8Array>();
    for (const m of meta.modules) files.set(m, new Uint8Array(await readFile(join(dir, m))));
    return { meta, files };
  } catch {
    return undefined;
  }
}

/**
 * Transpiles a component with jco (async instantiation, no TypeScript) and compiles its core
 * modules. With `cacheDir`, the output is stored under `<cacheDir>/<sha256>/` and reused by
 * any later load of the same bytes, across processes. The cache holds only what this host
 * produced from bytes it already verified; packages can never supply cache entries.
 * With `jspiExports`, the JSPI glue (see `generateBindings`) is produced and cached apart.
 */
export async function transpileComponent(
  bytes: Uint8Array,
  cacheDir: string | undefined,
  jspiExports?: readonly string[],
): Promise<TranspiledComponent> {
  const digest = sha256Hex(bytes);
  const version = jspiExports ? JSPI_CACHE_VERSION : CACHE_VERSION;
  const dir = cacheDir ? join(cacheDir, jspiExports ? `${digest}-jspi` : digest) : undefined;
  let meta: Meta | undefined;
  let files: Map<string, Uint8Array> | undefined;
  let glueUrl: string | undefined;
  let fromCache = false;
  if (dir) {
    const cached = await fromDisk(dir, version);
    if (cached) {
      ({ meta, files } = cached);
      glueUrl = pathToFileURL(join(dir, 'glue.mjs')).href;
      fromCache = true;
    }
  }
  if (!meta || !files) {
    let out: Awaited<ReturnType<typeof generateBindings>>;
    try {
      out = await generateBindings(bytes, jspiExports);
    } catch (cause) {
      throw wasmError(
        'WASM_COMPONENT_INVALID',
        `jco could not transpile the component: ${String((cause as Error)?.message ?? cause).split('\n')[0]}`,
        { cause, hint: 'check that the file is a valid WebAssembly component' },
      );
    }
    const glue = patchGlue(Buffer.from(out.files['component.js']!).toString('utf8'));
    files = new Map(Object.entries(out.files).filter(([k]) => k.endsWith('.wasm')));
    meta = {
      v: version,
      imports: [...out.imports],
      exports: out.exports.map(([n]) => n),
      modules: [...files.keys()],
    };
    if (dir) {
      const tmp = `${dir}.tmp-${randomBytes(4).toString('hex')}`;
      await mkdir(tmp, { recursive: true });
      for (const [k, v] of files) await writeFile(join(tmp, k), v);
      await writeFile(join(tmp, 'glue.mjs'), glue);
      await writeFile(join(tmp, 'meta.json'), JSON.stringify(meta));
      await rename(tmp, dir).catch(async () => {
        await rm(tmp, { recursive: true, force: true }); // another process won the race; use its entry
      });
      glueUrl = pathToFileURL(join(dir, 'glue.mjs')).href;
      if (!(await readdir(dir).catch((): string[] => [])).includes('glue.mjs')) glueUrl = undefined;
    }
    glueUrl ??= `data:text/javascript;base64,${Buffer.from(glue).toString('base64')}`;
  }
  const modules = new Map<string, WebAssembly.Module>();
  for (const [name, b] of files) modules.set(name, await WebAssembly.compile(b));
  return Object.freeze({ digest, glueUrl: glueUrl!, modules, imports: meta.imports, exports: meta.exports, fromCache });
}
