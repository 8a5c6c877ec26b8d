import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allow, createPrincipal, deny } from '@trust/core';
import type { EgressHttpRequest } from '@trust/core';
import { createEgressClient } from '@trust/egress';
import type { EgressClient } from '@trust/egress';
import { createWsTools } from './ws-tools.js';
import type { WsClient } from './ws-tools.js';

// ws_connect / ws_send / ws_disconnect through the real egress client against a loopback
// WebSocket echo server in a child process; the control port stays unreachable.
let child: ChildProcess;
let port = 0;
let egress: EgressClient;
const CONTROL_PORT = 7385;

beforeAll(async () => {
  child = spawn(process.execPath, [fileURLToPath(new URL('./fixtures/ws-echo-server.mjs', import.meta.url))], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (c) => reject(new Error(`ws server exited ${c}`)));
    child.stdout!.on('data', (d: Buffer) => {
      const m = /PORT (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
  });
  egress = createEgressClient({
    policy: {
      name: 'loopback',
      authorizeHttp: (r: EgressHttpRequest) =>
        r.host === '127.0.0.1' ? allow('loopback') : deny('EGRESS_POLICY_DENIED', 'loopback only'),
    },
    guard: { mode: 'default', protectedPorts: [CONTROL_PORT] },
  });
}, 60_000);

afterAll(async () => {
  await egress?.close();
  child?.kill('SIGTERM');
});

describe('ws tools over egress', { timeout: 60_000 }, () => {
  it('connects, sends, receives and disconnects', async () => {
    let n = 0;
    const { tools, registry } = createWsTools(egress as unknown as WsClient, () => `ws${++n}`);
    const [connect, send, disconnect] = tools as unknown as Array<{
      run: (a: unknown, ctx: unknown) => Promise<unknown>;
    }>;
    const ctx = { principal: createPrincipal('llm', 'loop', 'agent') };
    const { id } = (await connect!.run({ url: `ws://127.0.0.1:${port}/chat` }, ctx)) as { id: string };
    expect(registry.connections.has(id)).toBe(true);
    await waitOpen(registry.connections.get(id)!.socket);
    await send!.run({ id, data: 'hello' }, ctx);
    const deadline = Date.now() + 10_000;
    while (registry.connections.get(id)!.inbox.length === 0 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    const out = await disconnect!.run({ id }, ctx);
    expect(out).toEqual({ closed: id, received: ['echo: hello'] });
  });

  it('the control port is unreachable and other schemes are refused', async () => {
    const { tools } = createWsTools(egress as unknown as WsClient, () => 'x');
    const connect = tools[0] as unknown as { run: (a: unknown, ctx: unknown) => Promise<unknown> };
    const ctx = { principal: createPrincipal('llm', 'loop', 'agent') };
    await expect(connect.run({ url: `ws://127.0.0.1:${CONTROL_PORT}/` }, ctx)).rejects.toHaveTrustCode(
      'EGRESS_PROTECTED_PORT',
    );
    await expect(connect.run({ url: `http://127.0.0.1:${port}/` }, ctx)).rejects.toMatchObject({
      code: expect.stringMatching(/^EGRESS_/),
    });
    await expect(connect.run({ url: 'ws://169.254.169.254/' }, ctx)).rejects.toMatchObject({
      code: expect.stringMatching(/^EGRESS_/),
    });
  });
});

function waitOpen(socket: { readyState: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    const deadline = Date.now() + 10_000;
    const tick = () =>
      socket.readyState === 1
        ? resolve()
        : Date.now() > deadline
          ? reject(new Error('websocket did not open'))
          : setTimeout(tick, 10);
    tick();
  });
}
