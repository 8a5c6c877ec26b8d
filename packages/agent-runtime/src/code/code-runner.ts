import { TrustError, createPrincipal } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { ToolGate } from '../gate/tool-gate.js';
import type { CodeResult, CodeSandbox } from './code-sandbox.js';
import { isGuestIdentifier } from './guest-prelude.js';
import { isTypeScriptPath } from './type-strip.js';
import type { CodeLanguage } from './type-strip.js';
import { codeRunnerOptionsSchema } from '../options/code-options.js';
import { checkOptions } from '../options/strict-options.js';

/** A parsed `file.js:fn` reference to a function in the agent's virtual files. */
export interface LambdaRef {
  readonly file: string;
  readonly fn: string;
}

/**
 * Parses `file.js:fn` (or `file.ts:fn`: TypeScript files have their types stripped on the host
 * before they run, see {@link createTypeStripper}).
 */
export function parseLambdaRef(ref: string): LambdaRef {
  const i = ref.lastIndexOf(':');
  const file = i > 0 ? ref.slice(0, i) : '';
  const fn = i > 0 ? ref.slice(i + 1) : '';
  if (!file || !isGuestIdentifier(fn))
    throw new TrustError('LAMBDA_REF_INVALID', `"${ref}" is not a lambda reference`, {
      hint: 'write "file.js:functionName"',
    });
  return { file, fn };
}

const languageOf = (file: string): CodeLanguage => (isTypeScriptPath(file) ? 'typescript' : 'javascript');

/** Options of {@link createCodeRunner}. */
export interface CodeRunnerOptions {
  readonly adf: AdfFile;
  readonly sandbox: CodeSandbox;
  /** The agent's gate; late-bound because tools that run code are registered before it exists. */
  readonly gate: () => ToolGate;
  /**
   * Most calls of a method in one execution (default {@link DEFAULT_CODE_METHOD_QUOTAS});
   * over the quota the call is refused with `CODE_METHOD_QUOTA` (audited) before the gate.
   */
  readonly methodQuotas?: Readonly<Record<string, number>>;
}

/** Per-execution caps of the costly code methods: model calls, loop notes, approvals. */
export const DEFAULT_CODE_METHOD_QUOTAS: Readonly<Record<string, number>> = Object.freeze({
  model_invoke: 10,
  loop_inject: 20,
  task_resolve: 20,
});

/** How a piece of code was started, which decides its authority. */
export interface CodeRunContext {
  /** Run as `authorized-code`. Only true when the file is authorized and the starter may confer it. */
  readonly authorized: boolean;
  /** Principal id for audit (file path or `sys_code`). */
  readonly principalId: string;
  readonly signal?: AbortSignal;
  /** Inline code only: its language (default javascript). Lambdas take theirs from the file name. */
  readonly language?: CodeLanguage;
}

/** Runs agent code and lambdas, routing every `adf.*` call through the gate. */
export interface CodeRunner {
  /** Inline code (sys_code). */
  runCode(code: string, ctx: CodeRunContext): Promise<CodeResult>;
  /** A function from a virtual file. */
  runLambda(ref: LambdaRef, args: unknown, ctx: CodeRunContext): Promise<CodeResult>;
  /**
   * A lambda started by the runtime (trigger, timer, middleware): it runs with its own file's
   * authorization flag, nothing more.
   */
  runSystemLambda(ref: LambdaRef, args: unknown, signal?: AbortSignal): Promise<CodeResult>;
}

/**
 * Creates the code runner: the sandbox plus the bridge to the gate. The bridge passes the
 * origin out-of-band (`code` or `authorized-code`, with `parentAuthorized`), never in arguments.
 *
 * @example
 * ```ts
 * const runner = createCodeRunner({ adf, sandbox: createCodeSandbox(), gate: () => gate });
 * await runner.runCode('return (await adf.fs_list({})).files.length', { authorized: false, principalId: 'sys_code' });
 * ```
 */
export function createCodeRunner(options: CodeRunnerOptions): CodeRunner {
  checkOptions('createCodeRunner', codeRunnerOptionsSchema, options);
  const { adf, sandbox } = options;
  const quotas = options.methodQuotas ?? DEFAULT_CODE_METHOD_QUOTAS;
  const exec = (
    code: string,
    entry: { kind: 'script' } | { kind: 'function'; name: string; args: unknown },
    ctx: CodeRunContext,
    language: CodeLanguage,
    fileName: string,
  ) => {
    const used = new Map<string, number>();
    // Bridge calls still in flight when the execution ends (a timeout, or a promise the code did
    // not await) are aborted then: a model call or fetch never outlives the code that made it.
    const ended = new AbortController();
    const callSignal = ctx.signal ? AbortSignal.any([ctx.signal, ended.signal]) : ended.signal;
    return sandbox
      .run({
        code,
        entry,
        language,
        fileName,
        timeoutMs: adf.config().limits.execution_timeout_ms,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        bridge: async (method, args) => {
          const quota = Object.hasOwn(quotas, method) ? quotas[method] : undefined;
          if (quota !== undefined) {
            const n = (used.get(method) ?? 0) + 1;
            used.set(method, n);
            if (n > quota) {
              adf.audit.record({
                principal: createPrincipal(
                  ctx.authorized ? 'authorized-code' : 'code',
                  ctx.principalId,
                  adf.meta.get('adf_did') ?? adf.path,
                ),
                action: 'tool.call',
                target: method,
                decision: 'deny',
                code: 'CODE_METHOD_QUOTA',
                rule: 'code-method-quota',
              });
              throw new TrustError(
                'CODE_METHOD_QUOTA',
                `adf.${method}() may be called at most ${quota} times in one execution`,
                { hint: 'do the work in fewer calls, or across executions' },
              );
            }
          }
          return options.gate().call(method, args, {
            origin: ctx.authorized ? 'authorized-code' : 'code',
            parentAuthorized: ctx.authorized,
            principalId: ctx.principalId,
            signal: callSignal,
          });
        },
      })
      .finally(() => ended.abort());
  };
  const load = (ref: LambdaRef) => {
    const rec = adf.files.read(ref.file);
    if (!rec) throw new TrustError('ADF_NOT_FOUND', `lambda file "${ref.file}" does not exist`);
    return rec;
  };
  return {
    runCode: (code, ctx) =>
      exec(
        code,
        { kind: 'script' },
        ctx,
        ctx.language ?? 'javascript',
        ctx.language === 'typescript' ? 'sys_code.ts' : 'sys_code.js',
      ),
    runLambda: (ref, args, ctx) =>
      exec(
        load(ref).content.toString('utf8'),
        { kind: 'function', name: ref.fn, args },
        ctx,
        languageOf(ref.file),
        ref.file,
      ),
    runSystemLambda(ref, args, signal) {
      const rec = load(ref);
      return exec(
        rec.content.toString('utf8'),
        { kind: 'function', name: ref.fn, args },
        { authorized: rec.authorized, principalId: ref.file, ...(signal ? { signal } : {}) },
        languageOf(ref.file),
        ref.file,
      );
    },
  };
}
