import * as shim from '@bytecodealliance/preview2-shim';
import { describe, expect, it } from 'vitest';
import { createSocketImports } from './socket-imports.js';
import { thrown } from '../test/thrown.js';

const { InputStream, OutputStream } = shim.io.streams as unknown as {
  InputStream: new () => object;
  OutputStream: new () => object;
};

/** Socket imports over a scripted broker that records every call. */
function sockets(answers: Record<string, unknown> = {}, grants = { tcp: true, udp: true }) {
  const calls: [string, unknown][] = [];
  const imports = createSocketImports({
    InputStream,
    OutputStream,
    ready: () => undefined,
    ...grants,
    call: (op, payload) => {
      calls.push([op, payload]);
      return (answers[op] ?? { kind: 'ok', id: 7 }) as never;
    },
  });
  const get = <T>(iface: string, name: string) => (imports[iface] as Record<string, T>)[name]!;
  return { calls, imports, get };
}
const v4 = (port: number, address = [127, 0, 0, 1]) => ({ tag: 'ipv4' as const, val: { port, address } });

describe('wasi:sockets imports', () => {
  it('resolves names through the broker and hands out each address once', () => {
    const { get, calls } = sockets({
      'dns.lookup': {
        kind: 'ok',
        addresses: [
          { tag: 'ipv4', val: [192, 0, 2, 1] },
          { tag: 'ipv6', val: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1] },
        ],
      },
    });
    const resolve = get<(n: unknown, name: string) => { resolveNextAddress(): unknown }>(
      'wasi:sockets/ip-name-lookup',
      'resolveAddresses',
    );
    const stream = resolve(undefined, 'example.test');
    expect(stream.resolveNextAddress()).toEqual({ tag: 'ipv4', val: [192, 0, 2, 1] });
    expect(stream.resolveNextAddress()).toEqual({ tag: 'ipv6', val: [0x2001, 0xdb8, 0, 0, 0, 0, 0, 1] });
    expect(stream.resolveNextAddress()).toBeUndefined();
    expect(calls).toEqual([['dns.lookup', { name: 'example.test' }]]);
  });

  it('reports a refused or failed lookup as the guest error code, and refuses without a socket grant', () => {
    const denied = sockets({ 'dns.lookup': { kind: 'error', error: 'access-denied', message: 'metadata' } });
    const stream = denied.get<(n: unknown, name: string) => { resolveNextAddress(): unknown }>(
      'wasi:sockets/ip-name-lookup',
      'resolveAddresses',
    )(undefined, 'meta.test');
    expect(thrown(() => stream.resolveNextAddress())).toBe('access-denied');
    const none = sockets({}, { tcp: false, udp: false });
    expect(
      thrown(() =>
        none.get<(n: unknown, name: string) => unknown>('wasi:sockets/ip-name-lookup', 'resolveAddresses')(
          undefined,
          'x.test',
        ),
      ),
    ).toBe('access-denied');
    expect(none.calls).toEqual([]);
  });

  it('refuses bind to a chosen port and listen; accepts an ephemeral UDP bind', () => {
    const { get } = sockets();
    const tcp = get<(f: string) => { startBind(): void; startListen(): void }>(
      'wasi:sockets/tcp-create-socket',
      'createTcpSocket',
    )('ipv4');
    expect(thrown(() => tcp.startBind())).toBe('access-denied');
    expect(thrown(() => tcp.startListen())).toBe('access-denied');
    const udp = get<(f: string) => { startBind(n: unknown, a: unknown): void; finishBind(): void }>(
      'wasi:sockets/udp-create-socket',
      'createUdpSocket',
    )('ipv4');
    expect(thrown(() => udp.startBind(undefined, v4(5353, [0, 0, 0, 0])))).toBe('access-denied');
    expect(thrown(() => udp.startBind(undefined, v4(0, [0, 0, 0, 0])))).toBe('no error');
  });

  it('connects a UDP stream to one peer: sends and receives there only, and closes it on drop', () => {
    const { get, calls } = sockets({
      'udp.receive': { kind: 'ok', datagrams: [new Uint8Array([1]), new Uint8Array([2])] },
    });
    type Udp = {
      startBind(n: unknown, a: unknown): void;
      finishBind(): void;
      stream(r: unknown): [{ receive(n: bigint): unknown[] }, { send(d: unknown[]): bigint }];
      remoteAddress(): unknown;
      [Symbol.dispose](): void;
    };
    const udp = get<(f: string) => Udp>('wasi:sockets/udp-create-socket', 'createUdpSocket')('ipv4');
    udp.startBind(undefined, v4(0, [0, 0, 0, 0]));
    udp.finishBind();
    const [incoming, outgoing] = udp.stream(v4(9000));
    expect(udp.remoteAddress()).toEqual(v4(9000));
    expect(outgoing.send([{ data: new Uint8Array([9]) }])).toBe(1n);
    expect(thrown(() => outgoing.send([{ data: new Uint8Array([9]), remoteAddress: v4(9001) }]))).toBe(
      'invalid-argument',
    );
    expect(incoming.receive(4n)).toEqual([
      { data: new Uint8Array([1]), remoteAddress: v4(9000) },
      { data: new Uint8Array([2]), remoteAddress: v4(9000) },
    ]);
    udp[Symbol.dispose]();
    expect(calls.map(([op]) => op)).toEqual(['udp.open', 'udp.send-connected', 'udp.receive', 'udp.close']);
    expect(calls[0]![1]).toEqual({ host: '127.0.0.1', port: 9000 });
  });

  it('a denied UDP peer fails stream() with access-denied', () => {
    const { get } = sockets({ 'udp.open': { kind: 'error', error: 'denied', message: 'policy' } });
    const udp = get<
      (f: string) => { startBind(n: unknown, a: unknown): void; finishBind(): void; stream(r: unknown): unknown }
    >(
      'wasi:sockets/udp-create-socket',
      'createUdpSocket',
    )('ipv4');
    udp.startBind(undefined, v4(0, [0, 0, 0, 0]));
    udp.finishBind();
    expect(thrown(() => udp.stream(v4(9000)))).toBe('access-denied');
  });

  it('TCP and UDP sockets share their option accessors, which keep what the guest sets', () => {
    const { get } = sockets();
    type Opts = {
      receiveBufferSize(): bigint;
      setReceiveBufferSize(n: bigint): void;
      sendBufferSize(): bigint;
      setSendBufferSize(n: bigint): void;
      addressFamily(): string;
    };
    const tcp = get<(f: string) => Opts & { hopLimit(): number; setHopLimit(n: number): void }>(
      'wasi:sockets/tcp-create-socket',
      'createTcpSocket',
    )('ipv6');
    const udp = get<(f: string) => Opts & { unicastHopLimit(): number; setUnicastHopLimit(n: number): void }>(
      'wasi:sockets/udp-create-socket',
      'createUdpSocket',
    )('ipv4');
    for (const s of [tcp, udp]) {
      s.setReceiveBufferSize(1024n);
      s.setSendBufferSize(2048n);
      expect([s.receiveBufferSize(), s.sendBufferSize()]).toEqual([1024n, 2048n]);
      expect(thrown(() => s.setReceiveBufferSize(0n))).toBe('invalid-argument');
    }
    tcp.setHopLimit(12);
    udp.setUnicastHopLimit(13);
    expect([tcp.hopLimit(), udp.unicastHopLimit(), tcp.addressFamily(), udp.addressFamily()]).toEqual([
      12,
      13,
      'ipv6',
      'ipv4',
    ]);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(tcp))).toBe(Object.getPrototypeOf(Object.getPrototypeOf(udp)));
  });
});
