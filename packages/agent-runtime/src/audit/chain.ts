// Temporary bridge to the core audit chain model. Replaced by the @trust/core exports
// (sealEvent, verifyChain, GENESIS_HASH) once they land; same signatures.
import { createHash } from 'node:crypto';
import type { AuditEvent, AuditInput } from '@trust/core';

export const GENESIS_HASH = '0'.repeat(64);

function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const keys = Object.keys(value).filter((k) => (value as Record<string, unknown>)[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(',')}}`;
}

export function sealEvent(input: AuditInput, prev: string, time: string): AuditEvent {
  const body = { ...input, v: 1 as const, time, prev };
  return Object.freeze({ ...body, hash: createHash('sha256').update(canonical(body)).digest('hex') });
}

export function verifyChain(events: readonly AuditEvent[]): { ok: true } | { ok: false; index: number; reason: string } {
  let prev = GENESIS_HASH;
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as AuditEvent;
    const { hash, ...rest } = e;
    if (e.prev !== prev) return { ok: false, index: i, reason: 'prev does not match the previous hash' };
    if (createHash('sha256').update(canonical(rest)).digest('hex') !== hash) return { ok: false, index: i, reason: 'hash does not match the event' };
    prev = hash;
  }
  return { ok: true };
}
