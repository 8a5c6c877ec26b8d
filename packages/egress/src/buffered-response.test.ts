import { describe, expect, it } from 'vitest';
import { Response } from 'undici';
import { BufferedResponse } from './buffered-response.js';

const headers = { 'content-type': 'application/json; charset=utf-8', 'set-cookie': ['a=1', 'b=2'], 'x-custom': 'v' };
const make = (text: string | Uint8Array, over: Partial<ConstructorParameters<typeof BufferedResponse>[1]> = {}) =>
  new BufferedResponse(typeof text === 'string' ? Buffer.from(text) : text, {
    status: 200,
    statusText: 'OK',
    headers,
    url: 'http://a.test/x',
    redirected: true,
    ...over,
  });

describe('BufferedResponse keeps the Fetch Response contract', () => {
  it('is a Response with status, headers, url and redirected', () => {
    const r = make('{}');
    expect(r).toBeInstanceOf(Response);
    expect([r.status, r.ok, r.statusText, r.url, r.redirected, r.type]).toEqual([
      200,
      true,
      'OK',
      'http://a.test/x',
      true,
      'default',
    ]);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(r.headers).toBe(r.headers);
    expect(make('', { status: 404, statusText: 'bad\u0000phrase' }).statusText).toBe('');
  });

  it('reads once: text, json, arrayBuffer, bytes; a second read is a TypeError', async () => {
    const t = make('\ufeffhé');
    expect(t.bodyUsed).toBe(false);
    expect(await t.text()).toBe('hé');
    expect(t.bodyUsed).toBe(true);
    await expect(t.text()).rejects.toThrow(TypeError);
    await expect(t.arrayBuffer()).rejects.toThrow(TypeError);
    expect(await make('{"a":[1]}').json()).toEqual({ a: [1] });
    await expect(make('{nope').json()).rejects.toThrow(SyntaxError);
    const ab = await make('abc').arrayBuffer();
    expect(ab).toBeInstanceOf(ArrayBuffer);
    expect(Buffer.from(ab).toString()).toBe('abc');
    const bytes = await make('xyz').bytes();
    expect(Buffer.from(bytes).toString()).toBe('xyz');
  });

  it('hands out copies: mutating what one read returned never changes another', async () => {
    const source = Buffer.from('same');
    const a = make(source);
    const b = a.clone();
    const got = await a.bytes();
    got[0] = 0x5a;
    expect(await b.text()).toBe('same');
    expect(source.toString()).toBe('same');
  });

  it('hands its own buffer over on a read instead of copying it, once', async () => {
    const own = new Uint8Array([104, 105]);
    const r = new BufferedResponse(own, {
      status: 200,
      statusText: '',
      headers: {},
      url: 'http://a.test/',
      redirected: false,
    });
    const ab = await r.arrayBuffer();
    expect(ab).toBe(own.buffer);
    await expect(r.bytes()).rejects.toThrow(TypeError);
  });

  it('body is a web stream on demand, and then the readers go through it', async () => {
    const r = make('streamed');
    const reader = r.body?.getReader();
    expect(reader).toBeDefined();
    const { value } = await (reader as ReadableStreamDefaultReader<Uint8Array>).read();
    expect(Buffer.from(value as Uint8Array).toString()).toBe('streamed');
    expect(r.bodyUsed).toBe(true);
    await expect(r.text()).rejects.toThrow(TypeError);
  });

  it('body after a read is a disturbed stream, clone after a read throws', async () => {
    const r = make('x');
    await r.text();
    expect(r.body).not.toBeNull();
    expect(r.bodyUsed).toBe(true);
    expect(() => r.clone()).toThrow(TypeError);
  });

  it('clone keeps url and redirected, also after body was touched; blob carries the type', async () => {
    const r = make('{"k":1}');
    expect(r.body).not.toBeNull();
    const c = r.clone();
    expect([c.url, c.redirected]).toEqual(['http://a.test/x', true]);
    expect(await c.json()).toEqual({ k: 1 });
    expect(await r.json()).toEqual({ k: 1 });
    const blob = await make('b').blob();
    expect(blob.type).toBe('application/json;charset=utf-8'); // the serialised MIME type, as fetch gives it
    expect(await blob.text()).toBe('b');
  });
});
