import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { AuditSink, Decision, EgressPolicy, Principal } from '@trust/core';
import type { Dispatcher } from 'undici';
import type { EgressAuditFacts } from './audit.js';
import type { EgressGuard } from './guard.js';
import type { ResolvedLimits } from './limits.js';
import type { ResolvedClientLimits } from './proxy-client-limits.js';

/** What the proxy's request and tunnel handlers share. One per proxy; nothing is global. */
export interface ProxyContext {
  readonly policy: EgressPolicy;
  readonly guard: EgressGuard;
  readonly limits: ResolvedLimits;
  readonly clientLimits: ResolvedClientLimits;
  /** Whether `TRACE` may be forwarded (when allowed and nothing was injected). */
  readonly allowTrace: boolean;
  readonly principal: Principal;
  readonly connectAs: 'http' | 'tcp';
  readonly sink: AuditSink | undefined;
  readonly now: () => number;
  /** `host:port` → the address the latest pooled connection for it was dialled to. */
  readonly dialled: Map<string, string>;
  /** Every open socket (client side and tunnel upstreams): destroyed by `close()`. */
  readonly sockets: Set<Socket | Duplex>;
  /** Forwarded requests in flight, ended by `close()` after its grace period. */
  readonly inflight: Inflight;
  /** The shared upstream dispatcher (made on first use); throws once the proxy is closing. */
  forwarder(): Dispatcher;
  /** Records one audit event with the proxy's principal and policy name. */
  audit(target: string, decision: Decision, started: number, extra?: Partial<EgressAuditFacts>): void;
}

/** The forwarded requests in flight, each with the controller that ends it. */
export interface Inflight {
  add(controller: AbortController): void;
  delete(controller: AbortController): void;
  /** Resolves once none is in flight, or after `ms`, whichever is first. */
  settled(ms: number): Promise<void>;
  /** Aborts every request still in flight with `reason`. */
  abortAll(reason: Error): void;
}

export function createInflight(): Inflight {
  const live = new Set<AbortController>();
  let waiters: (() => void)[] = [];
  const wake = (): void => {
    if (live.size > 0) return;
    const now = waiters;
    waiters = [];
    for (const w of now) w();
  };
  return {
    add: (c) => void live.add(c),
    delete(c) {
      live.delete(c);
      wake();
    },
    settled(ms) {
      if (live.size === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    },
    abortAll(reason) {
      for (const c of live) c.abort(reason);
    },
  };
}
