import { defineConfig } from 'tsup';

export default defineConfig({
  // sql-host-entry runs in each agent's SQL process (the fallback), sql-worker in each agent's SQL worker thread, and code-worker inside each code worker thread;
  // each must be its own file. quickjs-run is not public API: the agent-code bench loads it to time
  // the same execution on the main thread.
  entry: {
    index: 'src/index.ts',
    'sql-host-entry': 'src/sql/sql-host-entry.ts',
    'sql-worker': 'src/sql/sql-worker-entry.ts',
    'code-worker': 'src/code/code-worker-entry.ts',
    'quickjs-run': 'src/code/quickjs-run.ts',
  },
  format: ['esm'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  target: 'node20',
});
