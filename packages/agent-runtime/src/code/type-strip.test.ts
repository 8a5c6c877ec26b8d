import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAdf } from '../adf/adf-file.js';
import { defaultAgentConfig } from '../config/agent-config.js';
import { createToolRegistry } from '../gate/tool-definition.js';
import type { ToolDefinition } from '../gate/tool-definition.js';
import { createToolGate } from '../gate/tool-gate.js';
import type { ToolGate } from '../gate/tool-gate.js';
import { createExecutionTools } from '../tools/built-in-tools.js';
import { createCodeRunner, parseLambdaRef } from './code-runner.js';
import { createCodeSandbox } from './code-sandbox.js';
import { createTypeStripper, isTypeScriptPath } from './type-strip.js';

const sandbox = createCodeSandbox();
const noBridge = async () => {
  throw Object.assign(new Error('no tools here'), { code: 'NO_TOOLS' });
};

const TYPED_LAMBDA = `
interface Order { id: number; items: ReadonlyArray<{ sku: string; qty: number }>; note?: string }
type Totals = Record<string, number>;
enum Level { Low = 1, High = 10 }
declare const nothing: unknown;
abstract class Base<T> { protected constructor(public readonly label: string) {} abstract add(x: T): void }
class Counter extends Base<number> {
  private total: number = 0;
  constructor() { super('counter'); }
  add(x: number): void { this.total += x; }
  get value(): number { return this.total; }
}
function sum<T extends { qty: number }>(xs: readonly T[]): number {
  return xs.reduce((n: number, x: T) => n + x.qty, 0);
}
const first = <T,>(xs: T[]): T | undefined => xs[0];
export type Unused = never;
async function handle(
  order: Order,
): Promise<{ total: number; level: Level; name: string; first?: string; label: string }> {
  const c = new Counter();
  c.add(sum(order.items));
  const totals: Totals = {};
  for (const it of order.items) totals[it.sku] = (totals[it.sku] ?? 0) + it.qty;
  const big = (c.value as number) > 5 ? Level.High : Level.Low;
  const echoed = (await adf.echo({ n: order.id })) as { echoed: string };
  const label = c.label + ':' + echoed.echoed + ':' + Object.keys(totals).length;
  return { total: c.value, level: big, name: Level[big]!, first: first(order.items.map((i) => i.sku)), label };
}
`.replace('export type Unused = never;', 'type Unused = never;');

