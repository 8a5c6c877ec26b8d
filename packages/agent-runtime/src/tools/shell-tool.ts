import { allow } from '@trust/core';
import type { ToolDefinition } from '../gate/tool-definition.js';
import type { ToolGate } from '../gate/tool-gate.js';
import { createShell } from '../shell/shell-interpreter.js';
import type { ShellGate } from '../shell/shell-types.js';
import { capText } from './tool-support.js';

/** Deny codes from the gate meaning a human said no (exit 130); every other denial is 126. */
export const GATE_REJECTION_CODES: readonly string[] = Object.freeze([
  'TOOL_APPROVAL_DENIED',
  'TOOL_APPROVAL_TIMEOUT',
  'TOOL_CALL_ABORTED',
]);

/**
 * Adapts the agent's gate to the shell. Preflight asks the access matrix for the caller's
 * origin: a denial stops the command (126) before anything runs. A restricted tool is approved
 * by the gate's own human-in-the-loop when the command first uses it, before that tool has any
 * effect; a rejection ends the command with 130.
 */
export function createShellGate(
  gate: ToolGate,
  origin: 'llm' | 'code' | 'authorized-code',
  signal?: AbortSignal,
): ShellGate {
  return {
    async preflight(tool) {
      const a = gate.check(tool, origin);
      return a.kind === 'deny' ? a.decision : allow(a.decision.rule);
    },
    call: (tool, args) =>
      gate.call(tool, args, {
        origin,
        parentAuthorized: origin === 'authorized-code',
        principalId: 'adf_shell',
        ...(signal ? { signal } : {}),
      }),
  };
}

/** adf_shell: the virtual shell as a tool. Its commands run with the caller's origin. */
export function createShellTool(gate: () => ToolGate): ToolDefinition<{ command: string; stdin?: string }> {
  return {
    name: 'adf_shell',
    description:
      'Run a bash-like script in a virtual shell over your files and tools (cat, ls, find, grep, sed, awk, ' +
      'cut, sort, diff, jq, tee, curl, sqlite3, node, msg, config, mcp, at, xargs, sh -c, …; run `help`, or ' +
      '`CMD --help`). Exit statuses, set -e/-u/-o pipefail, globs, braces and arrays follow bash; a refused ' +
      'tool gives 126, a rejected approval 130. Not a real shell: no host processes, no working directory.',
    inputSchema: {
      type: 'object',
      properties: {
        command: { type: 'string', description: 'Shell source.', maxLength: 100_000 },
        stdin: { type: 'string', description: 'Standard input.', maxLength: 1_000_000 },
      },
      required: ['command'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      const origin = ctx.origin === 'authorized-code' ? 'authorized-code' : ctx.origin === 'code' ? 'code' : 'llm';
      const shell = createShell({
        gate: createShellGate(gate(), origin, ctx.signal),
        rejectionCodes: GATE_REJECTION_CODES,
      });
      const r = await shell.run(args.command, {
        ...(args.stdin !== undefined ? { stdin: args.stdin } : {}),
        signal: ctx.signal,
      });
      const budget = ctx.config.limits.max_tool_result_tokens;
      return {
        exitCode: r.exitCode,
        stdout: capText(r.stdout, budget).text,
        stderr: capText(r.stderr, Math.ceil(budget / 4)).text,
      };
    },
  };
}
