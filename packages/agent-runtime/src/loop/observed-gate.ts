import { TrustError } from '@trust/core';
import type { ToolCallOptions, ToolGate } from '../gate/tool-gate.js';

/** One finished gate call, as observers see it (never its arguments or result). */
export interface ObservedToolCall {
  readonly tool: string;
  readonly origin: ToolCallOptions['origin'];
  readonly ok: boolean;
  readonly code?: string;
}

/**
 * Wraps a gate so every call is reported after it finished (allowed and ran, or refused or
 * failed). Observation only: the observer cannot change the outcome, and a throwing observer is
 * ignored.
 *
 * @example
 * const gate = observeGate(createToolGate({ adf, registry }), (c) => console.log(c.tool, c.ok));
 */
export function observeGate(gate: ToolGate, observe: (call: ObservedToolCall) => void): ToolGate {
  const report = (c: ObservedToolCall) => {
    try {
      observe(c);
    } catch {
      /* observers never change a call */
    }
  };
  return {
    async call(name, args, options) {
      try {
        const value = await gate.call(name, args, options);
        report({ tool: name, origin: options.origin, ok: true });
        return value;
      } catch (e) {
        report({
          tool: name,
          origin: options.origin,
          ok: false,
          code: e instanceof TrustError ? e.code : 'TOOL_ERROR',
        });
        throw e;
      }
    },
    check: (name, origin) => gate.check(name, origin),
    visibleTools: () => gate.visibleTools(),
    resolveTask: (taskId, response, by) => gate.resolveTask(taskId, response, by),
    pendingApprovals: () => gate.pendingApprovals(),
  };
}
