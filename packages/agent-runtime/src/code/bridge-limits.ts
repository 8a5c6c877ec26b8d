/**
 * Limits on values that cross the code sandbox boundary (bridge arguments and results, lambda
 * arguments, the final value). They are checked on the JSON text, by a linear scan that never
 * recurses, BEFORE anything recursive (JSON.parse into an object graph, a tool, canonical JSON)
 * sees the value.
 */

/** Deepest nesting of arrays/objects a value crossing the sandbox boundary may have. */
export const MAX_BRIDGE_DEPTH = 64;

/** Why a bridge value was refused, with its stable code. */
export interface BridgeLimitViolation { readonly code: 'CODE_MESSAGE_TOO_LARGE' | 'CODE_VALUE_TOO_DEEP'; readonly message: string }

/**
 * Nesting depth of a JSON text, counting `[` and `{` outside strings; stops scanning as soon as
 * `max` is exceeded and then returns `max + 1`. Linear in the text, constant stack.
 */
export function jsonDepth(text: string, max = MAX_BRIDGE_DEPTH): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 91 /* [ */ || c === 123 /* { */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > max) return max + 1;
      }
    } else if (c === 93 /* ] */ || c === 125 /* } */) depth--;
  }
  return deepest;
}

/** Checks a JSON text against the byte and depth caps; `undefined` when it passes. */
export function checkBridgeText(text: string, what: string, maxBytes: number, maxDepth = MAX_BRIDGE_DEPTH): BridgeLimitViolation | undefined {
  // UTF-16 length is a lower bound of the UTF-8 size; a text within it by chars but over in bytes
  // is measured exactly (rare: only non-ASCII-heavy texts near the cap).
  if (text.length > maxBytes || (text.length * 3 > maxBytes && Buffer.byteLength(text, 'utf8') > maxBytes)) {
    return { code: 'CODE_MESSAGE_TOO_LARGE', message: `${what} exceeds ${maxBytes} bytes` };
  }
  if (jsonDepth(text, maxDepth) > maxDepth) {
    return { code: 'CODE_VALUE_TOO_DEEP', message: `${what} is nested deeper than ${maxDepth} levels` };
  }
  return undefined;
}

/**
 * Serialises a host value for the guest. A value too deep for `JSON.stringify` itself (a
 * RangeError from the host stack) is refused like one over the depth cap.
 */
export function toBridgeText(value: unknown, what: string, maxBytes: number): { ok: true; text: string } | { ok: false; violation: BridgeLimitViolation } {
  let text: string;
  try {
    text = JSON.stringify(value === undefined ? null : value) ?? 'null';
  } catch (e) {
    if (e instanceof RangeError) return { ok: false, violation: { code: 'CODE_VALUE_TOO_DEEP', message: `${what} is nested deeper than ${MAX_BRIDGE_DEPTH} levels` } };
    throw e;
  }
  const violation = checkBridgeText(text, what, maxBytes);
  return violation ? { ok: false, violation } : { ok: true, text };
}
