import type { AuditSink, EgressPolicy } from '@trust/core';
import type { Agent } from 'undici';
import type { EgressGuard } from './guard.js';
import type { ResolvedLimits } from './limits.js';

/** What the client's operations share. Created once per client; nothing is global. */
export interface Engine {
  readonly policy: EgressPolicy;
  readonly guard: EgressGuard;
  readonly audit: AuditSink | undefined;
  readonly limits: ResolvedLimits;
  readonly dispatcher: Agent;
  /** `host:port` → the address the latest pooled connection for it was dialled to. */
  readonly dialled: Map<string, string>;
  readonly allowDowngrade: boolean;
  readonly now: () => number;
}
