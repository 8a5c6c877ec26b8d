import { defineConfig } from 'tsup';

export default defineConfig({
  // code-worker runs inside each code worker thread; it must be its own file. quickjs-run is not
  // public API: the agent-code bench loads it to time the same execution on the main thread.
  entry: { index: 'src/index.ts', 'code-worker': 'src/code/code-worker-entry.ts', 'quickjs-run': 'src/code/quickjs-run.ts' },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  target: 'node20',
});
