import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { createCodeSandbox, type CodeResult } from './code-sandbox.js';

// The code sandbox's standard library, used as a Node programmer would use it. Every value is
// compared with what Node itself answers for the same call.
const sandbox = createCodeSandbox();
afterAll(() => sandbox.close());
const noBridge = async () => {
  throw new Error('no tools here');
};
const run = (code: string, timeoutMs = 10_000) => sandbox.run({ code, bridge: noBridge, timeoutMs });
const value = async (code: string): Promise<unknown> => {
  const r: CodeResult = await run(code);
  if (!r.ok) throw new Error(`${r.code} ${r.name}: ${r.message}`);
  return r.value;
};

describe('Web APIs', () => {
  it('TextEncoder and TextDecoder round-trip UTF-8, stream split sequences and honour fatal', async () => {
    expect(
      await value(`
        const bytes = new TextEncoder().encode('héllo €𝄞');
        const d = new TextDecoder();
        const split = d.decode(bytes.subarray(0, 3), { stream: true }) + d.decode(bytes.subarray(3));
        let fatal;
        try { new TextDecoder('utf-8', { fatal: true }).decode(new Uint8Array([0xff])); } catch (e) { fatal = e.name; }
        const into = new Uint8Array(4);
        return [Array.from(bytes), split, new TextDecoder().decode(new Uint8Array([0xef, 0xbb, 0xbf, 0x61])),
          fatal, new TextEncoder().encodeInto('a€b', into),
            new TextDecoder('utf-16le').decode(new Uint8Array([0x61, 0]))];
      `),
    ).toEqual([[...Buffer.from('héllo €𝄞')], 'héllo €𝄞', 'a', 'TypeError', { read: 2, written: 4 }, 'a']);
  });

  it('atob and btoa follow the HTML standard', async () => {
    expect(
      await value(`
        let bad; try { btoa('€'); } catch (e) { bad = e.name; }
        let bad2; try { atob('a'); } catch (e) { bad2 = e.name; }
        return [btoa('hello'), atob('aGVsbG8='), atob(' aGVs bG8 '), bad, bad2];
      `),
    ).toEqual(['aGVsbG8=', 'hello', 'hello', 'InvalidCharacterError', 'InvalidCharacterError']);
  });

  it('URL and URLSearchParams parse, resolve and update like Node', async () => {
    const got = (await value(`
      const u = new URL('../b/c?x=1&y=a+b#h', 'https://user:pw@Example.COM:8443/a/z');
      u.searchParams.append('z', 'é &');
      u.pathname = '/p q';
      const p = new URLSearchParams({ a: '1', b: '2' });
      p.set('a', '3'); p.sort();
      let invalid; try { new URL('not a url'); } catch (e) { invalid = [e.name, e.code]; }
      return [u.href, u.origin, u.host, u.searchParams.get('y'), [...p], p.toString(), invalid,
        URL.canParse('http://x'), new URL('http://xn--nxasmq6b.com').hostname];
    `)) as unknown[];
    const u = new URL('../b/c?x=1&y=a+b#h', 'https://user:pw@Example.COM:8443/a/z');
    u.searchParams.append('z', 'é &');
    u.pathname = '/p q';
    expect(got).toEqual([
      u.href,
      u.origin,
      u.host,
      'a b',
      [
        ['a', '3'],
        ['b', '2'],
      ],
      'a=3&b=2',
      ['TypeError', 'ERR_INVALID_URL'],
      true,
      'xn--nxasmq6b.com',
    ]);
  });

  it('crypto: getRandomValues, randomUUID and subtle.digest (SHA-1/256/384/512) from the host', async () => {
    const got = (await value(`
      const a = crypto.getRandomValues(new Uint8Array(32));
      const b = crypto.getRandomValues(new Uint32Array(4));
      let quota; try { crypto.getRandomValues(new Uint8Array(65537)); } catch (e) { quota = e.name; }
      const data = new TextEncoder().encode('abc');
      const hex = (buf) => Array.from(new Uint8Array(buf), (x) => x.toString(16).padStart(2, '0')).join('');
      const out = {};
      for (const alg of ['SHA-1', 'SHA-256', 'SHA-384',
        'SHA-512']) out[alg] = hex(await crypto.subtle.digest(alg, data));
      let unknown; try { await crypto.subtle.digest('MD5', data); } catch (e) { unknown = e.name; }
      let importKey; try { await crypto.subtle.importKey('raw', data, 'AES-GCM', false, ['encrypt']);
        } catch (e) { importKey = e.name; }
      return { distinct: new Set(a).size > 8, b: b.length, uuid: crypto.randomUUID(), quota, out, unknown, importKey };
    `)) as Record<string, unknown>;
    expect(got['distinct']).toBe(true);
    expect(got['uuid']).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(got['quota']).toBe('QuotaExceededError');
    expect(got['out']).toEqual({
      'SHA-1': createHash('sha1').update('abc').digest('hex'),
      'SHA-256': createHash('sha256').update('abc').digest('hex'),
      'SHA-384': createHash('sha384').update('abc').digest('hex'),
      'SHA-512': createHash('sha512').update('abc').digest('hex'),
    });
    expect(got['unknown']).toBe('NotSupportedError');
    expect(got['importKey']).toBe('NotSupportedError');
  });

  it('structuredClone keeps types, cycles and shared references, and refuses functions', async () => {
    expect(
      await value(`
        const o = { d: new Date(0), m: new Map([[1, { x: 1 }]]), s: new Set(['a']), u: new Uint8Array([1, 2]),
          r: /a/g };
        o.self = o;
        const c = structuredClone(o);
        let fn; try { structuredClone({ f() {} }); } catch (e) { fn = e.name; }
        return [c !== o, c.self === c, c.d instanceof Date && c.d.getTime(), c.m.get(1).x, c.m.get(1) !== o.m.get(1),
          c.s.has('a'), Array.from(c.u), c.u.buffer !== o.u.buffer, String(c.r), fn];
      `),
    ).toEqual([true, true, 0, 1, true, true, [1, 2], true, '/a/g', 'DataCloneError']);
  });

  it('setTimeout, setInterval, clearTimeout, clearInterval and queueMicrotask order as in Node', async () => {
    const seen = (await value(`
      const seen = [];
      setTimeout((x) => seen.push('t30:' + x), 30, 'arg');
      setTimeout(() => seen.push('t5'), 5);
      queueMicrotask(() => seen.push('micro'));
      const cancelled = setTimeout(() => seen.push('never'), 1);
      clearTimeout(cancelled);
      let n = 0;
      await new Promise((resolve) => {
        const iv = setInterval(() => { seen.push('iv' + ++n); if (n === 3) { clearInterval(iv); resolve(); } }, 1);
      });
      await new Promise((r) => setTimeout(r, 40));
      seen.push('end');
      return seen;
    `)) as string[];
    // Order that holds however loaded the machine is: the microtask before any timer, timers by due
    // time, the interval's ticks in order and exactly three, the cleared timer never.
    expect(seen[0]).toBe('micro');
    expect(seen.indexOf('t5')).toBeLessThan(seen.indexOf('t30:arg'));
    expect(seen.filter((x) => x.startsWith('iv'))).toEqual(['iv1', 'iv2', 'iv3']);
    expect(seen).not.toContain('never');
    expect(seen.at(-1)).toBe('end');
    expect([...seen].sort()).toEqual(['end', 'iv1', 'iv2', 'iv3', 'micro', 't30:arg', 't5']);
  });
});

