// The two jco components a host needs at load time: js-component-bindgen (turns a component into
// ES glue plus core modules) and wasm-tools (prints a component's WIT). They come from
// @bytecodealliance/jco-transpile at build time and ship inside this package's dist (tsup copies
// them and rewrites these two imports), so installing the host pulls in neither the jco CLI nor
// its build tooling (componentize-js, binaryen, rolldown, TypeScript).
import { $init as bindgenReady, generate } from '@bytecodealliance/jco-transpile/component';
import { componentWit } from '@bytecodealliance/jco-transpile/wasm-tools';
import { JSPI_ASYNC_IMPORTS } from './jspi.js';

/** What one transpile produced: file name -> bytes, the imports and the top-level exports. */
export interface GeneratedBindings {
  readonly files: Readonly<Record<string, Uint8Array>>;
  readonly imports: readonly string[];
  readonly exports: readonly (readonly [string, string])[];
}

/**
 * Transpiles a component into instantiation-mode glue (`component.js`, async instantiation: the
 * host passes every import itself, so no WASI shim module is named in the glue) and its core
 * modules. The options are those `jco transpile --instantiation async --no-typescript` uses.
 * With `jspiExports`, the glue is JSPI glue (`--async-mode jspi`): the imports in
 * `JSPI_ASYNC_IMPORTS` may return promises and those exports return promises. It runs only where
 * `hasJspi()` holds.
 */
export async function generateBindings(bytes: Uint8Array, jspiExports?: readonly string[]): Promise<GeneratedBindings> {
  await bindgenReady;
  const out = generate(bytes, {
    name: 'component',
    instantiation: { tag: 'async' },
    ...(jspiExports
      ? { asyncMode: { tag: 'jspi', val: { imports: [...JSPI_ASYNC_IMPORTS], exports: [...jspiExports] } } }
      : {}),
    map: [],
    noTypescript: true,
    noNodejsCompat: false,
    tlaCompat: false,
    validLiftingOptimization: false,
    tracing: false,
    noComponentErrorWrapping: false,
    noNamespacedExports: false,
    multiMemory: false,
    base64Cutoff: 5000,
  });
  return { files: Object.fromEntries(out.files), imports: out.imports, exports: out.exports };
}

/** The WIT text of a component's world. */
export function printComponentWit(bytes: Uint8Array): Promise<string> {
  return componentWit(bytes);
}
