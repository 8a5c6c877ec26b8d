import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCodeSandbox } from './code-sandbox.js';

// The escape suite: every known way out of ADF 0.4.2's worker+vm sandbox, and the generic
// families (constructor chains, stack-trace hooks, pollution, code generation, resource
// exhaustion, cross-execution state). The host canaries must stay untouched throughout.
const sandbox = createCodeSandbox();
const CANARY_ENV = 'TRUST_ESCAPE_CANARY';
const CANARY_VALUE = 'canary-' + Math.random().toString(36).slice(2);
let canaryFile = '';
const calls: Array<[string, unknown]> = [];
const bridge = async (m: string, a: unknown) => {
  calls.push([m, a]);
  if (m === 'boom') throw new Error('boom');
  return { echoed: m };
};
const run = (code: string, extra: { timeoutMs?: number; memoryBytes?: number } = {}) =>
  sandbox.run({ code, bridge, ...extra });
// require, setTimeout, setInterval and Buffer exist since the standard library (issue 40): they are
// guest functions, checked below ('the standard library's globals are guest-realm functions').
const HOST_NAMES = ['process', 'fetch', 'module', 'globalThis.process', 'WebAssembly', 'XMLHttpRequest', 'Deno', 'Bun'];
const HOST_PROBE = `[${HOST_NAMES.map((n) => `typeof ${n}`).join(', ')}]`;
const ALL_UNDEFINED = Array(HOST_NAMES.length).fill('undefined');

beforeAll(() => {
  process.env[CANARY_ENV] = CANARY_VALUE;
  canaryFile = join(mkdtempSync(join(tmpdir(), 'code-escape-')), 'canary.txt');
  writeFileSync(canaryFile, CANARY_VALUE);
});

afterAll(() => {
  expect(process.env[CANARY_ENV]).toBe(CANARY_VALUE);
  expect(readFileSync(canaryFile, 'utf8')).toBe(CANARY_VALUE);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
});

describe('escape suite: no host reachable', () => {
  it('exposes no host globals', async () => {
    expect(await run(`return ${HOST_PROBE}`)).toMatchObject({ ok: true, value: ALL_UNDEFINED });
  });

  it.each([
    ['adf method', 'adf.fs_read'],
    ['adf proxy itself', 'adf'],
    ['console.log', 'console.log'],
    ['async function', '(async () => 1)'],
    ['generator', '(function* () {})'],
    ['async generator', '(async function* () {})'],
    ['bridge promise', 'adf.x({}).then'],
    ['JSON.parse', 'JSON.parse'],
    ['Promise', 'Promise'],
    ['Error', 'Error'],
  ])('constructor chain through %s reaches only the guest realm', async (_label, expr) => {
    const code =
      `const f = ${expr}; const F = f.constructor.constructor; const g = F('return this')(); ` +
      `return [F('return ${HOST_PROBE.replace(/'/g, "\\'")}')(), typeof g.process, ` +
      "Object.keys(g).includes('process')];";
    const r = await run(code);
    expect(r).toMatchObject({ ok: true, value: [ALL_UNDEFINED, 'undefined', false] });
  });

  it("the standard library's globals are guest-realm functions with no host behind them", async () => {
    const code =
      'const out = []; for (const f of [require, setTimeout, setInterval, Buffer, Buffer.from, TextEncoder, URL]) {' +
      "  const F = f.constructor.constructor; out.push(F('return typeof process + typeof module')()); }" +
      "let fs; try { require('fs'); } catch (e) { fs = e.code; } return [out, fs];";
    expect(await run(code)).toMatchObject({
      ok: true,
      value: [Array(7).fill('undefinedundefined'), 'CODE_MODULE_DENIED'],
    });
  });

  it('the 0.4.2 exploit shape (setTimeout.constructor) has nothing to start from', async () => {
    const r = await run(`try { return setTimeout.constructor('return process')(); } catch (e) { return e.name; }`);
    expect(r).toMatchObject({ ok: true, value: 'ReferenceError' });
  });

  it('Error.prepareStackTrace hooks run only in the guest and receive no host frames', async () => {
    const before = (Error as unknown as { prepareStackTrace?: unknown }).prepareStackTrace;
    const r = await run(`
      let seen = 'not-called';
      Error.prepareStackTrace = (err, frames) => { seen = typeof frames; return 'x'; };
      let leaked = [];
      try { await adf.boom({}); } catch (e) { leaked.push(typeof e.stack, String(e.stack).includes('node:')); }
      try { null.x; } catch (e) { leaked.push(e.constructor.constructor('return typeof process')()); }
      return [seen, leaked];`);
    expect(r).toMatchObject({ ok: true });
    if (r.ok) {
      const [, leaked] = r.value as [string, unknown[]];
      expect(leaked).toEqual(['string', false, 'undefined']);
    }
    expect((Error as unknown as { prepareStackTrace?: unknown }).prepareStackTrace).toBe(before);
  });

  it('eval and Function produce only guest-realm code', async () => {
    const r = await run(
      "return [eval('typeof process'), new Function('return typeof module')(), (0, eval)('typeof fetch'), " +
        "Function('return this')() === globalThis]",
    );
    expect(r).toMatchObject({ ok: true, value: ['undefined', 'undefined', 'undefined', true] });
  });

  it('dynamic import has no module loader', async () => {
    const r = await run(`try { await import('node:fs'); return 'imported'; } catch (e) { return 'refused'; }`);
    expect(r).toMatchObject({ ok: true, value: 'refused' });
  });
});