describe('timers live no longer than their run', () => {
  it('a timer cannot outlive its run: pending callbacks never fire after the result', async () => {
    // The run returns while a timer is pending; the next run in the same worker sees nothing of it
    // (and could not: each run has its own isolate, and the wait is cancelled with the run).
    const logs: string[] = [];
    const r = await sandbox.run({
      code: 'setTimeout(() => console.log("late"), 5); setInterval(() => console.log("tick"), 1); return 1;',
      bridge: noBridge,
    });
    expect(r).toMatchObject({ ok: true, value: 1 });
    logs.push(...r.logs);
    const after = await value('await new Promise((r) => setTimeout(r, 30)); return "second";');
    expect(after).toBe('second');
    expect(logs).toEqual([]);
  });

  it('a timer cannot outlive its deadline: waiting on one past it ends the run with CODE_TIMEOUT', async () => {
    const r = await run('await new Promise((r) => setTimeout(r, 60_000)); return "too late";', 200);
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_TIMEOUT') });
  });

  it('an interval that keeps the run busy ends at the deadline', async () => {
    const r = await run('await new Promise(() => setInterval(() => {}, 0));', 200);
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_TIMEOUT') });
  });

  it('an exception thrown by a timer callback ends the run with that error', async () => {
    const r = await run('setTimeout(() => { throw new RangeError("from a timer"); }, 1); await new Promise(() => {});');
    expect(r).toMatchObject({
      ok: false,
      code: expect.toBeTrustCode('CODE_ERROR'),
      name: 'RangeError',
      message: 'from a timer',
    });
  });

  it('at most 1000 timers wait at once', async () => {
    const r = await run('for (let i = 0; i < 1001; i++) setTimeout(() => {}, 1000); return 1;');
    expect(r).toMatchObject({ ok: false, name: 'RangeError' });
  });
});

