import { describe, expect, it } from 'vitest';
import { createCodeSandbox } from './code-sandbox.js';

const sandbox = createCodeSandbox();
const noBridge = async () => {
  throw Object.assign(new Error('no tools here'), { code: 'NO_TOOLS' });
};

describe('code sandbox basics', () => {
  it('returns a JSON copy of the value', async () => {
    const r = await sandbox.run({ code: 'return { a: [1, 2, { b: "c" }], d: null }', bridge: noBridge });
    expect(r).toMatchObject({ ok: true, value: { a: [1, 2, { b: 'c' }], d: null } });
  });

  it('routes adf.* calls through the bridge with JSON args and JSON results', async () => {
    const seen: Array<[string, unknown]> = [];
    const r = await sandbox.run({
      code:
        'const a = await adf.fs_read({ path: "x.txt" }); const b = await adf.db_query({ sql: "select 1" }); ' +
        'return [a.content, b.rows.length];',
      bridge: async (m, a) => {
        seen.push([m, a]);
        return m === 'fs_read' ? { content: 'hello' } : { rows: [1, 2] };
      },
    });
    expect(r).toMatchObject({ ok: true, value: ['hello', 2] });
    expect(seen).toEqual([
      ['fs_read', { path: 'x.txt' }],
      ['db_query', { sql: 'select 1' }],
    ]);
  });

  it('surfaces a bridge rejection as a catchable guest error with its code', async () => {
    const r = await sandbox.run({
      code: 'try { await adf.anything({}); } catch (e) { return [e.name, e.code, e.message]; }',
      bridge: noBridge,
    });
    expect(r).toMatchObject({ ok: true, value: ['Error', 'NO_TOOLS', 'no tools here'] });
  });

  it('reports thrown errors and syntax errors with stable codes', async () => {
    expect(await sandbox.run({ code: 'throw new TypeError("bad")', bridge: noBridge })).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_ERROR'),
      name: 'TypeError',
      message: 'bad',
    });
    expect(await sandbox.run({ code: 'return (', bridge: noBridge })).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_SYNTAX'),
    });
  });

  it('captures console output', async () => {
    const r = await sandbox.run({ code: 'console.log("a", {b:1}); console.error("x"); return 1', bridge: noBridge });
    expect(r.logs).toEqual(['[log] a {"b":1}', '[error] x']);
  });

  it('calls a named lambda entry with JSON arguments', async () => {
    const r = await sandbox.run({
      code: 'function handler(ev) { return ev.n * 2; }',
      entry: { kind: 'function', name: 'handler', args: { n: 21 } },
      bridge: noBridge,
    });
    expect(r).toMatchObject({ ok: true, value: 42 });
    const missing = await sandbox.run({
      code: 'const x = 1;',
      entry: { kind: 'function', name: 'handler', args: {} },
      bridge: noBridge,
    });
    expect(missing).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_ERROR'), name: 'TypeError' });
  });

  it('rejects a non-identifier lambda entry', async () => {
    await expect(
      sandbox.run({ code: '', entry: { kind: 'function', name: 'a;b', args: {} }, bridge: noBridge }),
    ).rejects.toHaveTrustCode('CODE_ENTRY_INVALID');
  });

  it('gives a value that cannot be serialised a clear error', async () => {
    const r = await sandbox.run({ code: 'const a = {}; a.a = a; return a;', bridge: noBridge });
    expect(r).toMatchObject({ ok: false, name: 'TypeError' });
  });

  it('aborts on signal', async () => {
    const ac = new AbortController();
    const p = sandbox.run({
      code: 'await adf.wait({}); return 1',
      bridge: () =>
        new Promise(() => {
          ac.abort();
        }),
      signal: ac.signal,
    });
    expect(await p).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_ABORTED') });
  });

  it('times out while waiting on a bridge call that never answers', async () => {
    const r = await sandbox.run({
      code: 'await adf.hang({}); return 1',
      bridge: () => new Promise(() => {}),
      timeoutMs: 50,
    });
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_TIMEOUT') });
  });
});
