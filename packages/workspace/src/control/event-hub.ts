import type { ServerResponse } from 'node:http';
import type { ControlEvent } from './agent-registry.js';
import { eventHubOptionsSchema } from './control-options.js';
import { checkOptions } from './strict-options.js';

/** Fan-out of live events to server-sent-event clients. One hub per server; no globals. */
export interface EventHub {
  /** Adds an SSE client; `agent` filters to one agent when given. */
  attach(res: ServerResponse, agent?: string): void;
  publish(event: ControlEvent): void;
  /** Number of connected clients (for tests and health). */
  size(): number;
  close(): void;
}

/** Creates a hub that also sends a comment every `heartbeatMs` so proxies and clients see life. */
export function createEventHub(options: { heartbeatMs?: number; maxClients?: number } = {}): EventHub {
  checkOptions('createEventHub', eventHubOptionsSchema, options);
  const clients = new Map<ServerResponse, string | undefined>();
  const max = options.maxClients ?? 32;
  let seq = 0;
  const beat = setInterval(() => {
    for (const res of clients.keys()) res.write(': keep-alive\n\n');
  }, options.heartbeatMs ?? 15_000);
  beat.unref();
  return {
    attach(res, agent) {
      if (clients.size >= max) {
        // Drop the oldest: a reloading studio must not lock itself out.
        const oldest = clients.keys().next().value;
        if (oldest !== undefined) {
          clients.delete(oldest);
          oldest.end();
        }
      }
      res.statusCode = 200;
      res.setHeader('Content-Type', 'text/event-stream; charset=utf-8');
      res.setHeader('Connection', 'keep-alive');
      res.flushHeaders();
      res.write(': connected\n\n');
      clients.set(res, agent);
      res.on('close', () => clients.delete(res));
    },
    publish(event) {
      seq += 1;
      const data = JSON.stringify({ agent: event.agent, data: event.data });
      const frame = `id: ${seq}\nevent: ${event.kind}\ndata: ${data}\n\n`;
      for (const [res, agent] of clients) if (agent === undefined || agent === event.agent) res.write(frame);
    },
    size: () => clients.size,
    close() {
      clearInterval(beat);
      for (const res of clients.keys()) res.end();
      clients.clear();
    },
  };
}
