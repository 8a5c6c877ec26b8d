import { getPriority } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_BRIDGE_DEPTH } from './bridge-limits.js';
import { MAX_CODE_NESTING_DEPTH, createCodeSandbox } from './code-sandbox.js';
import type { BridgeHandler, CodeResult, CodeSandbox } from './code-sandbox.js';

// The code sandbox's budgets, with real worker threads and real QuickJS: workers are never
// reused after a resource failure, nested runs share the outer run's clock and depth, bridge
// values are capped in depth and size, and the memory limit holds for the host process.

const sandboxes: CodeSandbox[] = [];
const sandbox = (o: Parameters<typeof createCodeSandbox>[0] = {}) => {
  const s = createCodeSandbox(o);
  sandboxes.push(s);
  return s;
};
afterAll(async () => {
  await Promise.all(sandboxes.map((s) => s.close()));
});
const echo: BridgeHandler = async (_m, a) => a;
const nestedValue = (depth: number) => `(() => { let v = 1; for (let i = 0; i < ${depth}; i++) v = [v]; return v; })()`;

describe('workers are never reused after a resource failure', { timeout: 60_000 }, () => {
  it.each([
    ['timeout', 'while (true) {}', 'CODE_TIMEOUT', 200],
    ['memory failure', 'const a = []; for (;;) a.push("x".repeat(1 << 16) + a.length);', 'CODE_MEMORY_LIMIT', 20_000],
    ['stack overflow', 'function f(n) { return f(n + 1) + 1; } return f(0);', 'CODE_STACK_OVERFLOW', 20_000],
  ] as const)('after a %s the next run gets a fresh worker', async (_label, code, expected, timeoutMs) => {
    const s = sandbox({ workers: 1 });
    expect(await s.run({ code: 'return 1', bridge: echo })).toMatchObject({ ok: true, value: 1 });
    const before = s.stats();
    expect(before).toMatchObject({ started: 1, retired: 0 });
    expect(await s.run({ code, bridge: echo, timeoutMs, memoryBytes: 16 * 1024 * 1024 })).toMatchObject({
      ok: false,
      code: expected,
    });
    expect(await s.run({ code: 'return 2', bridge: echo })).toMatchObject({ ok: true, value: 2 });
    expect(s.stats()).toMatchObject({ started: 2, retired: 1, alive: 1 });
  });

  it('a clean run keeps its worker, and the host thread keeps its priority', async () => {
    const before = getPriority();
    const s = sandbox({ workers: 1 });
    for (let i = 0; i < 5; i++) await s.run({ code: 'throw new Error("guest error")', bridge: echo });
    expect(s.stats()).toMatchObject({ started: 1, retired: 0 });
    // Workers lower their own thread's nice value only, never the host's.
    expect(getPriority()).toBe(before);
  });
});

describe("nested runs share the outer run's budget", { timeout: 60_000 }, () => {
  // The bridge starts code from code, as sys_code does through the gate.
  const nestingBridge = (s: CodeSandbox, timeoutMs?: number): BridgeHandler =>
    async function bridge(method, args) {
      if (method !== 'nest') return null;
      const r: CodeResult = await s.run({
        code: (args as { code: string }).code,
        bridge,
        ...(timeoutMs ? { timeoutMs } : {}),
      });
      return r.ok ? r.value : r.code;
    };
  const chain = (levels: number): string =>
    levels === 0 ? 'return "bottom";' : `return await adf.nest({ code: ${JSON.stringify(chain(levels - 1))} });`;

  it(`nesting is capped at ${MAX_CODE_NESTING_DEPTH} levels below the outer run`, async () => {
    const s = sandbox({ workers: 1 });
    expect(await s.run({ code: chain(MAX_CODE_NESTING_DEPTH), bridge: nestingBridge(s) })).toMatchObject({
      ok: true,
      value: 'bottom',
    });
    expect(await s.run({ code: chain(MAX_CODE_NESTING_DEPTH + 1), bridge: nestingBridge(s) })).toMatchObject({
      ok: true,
      value: 'CODE_NESTING_LIMIT',
    });
  });

  it('live nested runs are capped', async () => {
    const s = sandbox({ workers: 1, maxNestedRuns: 2 });
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const bridge: BridgeHandler = async function b(m, a) {
      if (m === 'wait') {
        setTimeout(release, 200);
        await gate;
        return null;
      }
      const x = await s.run({ code: (a as { code: string }).code, bridge: b });
      return x.ok ? x.value : x.code;
    };
    const r = await s.run({
      code: 'return await Promise.all([1, 2, 3].map(() => adf.nest({ code: "await adf.wait({}); return 1" })));',
      bridge,
    });
    expect(r).toMatchObject({ ok: true });
    expect((r as { value: unknown[] }).value.sort()).toEqual([1, 1, 'CODE_NESTING_LIMIT']);
  });

  it("a nested run gets only the outer run's remaining time, and the outer deadline ends everything", async () => {
    const s = sandbox({ workers: 1 });
    const t0 = Date.now();
    const r = await s.run({
      code: 'return await adf.nest({ code: "while (true) {}" });',
      bridge: nestingBridge(s, 60_000),
      timeoutMs: 600,
    });
    const elapsed = Date.now() - t0;
    expect(r.ok ? r.value : r.code).toBeTrustCode('CODE_TIMEOUT');
    expect(elapsed).toBeLessThan(600 + 1000);
  });

  it('aborting the outer run ends the nested ones', async () => {
    const s = sandbox({ workers: 1 });
    const ac = new AbortController();
    const nested: Array<Promise<CodeResult>> = [];
    const bridge: BridgeHandler = async function b(_m, a) {
      const p = s.run({ code: (a as { code: string }).code, bridge: b, timeoutMs: 60_000 });
      nested.push(p);
      setTimeout(() => ac.abort(), 100);
      return (await p).ok;
    };
    const t0 = Date.now();
    const r = await s.run({
      code: 'return await adf.nest({ code: "while (true) {}" });',
      bridge,
      timeoutMs: 60_000,
      signal: ac.signal,
    });
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_ABORTED') });
    expect(await nested[0]).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_ABORTED') });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(s.stats().retired).toBe(1);
  });
});

