import { defineConfig } from 'tsup';

// The public entry points: `.` and one subpath each (package.json `exports` names the same files).
const PUBLIC = {
  index: 'src/index.ts',
  adf: 'src/adf/index.ts',
  code: 'src/code/index.ts',
  gate: 'src/gate/index.ts',
  host: 'src/host/index.ts',
  identity: 'src/identity/index.ts',
  mcp: 'src/mcp/index.ts',
  messaging: 'src/messaging/index.ts',
  shell: 'src/shell/index.ts',
  sql: 'src/sql/index.ts',
  tools: 'src/tools/index.ts',
  triggers: 'src/triggers/index.ts',
};

export default defineConfig({
  // sql-host-entry runs in each agent's SQL process (the fallback), sql-worker in each agent's SQL
  // worker thread, and code-worker inside each code worker thread; each must be its own file.
  // quickjs-run is not public API: the agent-code bench loads it to time
  // the same execution on the main thread. Every entry sits flat in dist/, next to the shared chunks,
  // so the worker and SQL process scripts are found beside whichever file loads them.
  entry: {
    ...PUBLIC,
    'sql-host-entry': 'src/sql/sql-host-entry.ts',
    'sql-worker': 'src/sql/sql-worker-entry.ts',
    'code-worker': 'src/code/code-worker-entry.ts',
    'quickjs-run': 'src/code/quickjs-run.ts',
  },
  format: ['esm'],
  dts: { entry: PUBLIC },
  clean: true,
  target: 'node20',
});
