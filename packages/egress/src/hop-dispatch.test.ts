import { afterEach, describe, expect, it } from 'vitest';
import { MockAgent } from 'undici';
import { Hop, type BodyMode, type HopHead } from './hop-dispatch.js';

// The hop handler against undici's MockAgent: nothing is dialled.
const agents: MockAgent[] = [];
function setup() {
  const agent = new MockAgent();
  agents.push(agent);
  agent.disableNetConnect();
  const pool = agent.get('http://h.test');
  pool
    .intercept({ path: '/small' })
    .reply(200, 'hello', { headers: { 'content-type': 'text/plain' } })
    .persist();
  pool.intercept({ path: '/big' }).reply(200, 'x'.repeat(5000)).persist();
  pool
    .intercept({ path: '/moved' })
    .reply(302, 'gone', { headers: { location: '/small' } })
    .persist();
  return agent;
}
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

class Capped extends Error {}
function hop(mode: BodyMode | ((h: HopHead) => BodyMode | Error), maxBytes = 1_000_000, capStream = true) {
  return new Hop({
    choose: typeof mode === 'function' ? mode : () => mode,
    maxBytes,
    capStream,
    tooLarge: () => new Capped('too large'),
    mapError: (e) => (e instanceof Error ? e : new Error(String(e))),
  });
}
const send = (h: Hop, path: string) => setup().dispatch({ origin: 'http://h.test', path, method: 'GET' }, h);
async function drain(r: NodeJS.ReadableStream): Promise<string> {
  let s = '';
  for await (const c of r) s += String(c);
  return s;
}

describe('Hop (one dispatch, body mode chosen at the headers)', () => {
  it('buffer: settles at the end with the whole body and the parsed head', async () => {
    const h = hop('buffer');
    send(h, '/small');
    const r = await h.result;
    expect(r.mode).toBe('buffer');
    expect(r.head.statusCode).toBe(200);
    expect(r.head.headers['content-type']).toBe('text/plain');
    expect(Buffer.from(r.bytes as Uint8Array).toString()).toBe('hello');
    // A fresh buffer of exactly the body's size, not a view into the socket's read buffer.
    expect([r.bytes?.byteOffset, r.bytes?.buffer.byteLength]).toEqual([0, 5]);
  });

  it('stream: settles at the headers with a readable body', async () => {
    const h = hop('stream');
    send(h, '/big');
    const r = await h.result;
    expect(await drain(r.body as NodeJS.ReadableStream)).toHaveLength(5000);
  });

  it('caps bytes while receiving: buffer rejects, a capped stream fails, an uncapped stream does not', async () => {
    const b = hop('buffer', 100);
    send(b, '/big');
    await expect(b.result).rejects.toBeInstanceOf(Capped);
    expect(b.head?.statusCode).toBe(200);
    const s = hop('stream', 100);
    send(s, '/big');
    await expect(drain((await s.result).body as NodeJS.ReadableStream)).rejects.toBeInstanceOf(Capped);
    const free = hop('stream', 100, false);
    send(free, '/big');
    expect(await drain((await free.result).body as NodeJS.ReadableStream)).toHaveLength(5000);
  });

  it('discard settles at the headers without a body; choose can refuse with an Error', async () => {
    const d = hop('discard');
    send(d, '/moved');
    const r = await d.result;
    expect([r.mode, r.head.headers.location, r.body, r.bytes]).toEqual(['discard', '/small', undefined, undefined]);
    const refuse = hop(() => new Capped('declared too much'));
    send(refuse, '/small');
    await expect(refuse.result).rejects.toThrow('declared too much');
  });

  it('abort before the connection exists rejects at once with the reason', async () => {
    const h = hop('buffer');
    const why = new Error('deadline');
    h.abort(why);
    expect(h.aborted).toBe(true);
    await expect(h.result).rejects.toBe(why);
  });

  it(
    'sniff: settles at the headers; takeComplete gives a complete ' + 'body, toStream replays what came and the rest',
    async () => {
      const a = hop('sniff');
      send(a, '/small');
      expect((await a.result).mode).toBe('sniff');
      await new Promise((r) => setImmediate(r));
      expect(Buffer.from(a.takeComplete() as Uint8Array).toString()).toBe('hello');
      const b = hop('sniff');
      send(b, '/big');
      await b.result;
      await new Promise((r) => setImmediate(r));
      expect(await drain(b.toStream())).toHaveLength(5000);
    },
  );

  it('sniff: a cap hit while collecting fails the stream, and takeComplete refuses the partial body', async () => {
    const h = hop('sniff', 100);
    send(h, '/big');
    await h.result;
    await new Promise((r) => setImmediate(r));
    expect(h.takeComplete()).toBeUndefined();
    await expect(drain(h.toStream())).rejects.toBeInstanceOf(Capped);
  });
});