describe('require and import of the allowlisted Node modules', () => {
  it('path (POSIX), as node:path answers', async () => {
    const path = await import('node:path');
    const got = await value(`
      const path = require('path');
      return [path.join('/a/b', '../c', './d.txt'), path.resolve('x', '/y', 'z'), path.basename('/a/b.tar.gz', '.gz'),
        path.extname('f.md'), path.dirname('/a/b/'), path.relative('/a/b/c', '/a/d'), path.normalize('a//b/../c/'),
        path.parse('/home/u/f.txt'), path.isAbsolute('a'), path.format({ dir: '/x', base: 'y.js' }), path.sep];
    `);
    expect(got).toEqual([
      path.join('/a/b', '../c', './d.txt'),
      path.resolve('/y', 'z'),
      path.basename('/a/b.tar.gz', '.gz'),
      path.extname('f.md'),
      path.dirname('/a/b/'),
      path.relative('/a/b/c', '/a/d'),
      path.normalize('a//b/../c/'),
      path.parse('/home/u/f.txt'),
      false,
      '/x/y.js',
      '/',
    ]);
  });

  it('url and querystring', async () => {
    const qs = await import('node:querystring');
    const url = await import('node:url');
    const got = await value(`
      const url = require('node:url');
      const qs = require('querystring');
      const legacy = url.parse('http://u@h.com:81/p/a?x=1&x=2#f', true);
      return [qs.parse('a=1&b=x%20y&a=2&c'), qs.stringify({ a: [1, 2], b: 'x y', c: '' }), qs.escape('a b&'),
        legacy.hostname, legacy.port, legacy.pathname, legacy.query, url.resolve('http://a/b/c', '../d'),
        url.fileURLToPath('file:///tmp/a%20b'), url.pathToFileURL('/tmp/a b').href, new url.URL('http://a/b').pathname];
    `);
    expect(got).toEqual([
      { ...qs.parse('a=1&b=x%20y&a=2&c') },
      qs.stringify({ a: [1, 2], b: 'x y', c: '' }),
      qs.escape('a b&'),
      'h.com',
      '81',
      '/p/a',
      { x: ['1', '2'] },
      url.resolve('http://a/b/c', '../d'),
      '/tmp/a b',
      url.pathToFileURL('/tmp/a b').href,
      '/b',
    ]);
  });

  it('util.format and util.inspect', async () => {
    const util = await import('node:util');
    const got = (await value(`
      const util = require('util');
      return [util.format('%s=%d %j %%', 'n', 42, { a: 1 }), util.format('a', 1, 'b'),
        util.inspect({ a: [1, 'x'], m: new Map([[1, 2]]) }), util.inspect('s'),
          util.isDeepStrictEqual({ a: [1] }, { a: [1] }),
        await util.promisify((x, cb) => cb(null, x * 2))(21)];
    `)) as unknown[];
    expect(got).toEqual([
      util.format('%s=%d %j %%', 'n', 42, { a: 1 }),
      util.format('a', 1, 'b'),
      util.inspect({ a: [1, 'x'], m: new Map([[1, 2]]) }),
      util.inspect('s'),
      true,
      42,
    ]);
  });

  it('events: EventEmitter and once', async () => {
    expect(
      await value(`
        const EventEmitter = require('events');
        const { once } = require('node:events');
        const e = new EventEmitter();
        const seen = [];
        e.on('x', (a, b) => seen.push(['on', a, b]));
        e.once('x', (a) => seen.push(['once', a]));
        e.prependListener('x', () => seen.push(['first']));
        e.emit('x', 1, 2); e.emit('x', 3);
        let unhandled; try { e.emit('error', new Error('boom')); } catch (err) { unhandled = err.message; }
        const p = once(e, 'ready');
        e.emit('ready', 'go');
        return [seen, e.listenerCount('x'), unhandled, await p, e.emit('nothing')];
      `),
    ).toEqual([
      [['first'], ['on', 1, 2], ['once', 1], ['first'], ['on', 3, undefined]].map((x) =>
        x.map((v) => (v === undefined ? null : v)),
      ),
      2,
      'boom',
      ['go'],
      false,
    ]);
  });

  it('assert: strict and loose equality, deep equality, throws and rejects', async () => {
    expect(
      await value(`
        const assert = require('assert');
        const strict = require('assert/strict');
        assert.deepStrictEqual({ a: [1, { b: new Map([[1, 2]]) }] }, { a: [1, { b: new Map([[1, 2]]) }] });
        assert.equal(1, '1');
        assert.throws(() => { throw new TypeError('bad'); }, TypeError);
        assert.throws(() => { throw new Error('msg x'); }, /msg/);
        await assert.rejects(Promise.reject(new Error('r')), { message: 'r' });
        const out = [];
        for (const f of [() => strict.equal(1, '1'), () => assert.deepStrictEqual([1], ['1']), () => assert.ok(0)]) {
          try { f(); out.push('no'); } catch (e) { out.push([e.name, e.code, e instanceof assert.AssertionError]); }
        }
        return out;
      `),
    ).toEqual([
      ['AssertionError', 'ERR_ASSERTION', true],
      ['AssertionError', 'ERR_ASSERTION', true],
      ['AssertionError', 'ERR_ASSERTION', true],
    ]);
  });

  it('buffer and string_decoder, with Node’s encodings', async () => {
    const got = await value(`
      const { Buffer } = require('buffer');
      const { StringDecoder } = require('string_decoder');
      const b = Buffer.from('héllo', 'utf8');
      const d = new StringDecoder('utf8');
      const euro = Buffer.from('€');
      const w = Buffer.alloc(6);
      w.writeUInt16BE(0xbeef, 0); w.writeInt32LE(-2, 2);
      return [b.toString('hex'), b.toString('base64'), Buffer.from('aGk=', 'base64').toString(), b.length,
        Buffer.concat([Buffer.from('a'), Buffer.from('b')]).toString(), d.write(euro.subarray(0,
          1)) + d.write(euro.subarray(1)) + d.end(),
        Buffer.isBuffer(b), b.subarray(1, 3) instanceof Buffer, Buffer.byteLength('€'), w.toString('hex'),
          w.readInt32LE(2),
        Buffer.from([1, 2, 3]).equals(Buffer.from([1, 2, 3])), typeof globalThis.Buffer, b.toJSON().data.length,
        Buffer.from('abc').indexOf('c'), Buffer.from('ff00', 'hex')[0]];
    `);
    const w = Buffer.alloc(6);
    w.writeUInt16BE(0xbeef, 0);
    w.writeInt32LE(-2, 2);
    expect(got).toEqual([
      Buffer.from('héllo').toString('hex'),
      Buffer.from('héllo').toString('base64'),
      'hi',
      6,
      'ab',
      '€',
      true,
      true,
      3,
      w.toString('hex'),
      -2,
      true,
      'function',
      6,
      2,
      255,
    ]);
  });

  it('punycode encodes and decodes as RFC 3492 (the examples of node:punycode)', async () => {
    expect(
      await value(`
        const punycode = require('punycode');
        return [punycode.encode('mañana'), punycode.decode('maana-pta'), punycode.toASCII('mañana.com'),
          punycode.toUnicode('xn--maana-pta.com'), punycode.encode('☃-⌘'), punycode.decode('--dqo34k'),
          punycode.toASCII('джумла@джpумлатест.bрфa'), punycode.ucs2.decode('𝌆')];
      `),
    ).toEqual([
      'maana-pta',
      'mañana',
      'xn--maana-pta.com',
      'mañana.com',
      '--dqo34k',
      '☃-⌘',
      'джумла@xn--p-8sbkgc5ag7bhce.xn--ba-lmcq',
      [0x1d306],
    ]);
  });

  it('crypto: createHash, createHmac, randomBytes, randomInt, timingSafeEqual', async () => {
    const { createHmac } = await import('node:crypto');
    const got = (await value(`
      const crypto = require('node:crypto');
      const h = crypto.createHash('sha256').update('ab').update(Buffer.from('c')).digest('hex');
      const m = crypto.createHmac('sha512', 'key').update('data').digest('base64');
      const r = crypto.randomInt(10, 20);
      let cipher; try { crypto.createCipheriv('aes-256-gcm'); } catch (e) { cipher = e.code; }
      return [h, m, crypto.randomBytes(16).length, r >= 10 && r < 20, crypto.timingSafeEqual(Buffer.from('a'),
        Buffer.from('a')),
        crypto.createHash('md5').update('').digest('hex'), cipher];
    `)) as unknown[];
    expect(got).toEqual([
      createHash('sha256').update('abc').digest('hex'),
      createHmac('sha512', 'key').update('data').digest('base64'),
      16,
      true,
      true,
      createHash('md5').update('').digest('hex'),
      'ERR_NOT_IMPLEMENTED',
    ]);
  });

  it('static import declarations at the top of the code load the same modules', async () => {
    expect(
      await value(`import path from 'node:path';
        import { format as fmt } from 'util';
        import * as qs from 'querystring';
        import EventEmitter, { once } from 'events';
        return [path.join('a', 'b'), fmt('%d', 7), qs.stringify({ a: 1 }), typeof EventEmitter, typeof once];`),
    ).toEqual(['a/b', '7', 'a=1', 'function', 'function']);
  });

  it.each([
    ['fs', 'CODE_MODULE_DENIED'],
    ['node:child_process', 'CODE_MODULE_DENIED'],
    ['worker_threads', 'CODE_MODULE_DENIED'],
    ['../../dist/index.js', 'CODE_MODULE_DENIED'],
    ['stream', 'CODE_MODULE_UNSUPPORTED'],
    ['node:zlib', 'CODE_MODULE_UNSUPPORTED'],
  ])('require(%j) is refused by name with %s', async (id, code) => {
    expect(await value(`try { require(${JSON.stringify(id)}); return 'loaded'; } catch (e) { return e.code; }`)).toBe(
      code,
    );
    const r = await run(`require(${JSON.stringify(id)});`);
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_ERROR') });
    expect(!r.ok && r.message).toContain(code);
  });
});

describe('the standard library keeps the sandbox limits', () => {
  it('a module or a global holds no host object: constructors lead back into the isolate only', async () => {
    expect(
      await value(`
        const escapes = [];
        for (const v of [require('path').join, TextEncoder, URL, crypto.subtle.digest, setTimeout,
          require('buffer').Buffer]) {
          try { const F = v.constructor.constructor; if (typeof F('return typeof process')() !== 'undefined' &&
            F('return typeof process')() !== 'undefined') escapes.push(v.name); } catch (e) {}
        }
        return [escapes, typeof process, typeof globalThis.__std];
      `),
    ).toEqual([[], 'undefined', 'undefined']);
  });

  it('memory limits apply to what the library allocates', async () => {
    const r = await sandbox.run({
      code: 'const parts = []; for (;;) parts.push(Buffer.alloc(1 << 20));',
      bridge: noBridge,
      memoryBytes: 16 * 1024 * 1024,
    });
    expect(r).toMatchObject({ ok: false, code: expect.toBeTrustCode('CODE_MEMORY_LIMIT') });
  });
});
