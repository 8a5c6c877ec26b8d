// Agent runtime part 1: the tool gate's per-call overhead against calling the tool function
// directly. (db_query's cost is measured in agent-sql.mjs.)
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMemoryAuditSink } from '@trust/core';
import { createAdf } from '@trust/agent-runtime';
import { createToolGate, createToolRegistry } from '@trust/agent-runtime/gate';
import { percentile, sample, sampleInterleaved } from '../lib/table.mjs';

export default async function run({ log }) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-gate-'));
  const adf = createAdf(join(dir, 'a.adf'), {
    template: { v: 1, tools: [{ name: 'echo', enabled: true, visible: true }] },
  });
  try {
    const echo = {
      name: 'echo',
      description: 'echo',
      inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
      run: (a) => a.text,
    };
    const registry = createToolRegistry([echo]);
    const gateAdf = createToolGate({ adf, registry });
    const gateMem = createToolGate({ adf, registry, audit: createMemoryAuditSink() });
    // Isolates the gate's own work from the cost of sealing (SHA-256 over canonical JSON).
    const noop = { record: (input) => input };
    const gateNoop = createToolGate({ adf, registry, audit: noop });
    const args = { text: 'hi' };
    const N = 3000;
    for (let i = 0; i < 300; i++) {
      await gateMem.call('echo', args, { origin: 'llm' });
      await echo.run(args);
    }
    const { direct, viaMem, viaNoop } = await sampleInterleaved(
      {
        direct: () => echo.run(args),
        viaMem: () => gateMem.call('echo', args, { origin: 'llm' }),
        viaNoop: () => gateNoop.call('echo', args, { origin: 'llm' }),
      },
      N,
    );
    const viaAdf = await sample(() => gateAdf.call('echo', args, { origin: 'llm' }), 1000);
    log(`gate p50: ${percentile(viaMem, 50)} ns (memory audit), ${percentile(viaAdf, 50)} ns (adf_audit)`);

    return [
      {
        measure: 'tool gate call (no-op audit sink)',
        unit: 'ns/call',
        ours: percentile(viaNoop, 50),
        baseline: percentile(direct, 50),
        baselineName: 'direct tool.run',
        better: 'lower',
      },
      {
        measure: 'tool gate call (memory audit sink)',
        unit: 'ns/call',
        ours: percentile(viaMem, 50),
        baseline: percentile(direct, 50),
        baselineName: 'direct tool.run',
        better: 'lower',
      },
      {
        measure: 'tool gate call (audit to adf_audit)',
        unit: 'ns/call',
        ours: percentile(viaAdf, 50),
        baseline: percentile(direct, 50),
        baselineName: 'direct tool.run',
        better: 'lower',
      },
    ];
  } finally {
    adf.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
