import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'undici';
import { startPeer, type Peer } from './peer.js';

describe('startPeer (child process, loopback)', () => {
  let peer: Peer;
  beforeAll(async () => {
    peer = await startPeer({
      routes: { '/echo': { kind: 'echo' }, '/go': { kind: 'redirect', status: 307, location: '/echo' } },
    });
  });
  afterAll(async () => peer.close());

  it('runs in another process on loopback', () => {
    expect(peer.pid).not.toBe(process.pid);
    expect(peer.host).toBe('127.0.0.1');
    expect(peer.origin).toBe(`http://127.0.0.1:${peer.httpPort}`);
  });

  it('echoes method, headers and body and records the request', async () => {
    const res = await fetch(`${peer.origin}/echo?q=1`, { method: 'POST', headers: { 'x-a': 'b' }, body: 'hi' });
    const body = (await res.json()) as { method: string; path: string; headers: Record<string, string>; body: string };
    expect(body).toMatchObject({ method: 'POST', path: '/echo?q=1', body: 'hi' });
    expect(body.headers['x-a']).toBe('b');
    const seen = await peer.requests();
    expect(seen.at(-1)?.body).toBe('hi');
  });

  it('redirects verbatim and accepts new routes', async () => {
    const res = await fetch(`${peer.origin}/go`, { redirect: 'manual' });
    expect(res.status).toBe(307);
    expect(res.headers.get('location')).toBe('/echo');
    await peer.route('/j', { kind: 'json', body: { ok: 1 }, status: 201 });
    const j = await fetch(`${peer.origin}/j`);
    expect(j.status).toBe(201);
    expect(await j.json()).toEqual({ ok: 1 });
  });

  it('streams a huge body of the requested size', async () => {
    await peer.route('/big', { kind: 'huge-body', bytes: 300_000, declareLength: true });
    const res = await fetch(`${peer.origin}/big`);
    expect(res.headers.get('content-length')).toBe('300000');
    expect((await res.arrayBuffer()).byteLength).toBe(300_000);
  });

  it('echoes raw TCP and counts connections', async () => {
    const echoed = await new Promise<string>((resolve, reject) => {
      const s = connect(peer.tcpPort, '127.0.0.1', () => s.end('ping'));
      let got = '';
      s.on('data', (d) => (got += d));
      s.on('end', () => resolve(got));
      s.on('error', reject);
    });
    expect(echoed).toBe('ping');
    expect((await peer.stats()).tcpConnections).toBeGreaterThanOrEqual(1);
  });

  it('speaks WebSocket: greets and echoes', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${peer.httpPort}/ws`);
    const messages: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.onmessage = (e) => {
        messages.push(String(e.data));
        if (messages.length === 1) ws.send('back');
        else ws.close();
      };
      ws.onclose = () => resolve();
      ws.onerror = () => reject(new Error('ws error'));
    });
    expect(messages).toEqual(['hello', 'back']);
  });

  it('close is idempotent and later calls fail', async () => {
    const p = await startPeer();
    await p.close();
    await p.close();
    await expect(p.requests()).rejects.toThrow(/closed/);
  });
});
