import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { openAgent } from '../loop/agent.js';
import type { Agent } from '../loop/agent.js';
import { createScriptedProvider } from '../providers/scripted-provider.js';

// One agent's code must never stall the host: while agent A runs hostile code through the real
// sys_code tool (gate, runner, QuickJS in a worker), agent B's trivial sys_code and a plain timer
// on the main thread must answer within a generous bound. On the in-thread sandbox each of these
// blocked the event loop for the whole timeout (or N × the timeout when nested).

const A_TIMEOUT_MS = 1500;
const ANSWER_BOUND_MS = 500;

function agent(timeoutMs: number): Agent {
  const path = join(mkdtempSync(join(tmpdir(), 'code-avail-')), 'a.adf');
  const base = defaultAgentConfig();
  const config = { ...base, limits: { ...base.limits, execution_timeout_ms: timeoutMs } };
  createAdf(path, { template: config }).close();
  return openAgent(path, { provider: createScriptedProvider([]) });
}
const sysCode = (a: Agent, code: string) =>
  a.gate.call('sys_code', { code }, { origin: 'llm' }) as Promise<{ ok: boolean; value?: unknown; error?: string }>;

/**
 * While `hostile` runs on agent A, measures B's trivial sys_code and a timer on this thread, both
 * due 150 ms after A started. Latency counts from when they were due, so a blocked event loop
 * (which would also delay the callbacks themselves) shows in full.
 */
async function whileHostile(a: Agent, b: Agent, hostile: string) {
  // A's worker from the previous case was retired; wait for its replacement, so A's clock (which
  // starts when its run has a ready worker) and this test's clock start together.
  expect(await sysCode(a, 'return 0')).toMatchObject({ ok: true, value: 0 });
  const started = Date.now();
  const due = started + 150;
  const hostileRun = sysCode(a, hostile).then((r) => ({ r, ms: Date.now() - started }));
  const timer = new Promise<number>((resolve) => setTimeout(() => resolve(Date.now() - due), 150));
  const trivial = new Promise<{ r: Awaited<ReturnType<typeof sysCode>>; ms: number }>((resolve, reject) => {
    setTimeout(() => {
      sysCode(b, 'return 6 * 7').then((r) => resolve({ r, ms: Date.now() - due }), reject);
    }, 150);
  });
  const [timerMs, second] = await Promise.all([timer, trivial]);
  const first = await hostileRun;
  return { timerMs, second, first };
}

describe('availability: a hostile agent never stalls the host', { timeout: 60_000 }, () => {
  let a: Agent;
  let b: Agent;
  beforeAll(async () => {
    a = agent(A_TIMEOUT_MS);
    b = agent(5_000);
    // Both agents are already at work: their workers are up.
    expect(await sysCode(a, 'return 1')).toMatchObject({ ok: true, value: 1 });
    expect(await sysCode(b, 'return 1')).toMatchObject({ ok: true, value: 1 });
  });
  afterAll(() => {
    a.close();
    b.close();
  });

  it('a spinning loop', async () => {
    const { timerMs, second, first } = await whileHostile(a, b, 'while (true) {}');
    expect(second.r).toMatchObject({ ok: true, value: 42 });
    expect(second.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(timerMs).toBeLessThan(ANSWER_BOUND_MS);
    expect(first.r.error).toMatch(/^CODE_TIMEOUT/);
    expect(first.ms).toBeLessThan(A_TIMEOUT_MS + 1000);
  });

  it('8 nested spinning sys_code calls end within the outer deadline', async () => {
    const hostile =
      'return await Promise.all(Array.from({ length: 8 }, () => adf.sys_code({ code: "while (true) {}" })));';
    const { timerMs, second, first } = await whileHostile(a, b, hostile);
    expect(second.r).toMatchObject({ ok: true, value: 42 });
    expect(second.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(timerMs).toBeLessThan(ANSWER_BOUND_MS);
    expect(first.r.error).toMatch(/^CODE_TIMEOUT/);
    expect(first.ms).toBeLessThan(A_TIMEOUT_MS + 1000);
  });

  it('a flood of bridge calls', async () => {
    const hostile =
      'const ps = []; ' +
      'for (let i = 0; i < 20000; i++) ps.push(adf.sys_get_meta({ key: "k" + i }).catch((e) => e.code)); ' +
      'for (;;) { await adf.sys_get_meta({ key: "x" }).catch(() => 0); }';
    const { timerMs, second, first } = await whileHostile(a, b, hostile);
    expect(second.r).toMatchObject({ ok: true, value: 42 });
    expect(second.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(timerMs).toBeLessThan(ANSWER_BOUND_MS);
    expect(first.r.ok).toBe(false);
    expect(first.ms).toBeLessThan(A_TIMEOUT_MS + 1000);
  });

  it('a catch-the-stack-overflow storm', async () => {
    const hostile = 'function f() { try { f(); } catch (e) { f(); } } for (;;) { try { f(); } catch (e) {} }';
    const { timerMs, second, first } = await whileHostile(a, b, hostile);
    expect(second.r).toMatchObject({ ok: true, value: 42 });
    expect(second.ms).toBeLessThan(ANSWER_BOUND_MS);
    expect(timerMs).toBeLessThan(ANSWER_BOUND_MS);
    expect(first.r.error).toMatch(/^CODE_TIMEOUT/);
    expect(first.ms).toBeLessThan(A_TIMEOUT_MS + 1000);
  });
});
