import { defineConfig } from 'tsup';

export default defineConfig({
  // code-worker runs inside each code worker thread; it must be its own file.
  entry: { index: 'src/index.ts', 'code-worker': 'src/code/code-worker-entry.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  target: 'node20',
});
