import { TrustError, deny } from '@trust/core';
import type { Deny } from '@trust/core';
import type { ToolContext } from '../gate/tool-definition.js';

/** Approximate characters per token used to turn token limits into byte caps. */
export const CHARS_PER_TOKEN = 4;

/** Truncates text to a token budget and says so in-band, so the model knows it saw a part. */
export function capText(text: string, tokens: number): { text: string; truncated: boolean } {
  const max = Math.max(1, tokens) * CHARS_PER_TOKEN;
  if (text.length <= max) return { text, truncated: false };
  return {
    text: `${text.slice(0, max)}\n[truncated: ${text.length - max} more characters; read a narrower range]`,
    truncated: true,
  };
}

/**
 * Runs a store operation that may hit a protection (read_only file, readonly meta key). The
 * authorized origin bypasses at once (the gate audits it); anyone else gets a one-time owner
 * approval through `ctx.requestOverride`, never persisted.
 */
export async function withProtection<T>(ctx: ToolContext, target: string, op: (bypass: boolean) => T): Promise<T> {
  try {
    return op(false);
  } catch (e) {
    const decision = (e as { decision?: Deny }).decision;
    if (!(e instanceof TrustError) || !decision || !/PROTECTED|READ_ONLY|NO_DELETE/.test(e.code)) throw e;
    const granted = await ctx.requestOverride({ target, decision });
    if (!granted) throw e;
    return op(true);
  }
}

/** The NOT_FOUND error every file and meta tool uses. */
export function notFound(what: string): TrustError {
  return new TrustError('ADF_NOT_FOUND', `${what} does not exist`, {
    decision: deny('ADF_NOT_FOUND', `${what} does not exist`),
  });
}
