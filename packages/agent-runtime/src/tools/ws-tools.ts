import { TrustError } from '@trust/core';
import type { Principal } from '@trust/core';
import type { ToolDefinition } from '../gate/tool-definition.js';

/** The WebSocket part of the egress client (structurally `@trust/egress`). */
export interface WsClient {
  webSocket(
    url: string,
    options: { principal: Principal },
  ): Promise<{
    send(data: string): void;
    close(): void;
    addEventListener(type: string, cb: (ev: { data?: unknown }) => void): void;
    readyState: number;
  }>;
}

/** Connections per agent, and the newest inbound messages of each (bounded). */
export interface WsRegistry {
  readonly connections: Map<
    string,
    { url: string; socket: Awaited<ReturnType<WsClient['webSocket']>>; inbox: string[] }
  >;
}

const MAX_CONNECTIONS = 16;
const MAX_BUFFERED = 100;

/**
 * ws_connect / ws_send / ws_disconnect over the egress client: the URL goes through the policy
 * and the address guard like sys_fetch (ws: and wss: only). Inbound messages are buffered
 * (newest 100) and returned by ws_send and ws_disconnect.
 */
export function createWsTools(
  client: WsClient,
  nextId: () => string,
): { tools: ToolDefinition<never>[]; registry: WsRegistry } {
  const registry: WsRegistry = { connections: new Map() };
  const connect: ToolDefinition<{ url: string }> = {
    name: 'ws_connect',
    description: 'Open an outbound WebSocket (ws:// or wss://). Returns a connection id.',
    inputSchema: {
      type: 'object',
      properties: { url: { type: 'string', description: 'ws:// or wss:// URL.', maxLength: 8192 } },
      required: ['url'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      if (registry.connections.size >= MAX_CONNECTIONS)
        throw new TrustError('WS_TOO_MANY', `at most ${MAX_CONNECTIONS} WebSocket connections`);
      const socket = await client.webSocket(args.url, { principal: ctx.principal });
      const id = nextId();
      const entry = { url: args.url, socket, inbox: [] as string[] };
      socket.addEventListener('message', (ev) => {
        entry.inbox.push(String(ev.data).slice(0, 65_536));
        if (entry.inbox.length > MAX_BUFFERED) entry.inbox.shift();
      });
      socket.addEventListener('close', () => {
        registry.connections.delete(id);
      });
      registry.connections.set(id, entry);
      return { id };
    },
  };
  const take = (id: string) => {
    const c = registry.connections.get(id);
    if (!c) throw new TrustError('ADF_NOT_FOUND', `WebSocket connection ${id} does not exist`);
    return c;
  };
  const send: ToolDefinition<{ id: string; data: string }> = {
    name: 'ws_send',
    description: 'Send text on a WebSocket; returns messages received since the last call.',
    inputSchema: {
      type: 'object',
      properties: {
        id: { type: 'string', description: 'Connection id.' },
        data: { type: 'string', description: 'Text to send.', maxLength: 1_000_000 },
      },
      required: ['id', 'data'],
      additionalProperties: false,
    },
    run(args) {
      const c = take(args.id);
      c.socket.send(args.data);
      return { received: c.inbox.splice(0) };
    },
  };
  const disconnect: ToolDefinition<{ id: string }> = {
    name: 'ws_disconnect',
    description: 'Close a WebSocket connection.',
    inputSchema: {
      type: 'object',
      properties: { id: { type: 'string', description: 'Connection id.' } },
      required: ['id'],
      additionalProperties: false,
    },
    run(args) {
      const c = take(args.id);
      c.socket.close();
      registry.connections.delete(args.id);
      return { closed: args.id, received: c.inbox.splice(0) };
    },
  };
  return { tools: [connect, send, disconnect] as unknown as ToolDefinition<never>[], registry };
}