describe('escape suite: pollution and forged bridge state', () => {
  it('guest prototype pollution stays in the guest, and the bridge cannot be replaced', async () => {
    calls.length = 0;
    const r = await run(`
      Object.prototype.polluted = 1; Array.prototype.map = null;
      const attempts = [];
      try { adf.fs_read = () => 'forged'; attempts.push('assigned'); } catch (e) { attempts.push('set-refused'); }
      try { Object.setPrototypeOf(adf, { fs_read: () => 'forged' }); attempts.push('proto-set'); }
      catch (e) { attempts.push('proto-refused'); }
      try { globalThis.adf = { fs_read: () => 'forged' }; } catch (e) { attempts.push('global-refused'); }
      attempts.push(Object.getPrototypeOf(adf));
      const r = await adf.fs_read({ path: 'a' });
      return [attempts, r];`);
    expect(r).toMatchObject({
      ok: true,
      value: [['set-refused', 'proto-refused', 'global-refused', null], { echoed: 'fs_read' }],
    });
    expect(calls).toEqual([['fs_read', { path: 'a' }]]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(typeof [].map).toBe('function');
  });

  it('a __proto__ key in bridge arguments arrives as plain data on the host', async () => {
    calls.length = 0;
    await run(`await adf.fs_write(JSON.parse('{"__proto__": {"polluted": true}, "path": "x"}'))`);
    const [, args] = calls[0]!;
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('the method name is always a string, even from symbol or object keys', async () => {
    calls.length = 0;
    const r = await run(`return [typeof adf[Symbol.iterator], typeof adf[{ toString() { return 'x' } }]]`);
    expect(r).toMatchObject({ ok: true, value: ['undefined', 'function'] });
  });
});

describe('escape suite: resource exhaustion interrupts the guest', { timeout: 60_000 }, () => {
  it('an infinite loop is interrupted by the deadline', async () => {
    expect(await run('while (true) {}', { timeoutMs: 100 })).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_TIMEOUT'),
    });
  });

  it('catching the interrupt does not keep the guest alive', async () => {
    expect(await run('for (;;) { try { while (true) {} } catch (e) {} }', { timeoutMs: 100 })).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_TIMEOUT'),
    });
  });

  it('an infinite loop inside a promise job is interrupted too', async () => {
    expect(await run('await adf.x({}); while (true) {}', { timeoutMs: 100 })).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_TIMEOUT'),
    });
  });

  it('a memory bomb hits the memory limit', async () => {
    const r = await run('const a = []; for (;;) a.push("x".repeat(1 << 20) + a.length);', {
      memoryBytes: 16 * 1024 * 1024,
      timeoutMs: 20_000,
    });
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_MEMORY_LIMIT') });
  });

  it('string doubling hits the memory limit', async () => {
    const r = await run('let s = "x"; for (;;) s = s + s + "y";', { memoryBytes: 16 * 1024 * 1024, timeoutMs: 20_000 });
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_MEMORY_LIMIT') });
  });

  it('deep recursion is a stack overflow, not a host crash', async () => {
    expect(await run('function f(n) { return f(n + 1) + 1; } return f(0);')).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_STACK_OVERFLOW'),
    });
  });

  it('the sandbox still works after every kind of failure', async () => {
    expect(await run('return 1 + 1')).toMatchObject({ ok: true, value: 2 });
  });
});

describe('escape suite: no state across executions or agents', () => {
  it('globals from one execution are gone in the next', async () => {
    await run('globalThis.secret = "agent-a"; Object.prototype.leak = 1;');
    expect(await run('return [typeof globalThis.secret, typeof ({}).leak]')).toMatchObject({
      ok: true,
      value: ['undefined', 'undefined'],
    });
  });

  it('two agents running concurrently cannot see each other', async () => {
    const other = createCodeSandbox();
    let release!: () => void;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const a = sandbox.run({
      code: 'globalThis.secretA = "a-private"; await adf.wait({}); return typeof globalThis.secretB;',
      bridge: async () => {
        await gate;
        return null;
      },
    });
    const b = await other.run({
      code: 'globalThis.secretB = "b"; return [typeof globalThis.secretA, typeof secretA];',
      bridge,
    });
    release();
    expect(b).toMatchObject({ ok: true, value: ['undefined', 'undefined'] });
    expect(await a).toMatchObject({ ok: true, value: 'undefined' });
  });

  it('cannot read the host canary env var or file by any name', async () => {
    const r = await run(`return [typeof process, typeof std, typeof os, typeof globalThis.${CANARY_ENV}]`);
    expect(r).toMatchObject({ ok: true, value: ['undefined', 'undefined', 'undefined', 'undefined'] });
  });
});
