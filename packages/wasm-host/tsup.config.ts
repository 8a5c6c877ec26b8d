import { cpSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'tsup';

const here = dirname(fileURLToPath(import.meta.url));
/** Where the vendored jco-transpile files go, relative to dist/. */
const VENDOR = 'jco-transpile';
/** The two entry points the host imports, and where they sit in the vendored copy. */
const VENDORED: Record<string, string> = {
  '@bytecodealliance/jco-transpile/component': `./${VENDOR}/vendor/js-component-bindgen-component.js`,
  '@bytecodealliance/jco-transpile/wasm-tools': `./${VENDOR}/dist/wasm-tools.js`,
};

export default defineConfig({
  // worker-entry runs inside each plugin's worker thread; it must be its own file.
  entry: ['src/index.ts', 'src/worker-entry.ts'],
  format: ['esm'],
  dts: { entry: 'src/index.ts' },
  clean: true,
  target: 'node20',
  // jco-transpile is a build-time dependency: the host loads only its two transpiled components,
  // copied into dist below, so an install does not pull in binaryen and oxc-minify with it.
  esbuildPlugins: [
    {
      name: 'vendored-jco-transpile',
      setup(build) {
        build.onResolve({ filter: /^@bytecodealliance\/jco-transpile\// }, (args) => {
          const path = VENDORED[args.path];
          if (!path)
            return { errors: [{ text: `${args.path} is not vendored; add it to VENDORED in tsup.config.ts` }] };
          return { path, external: true };
        });
      },
    },
  ],
  onSuccess() {
    // Resolve through the package's own exports: its package.json is not exported.
    const pkg = dirname(
      dirname(createRequire(join(here, 'package.json')).resolve('@bytecodealliance/jco-transpile/wasm-tools')),
    );
    const to = join(here, 'dist', VENDOR);
    mkdirSync(to, { recursive: true });
    for (const item of ['LICENSE', 'vendor', join('dist', 'wasm-tools.js')])
      cpSync(join(pkg, item), join(to, item), { recursive: true });
    return Promise.resolve();
  },
});
