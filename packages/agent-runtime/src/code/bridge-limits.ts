/**
 * Limits on values that cross the code sandbox boundary (bridge arguments and results, lambda
 * arguments, the final value). They are checked on the JSON text, by a linear scan that never
 * recurses, BEFORE anything recursive (JSON.parse into an object graph, a tool, canonical JSON)
 * sees the value.
 */

import { checkJsonText, DEFAULT_MAX_JSON_DEPTH } from '@trust/core';

/** Deepest nesting of arrays/objects a value crossing the sandbox boundary may have. */
export const MAX_BRIDGE_DEPTH = DEFAULT_MAX_JSON_DEPTH;

/** Why a bridge value was refused, with its stable code. */
export interface BridgeLimitViolation {
  readonly code: 'CODE_MESSAGE_TOO_LARGE' | 'CODE_VALUE_TOO_DEEP';
  readonly message: string;
}

/**
 * Checks a JSON text against the byte and depth caps with core's one-pass input check; `undefined`
 * when it passes. The refusal carries the code sandbox's own codes.
 */
export function checkBridgeText(
  text: string,
  what: string,
  maxBytes: number,
  maxDepth = MAX_BRIDGE_DEPTH,
): BridgeLimitViolation | undefined {
  const verdict = checkJsonText(text, { maxBytes, maxDepth });
  if (verdict.allow) return undefined;
  return verdict.code === 'INPUT_TOO_LARGE'
    ? { code: 'CODE_MESSAGE_TOO_LARGE', message: `${what} exceeds ${maxBytes} bytes` }
    : { code: 'CODE_VALUE_TOO_DEEP', message: `${what} is nested deeper than ${maxDepth} levels` };
}

/**
 * Serialises a host value for the guest. A value too deep for `JSON.stringify` itself (a
 * RangeError from the host stack) is refused like one over the depth cap.
 */
export function toBridgeText(
  value: unknown,
  what: string,
  maxBytes: number,
): { ok: true; text: string } | { ok: false; violation: BridgeLimitViolation } {
  let text: string;
  try {
    text = JSON.stringify(value === undefined ? null : value) ?? 'null';
  } catch (e) {
    if (e instanceof RangeError)
      return {
        ok: false,
        violation: { code: 'CODE_VALUE_TOO_DEEP', message: `${what} is nested deeper than ${MAX_BRIDGE_DEPTH} levels` },
      };
    throw e;
  }
  const violation = checkBridgeText(text, what, maxBytes);
  return violation ? { ok: false, violation } : { ok: true, text };
}
