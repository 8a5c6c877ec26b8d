// Agents written for ADF (issue 40): a loop turn of an agent with 1,000 turns of history against a
// fresh agent (the window is bounded, so the target is <= 1.2x), and sys_code using TextEncoder +
// crypto.subtle.digest on 64 KiB against the same code in Node itself.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { webcrypto } from 'node:crypto';
import { createAdf, createScriptedProvider, defaultAgentConfig, openAgent } from '@trust/agent-runtime';
import { createCodeSandbox } from '@trust/agent-runtime/code';
import { percentile, sample } from '../lib/table.mjs';

const ms = (ns) => ns / 1e6;

function agentIn(dir, name, historyTurns) {
  const path = join(dir, `${name}.adf`);
  const config = JSON.parse(JSON.stringify(defaultAgentConfig()));
  config.model = { ...config.model, context_window: 16_000, compaction: 'truncate' };
  const adf = createAdf(path, { template: config });
  for (let i = 0; i < historyTurns; i++) {
    adf.loop.append({ role: 'user', content: `question ${i}: ${'lorem ipsum dolor '.repeat(6)}` });
    adf.loop.append({ role: 'assistant', content: [{ type: 'text', text: `answer ${i}: ${'sit amet '.repeat(8)}` }] });
  }
  adf.close();
  const provider = createScriptedProvider();
  const agent = openAgent(path, { provider });
  const turn = () => {
    provider.push({ content: [{ type: 'text', text: 'ok' }] });
    return agent.send('one more question');
  };
  return { agent, turn };
}

export default async function run({ log }) {
  const rows = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-agent-long-'));
  try {
    const fresh = agentIn(dir, 'fresh', 0);
    const long = agentIn(dir, 'long', 1_000);
    // Warm both (the long one compacts its 2,000 rows into a summary on its first turn).
    for (let i = 0; i < 20; i++) {
      await fresh.turn();
      await long.turn();
    }
    // Interleaved, so both see the same heap and the same machine load.
    const N = 300;
    const freshTimes = [];
    const longTimes = [];
    for (let i = 0; i < N; i++) {
      let t = process.hrtime.bigint();
      await fresh.turn();
      freshTimes.push(Number(process.hrtime.bigint() - t));
      t = process.hrtime.bigint();
      await long.turn();
      longTimes.push(Number(process.hrtime.bigint() - t));
    }
    freshTimes.sort((a, b) => a - b);
    longTimes.sort((a, b) => a - b);
    rows.push({
      measure: 'loop: text turn with 1,000 turns of history (p50)',
      unit: 'ms',
      ours: ms(percentile(longTimes, 50)),
      baseline: ms(percentile(freshTimes, 50)),
      baselineName: 'the same turn of a fresh agent (interleaved)',
      better: 'lower',
      target: { ratio: 1.2 },
    });
    const summaries = long.agent.adf.loop.list().filter((r) => r.role === 'summary').length;
    log(`long agent: ${long.agent.adf.loop.list().length} adf_loop rows, ${summaries} compaction summaries`);
    fresh.agent.close();
    long.agent.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const sandbox = createCodeSandbox();
  const bridge = async () => null;
  const code =
    "const bytes = new TextEncoder().encode('x'.repeat(65536));" +
    "const h = await crypto.subtle.digest('SHA-256', bytes); return new Uint8Array(h)[0];";
  for (let i = 0; i < 20; i++) await sandbox.run({ code, bridge });
  const ours = await sample(() => sandbox.run({ code, bridge }), 200);
  const native = async () => {
    const bytes = new TextEncoder().encode('x'.repeat(65536));
    const h = await webcrypto.subtle.digest('SHA-256', bytes);
    return new Uint8Array(h)[0];
  };
  for (let i = 0; i < 20; i++) await native();
  const node = await sample(native, 200);
  rows.push({
    measure: 'sys_code: TextEncoder + subtle.digest SHA-256 on 64 KiB (p50)',
    unit: 'ms',
    ours: ms(percentile(ours, 50)),
    baseline: ms(percentile(node, 50)),
    baselineName: 'the same code in Node (no sandbox)',
    better: 'lower',
  });
  const trivial = await sample(() => sandbox.run({ code: 'return 1 + 1', bridge }), 300);
  rows.push({
    measure: 'sys_code trivial with the standard library present, warm (p50)',
    unit: 'ms',
    ours: ms(percentile(trivial, 50)),
    better: 'lower',
    target: { max: 5 },
  });
  await sandbox.close();
  return rows;
}
