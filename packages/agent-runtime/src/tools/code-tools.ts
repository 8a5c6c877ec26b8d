import { TrustError } from '@trust/core';
import type { ToolDefinition, ToolOrigin } from '../gate/tool-definition.js';
import type { CodeResult } from '../code/code-sandbox.js';
import type { CodeRunner } from '../code/code-runner.js';
import { parseLambdaRef } from '../code/code-runner.js';

const toToolResult = (r: CodeResult) =>
  r.ok
    ? { ok: true, value: r.value, logs: r.logs }
    : { ok: false, error: `${r.code}: ${r.name}: ${r.message}`, logs: r.logs };

/**
 * sys_code: inline JavaScript in the QuickJS sandbox. Inline code is never authorized, whoever
 * asks: authorization belongs to files, and nested code never inherits it.
 */
export function createSysCodeTool(
  runner: () => CodeRunner,
): ToolDefinition<{ code: string; language?: 'javascript' | 'typescript' }> {
  return {
    name: 'sys_code',
    description:
      'Run JavaScript (or TypeScript: types are stripped, not checked) in an isolated sandbox. The code is ' +
      'an async function body: use `return` for the result and `await adf.<tool>(args)` to call your tools. ' +
      'No network, files or timers except through adf. Code started from code (adf.sys_code, adf.sys_lambda) ' +
      "shares this run's time limit and may nest at most 4 levels deep.",
    inputSchema: {
      type: 'object',
      properties: {
        code: { type: 'string', description: 'Source (async function body).', maxLength: 1_000_000 },
        language: {
          type: 'string',
          enum: ['javascript', 'typescript'],
          description: 'Language of code (default javascript). TypeScript types are stripped, not checked.',
        },
      },
      required: ['code'],
      additionalProperties: false,
    },
    async run(args, ctx) {
      return toToolResult(
        await runner().runCode(args.code, {
          authorized: false,
          principalId: 'sys_code',
          signal: ctx.signal,
          ...(args.language ? { language: args.language } : {}),
        }),
      );
    },
  };
}

/** Origins whose (approved) call may start an authorized file with its authorization. */
const CONFERS: readonly ToolOrigin[] = ['llm', 'authorized-code', 'owner', 'system'];

/**
 * sys_lambda: calls `file.js:fn` from the virtual files. The gate sees the target file through
 * `authorizedTarget`: an LLM call on an authorized file needs approval, unauthorized code is
 * refused. Once allowed, the function runs with its file's authorization.
 */
export function createSysLambdaTool(runner: () => CodeRunner): ToolDefinition<{ target: string; args?: unknown }> {
  return {
    name: 'sys_lambda',
    description:
      'Call a function from one of your virtual files: target "file.js:fn" (or "file.ts:fn": types are ' +
      'stripped, not checked), args passed as its single argument.',
    inputSchema: {
      type: 'object',
      properties: {
        target: { type: 'string', description: '"file.js:fn" or "file.ts:fn"', maxLength: 1100 },
        args: { description: 'JSON argument for the function.' },
      },
      required: ['target'],
      additionalProperties: false,
    },
    authorizedTarget(args) {
      try {
        return parseLambdaRef(args.target).file;
      } catch {
        return undefined;
      }
    },
    async run(args, ctx) {
      const ref = parseLambdaRef(args.target);
      const rec = ctx.adf.files.read(ref.file);
      if (!rec) throw new TrustError('ADF_NOT_FOUND', `lambda file "${ref.file}" does not exist`);
      const authorized = rec.authorized && CONFERS.includes(ctx.origin);
      return toToolResult(
        await runner().runLambda(ref, args.args ?? null, { authorized, principalId: ref.file, signal: ctx.signal }),
      );
    },
  };
}