describe('TypeScript: stripped on the host, run like JavaScript', () => {
  it('recognises TypeScript file names', () => {
    expect(['a.ts', 'dir/b.mts', 'c.cts', 'd.TS'].map(isTypeScriptPath)).toEqual([true, true, true, true]);
    expect(['a.js', 'a.mjs', 'a.tsx', 'ts', 'a.ts.js'].map(isTypeScriptPath)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('runs a lambda with interfaces, type aliases, enums, generics, classes and declare', async () => {
    const r = await sandbox.run({
      code: TYPED_LAMBDA,
      language: 'typescript',
      fileName: 'orders.ts',
      entry: {
        kind: 'function',
        name: 'handle',
        args: {
          id: 7,
          items: [
            { sku: 'a', qty: 2 },
            { sku: 'b', qty: 4 },
            { sku: 'a', qty: 1 },
          ],
        },
      },
      bridge: async (_m, a) => ({ echoed: String((a as { n: number }).n) }),
    });
    expect(r).toMatchObject({
      ok: true,
      value: { total: 7, level: 10, name: 'High', first: 'a', label: 'counter:7:2' },
    });
  });

  it('runs an inline script body (return and await at top level)', async () => {
    const r = await sandbox.run({
      code: 'const xs: number[] = [1, 2, 3]; const n = xs.length satisfies number; return (n as number) * 2;',
      language: 'typescript',
      bridge: noBridge,
    });
    expect(r).toMatchObject({ ok: true, value: 6 });
  });

  it('does not type-check: a type error runs as the JavaScript it erases to', async () => {
    const r = await sandbox.run({
      code: 'const n: number = "not a number" as unknown as number; return typeof n;',
      language: 'typescript',
      bridge: noBridge,
    });
    expect(r).toMatchObject({ ok: true, value: 'string' });
  });

  it('a TypeScript syntax error is CODE_SYNTAX with the file and position, never a crash', async () => {
    const r = await sandbox.run({
      code: 'const a = 1;\nlet x: = 2;\nreturn x;',
      language: 'typescript',
      fileName: 'broken.ts',
      bridge: noBridge,
    });
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_SYNTAX'), name: 'SyntaxError' });
    expect(!r.ok && r.message).toMatch(/^broken\.ts: TypeScript syntax error at line 2, column \d+: Unexpected token/);
    // The same source as JavaScript is also a syntax error, from QuickJS this time.
    expect(await sandbox.run({ code: 'let x: number = 2; return x;', bridge: noBridge })).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_SYNTAX'),
    });
  });

  it('caches per content hash, bounded, and names the file of each caller', () => {
    const s = createTypeStripper({ maxEntries: 2 });
    expect(s.strip('const a: number = 1;')).toMatchObject({ ok: true, code: 'const a = 1;' });
    s.strip('const a: number = 1;');
    expect(s.size()).toBe(1);
    s.strip('let b: string;');
    s.strip('let c: boolean;');
    expect(s.size()).toBe(2);
    const bad = 'let : ;';
    expect(s.strip(bad, 'one.ts')).toMatchObject({ ok: false, message: expect.stringMatching(/^one\.ts: /) });
    expect(s.strip(bad, 'two.ts')).toMatchObject({ ok: false, message: expect.stringMatching(/^two\.ts: /) });
    expect(createTypeStripper({ maxBytes: 10 }).strip('const long: string = "' + 'x'.repeat(100) + '";')).toMatchObject(
      { ok: true },
    );
    const tiny = createTypeStripper({ maxBytes: 10 });
    tiny.strip('const long: string = "' + 'x'.repeat(100) + '";');
    expect(tiny.size()).toBe(0);
  });
});

describe('TypeScript: the escape suite basics still hold', () => {
  it('setTimeout.constructor through a TS lambda finds nothing to start from', async () => {
    const code =
      'function go(_: unknown): string { ' +
      'try { return (setTimeout as any).constructor("return process")(); } catch (e) { return (e as Error).name; } }';
    expect(
      await sandbox.run({
        code,
        language: 'typescript',
        entry: { kind: 'function', name: 'go', args: null },
        bridge: noBridge,
      }),
    ).toMatchObject({ ok: true, value: 'ReferenceError' });
  });

  it('constructor chains from the bridge in TS reach only the guest realm', async () => {
    const code = `const F = (adf.fs_read as unknown as { constructor: { constructor: FunctionConstructor } })
        .constructor.constructor;
      const g: any = F('return this')();
      return [typeof g.process, typeof (F('return typeof require')() as string), Object.keys(g).includes('process'),
        typeof (globalThis as any).fetch];`;
    expect(await sandbox.run({ code, language: 'typescript', bridge: noBridge })).toMatchObject({
      ok: true,
      value: ['undefined', 'string', false, 'undefined'],
    });
  });

  it('an infinite loop in TS is still interrupted', async () => {
    expect(
      await sandbox.run({
        code: 'let i: number = 0; while (true) { i++; }',
        language: 'typescript',
        timeoutMs: 100,
        bridge: noBridge,
      }),
    ).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_TIMEOUT') });
  });
});

describe('TypeScript lambdas in an agent', () => {
  function setup(): {
    gate: ToolGate;
    runner: ReturnType<typeof createCodeRunner>;
    write: (p: string, c: string) => void;
    close: () => void;
  } {
    const adf = createAdf(join(mkdtempSync(join(tmpdir(), 'ts-lambda-')), 'a.adf'), {
      template: structuredClone(defaultAgentConfig()),
    });
    let gate: ToolGate | undefined;
    const runner = createCodeRunner({ adf, sandbox, gate: () => gate! });
    const { tools } = createExecutionTools({
      gate: () => gate!,
      runner: () => runner,
      chat: () => ({ say: () => undefined, ask: async () => '' }),
      agentId: 'test',
    });
    gate = createToolGate({ adf, registry: createToolRegistry(tools as ToolDefinition<never>[]) });
    return { gate, runner, write: (p, c) => adf.files.write(p, c), close: () => adf.close() };
  }

  it('sys_lambda calls file.ts:fn and the lambda uses the bridge', async () => {
    const { gate, write, close } = setup();
    write(
      'lib/greet.ts',
      'interface In { who: string }\nasync function greet(a: In): Promise<string> { ' +
        `await adf.fs_write({ path: "out.txt", mode: "write", content: a.who }); return \`hi \${a.who}\`; }`,
    );
    expect(parseLambdaRef('lib/greet.ts:greet')).toEqual({ file: 'lib/greet.ts', fn: 'greet' });
    expect(
      await gate.call('sys_lambda', { target: 'lib/greet.ts:greet', args: { who: 'ada' } }, { origin: 'llm' }),
    ).toMatchObject({ ok: true, value: 'hi ada' });
    expect(await gate.call('fs_read', { path: 'out.txt' }, { origin: 'llm' })).toMatchObject({ content: 'ada' });
    write('lib/bad.ts', 'function f(: number) {}');
    expect(await gate.call('sys_lambda', { target: 'lib/bad.ts:f' }, { origin: 'llm' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^CODE_SYNTAX: SyntaxError: lib\/bad\.ts: TypeScript syntax error at line 1/),
    });
    close();
  });

  it('system lambdas (triggers, timers, middleware) run .ts files too', async () => {
    const { runner, write, close } = setup();
    write('hooks.ts', 'type Ev = { n: number };\nfunction onEvent(ev: Ev): number { return ev.n + 1; }');
    expect(await runner.runSystemLambda(parseLambdaRef('hooks.ts:onEvent'), { n: 41 })).toMatchObject({
      ok: true,
      value: 42,
    });
    close();
  });

  it('sys_code takes language typescript; the default stays JavaScript', async () => {
    const { gate, close } = setup();
    expect(
      await gate.call(
        'sys_code',
        { code: 'const n: number = 2; return n + 1;', language: 'typescript' },
        { origin: 'llm' },
      ),
    ).toMatchObject({ ok: true, value: 3 });
    expect(await gate.call('sys_code', { code: 'const n: number = 2; return n;' }, { origin: 'llm' })).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^CODE_SYNTAX/),
    });
    await expect(gate.call('sys_code', { code: '1', language: 'python' }, { origin: 'llm' })).rejects.toHaveTrustCode(
      'TOOL_ARGS_INVALID',
    );
    close();
  });
});