describe('bridge values are capped at the boundary', { timeout: 60_000 }, () => {
  const s = sandbox({ workers: 1, maxMessageBytes: 64 * 1024 });

  it(`arguments nested ${MAX_BRIDGE_DEPTH} deep pass; one more is refused with CODE_VALUE_TOO_DEEP`, async () => {
    const seen: unknown[] = [];
    const bridge: BridgeHandler = async (_m, a) => {
      seen.push(a);
      return 'ok';
    };
    expect(await s.run({ code: `return await adf.x(${nestedValue(MAX_BRIDGE_DEPTH)});`, bridge })).toMatchObject({
      ok: true,
      value: 'ok',
    });
    expect(
      await s.run({
        code: `try { await adf.x(${nestedValue(MAX_BRIDGE_DEPTH + 1)}); } catch (e) { return e.code; }`,
        bridge,
      }),
    ).toMatchObject({ ok: true, value: 'CODE_VALUE_TOO_DEEP' });
    expect(seen).toHaveLength(1);
  });

  it('a host result too deep for the guest is refused, not recursed into', async () => {
    let deep: unknown = 1;
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const r = await s.run({ code: 'try { await adf.x({}); } catch (e) { return e.code; }', bridge: async () => deep });
    expect(r).toMatchObject({ ok: true, value: 'CODE_VALUE_TOO_DEEP' });
  });

  it('the final value and lambda arguments are capped too', async () => {
    expect(await s.run({ code: `return ${nestedValue(MAX_BRIDGE_DEPTH + 1)};`, bridge: echo })).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_VALUE_TOO_DEEP'),
    });
    let deep: unknown = 1;
    for (let i = 0; i < MAX_BRIDGE_DEPTH + 1; i++) deep = { d: deep };
    expect(
      await s.run({
        code: 'function f(a) { return 1; }',
        entry: { kind: 'function', name: 'f', args: deep },
        bridge: echo,
      }),
    ).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_VALUE_TOO_DEEP') });
  });

  it('oversized arguments and results are refused with CODE_MESSAGE_TOO_LARGE', async () => {
    expect(
      await s.run({
        code: 'try { await adf.x({ s: "x".repeat(70000) }); } catch (e) { return e.code; }',
        bridge: echo,
      }),
    ).toMatchObject({ ok: true, value: 'CODE_MESSAGE_TOO_LARGE' });
    expect(
      await s.run({
        code: 'try { await adf.x({}); } catch (e) { return e.code; }',
        bridge: async () => 'é'.repeat(40_000),
      }),
    ).toMatchObject({ ok: true, value: 'CODE_MESSAGE_TOO_LARGE' });
  });
});

describe('the memory limit holds for the host process', { timeout: 60_000 }, () => {
  it('a memory bomb under a 32 MiB limit grows host RSS by little more than the limit', async () => {
    const limit = 32 * 1024 * 1024;
    const s = sandbox({ workers: 1 });
    await s.run({ code: 'return 1', bridge: echo, memoryBytes: limit });
    global.gc?.();
    const base = process.memoryUsage.rss();
    let peak = base;
    const sampler = setInterval(() => {
      peak = Math.max(peak, process.memoryUsage.rss());
    }, 2);
    const r = await s.run({
      code: 'const a = []; for (;;) a.push("x".repeat(1 << 16) + a.length);',
      bridge: echo,
      memoryBytes: limit,
      timeoutMs: 30_000,
    });
    clearInterval(sampler);
    peak = Math.max(peak, process.memoryUsage.rss());
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_MEMORY_LIMIT') });
    const overMiB = (peak - base - limit) / (1024 * 1024);
    console.info(
      `memory bomb, 32 MiB limit: host RSS grew ${((peak - base) / (1024 * 1024)).toFixed(1)} MiB ` +
        `(${overMiB.toFixed(1)} MiB over the limit)`,
    );
    // Generous bound (the design target is 16 MiB over): other threads of this process allocate too.
    expect(overMiB).toBeLessThan(32);
  });
});
