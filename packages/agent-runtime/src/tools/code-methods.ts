import type { TrustErrorCode } from '@trust/core';
import { TrustError } from '@trust/core';
import type { ToolContext, ToolDefinition } from '../gate/tool-definition.js';
import type { ToolGate } from '../gate/tool-gate.js';
import { toolFlags } from '../gate/access-matrix.js';
import type { ModelMessage, ModelProvider } from '../providers/model-provider.js';
import { checkOptions } from '../options/strict-options.js';
import { modelInvokeToolDepsSchema } from '../options/tool-factory-options.js';

// Code-only `adf.*` methods. They are registered as tools so that every call goes through the
// gate (code_execution flags, restricted_methods, audit), but the gate refuses them to the model
// (CODE_ONLY_METHOD) and never advertises them.

/** The row role under which `adf.loop_inject` notes are stored in adf_loop. */
export const LOOP_NOTE_ROLE = 'runtime';

/** Longest note `adf.loop_inject` accepts, in characters. */
export const MAX_LOOP_NOTE_CHARS = 8000;

const refuse = (ctx: ToolContext, target: string, code: TrustErrorCode, message: string, hint: string): never => {
  ctx.audit.record({
    principal: ctx.principal,
    action: 'approval.resolve',
    target,
    decision: 'deny',
    code,
    rule: 'task-resolve',
  });
  throw new TrustError(code, message, { hint });
};

/**
 * `adf.task_resolve({ task_id, decision, feedback? })`: lets **authorized** code (a file the owner
 * marked authorized, e.g. a lambda that forwards approvals to another channel) approve or deny a
 * pending approval task once. Unauthorized code — everything the model wrote, including `sys_code`
 * — is refused (`REQUIRES_AUTHORIZED_CODE`), so an agent can never approve its own restricted calls.
 * Even authorized code may resolve only a `restricted` task the **loop** is waiting on, for a tool
 * that is not locked (`TASK_NOT_CODE_RESOLVABLE` otherwise): protection overrides, runs of an
 * authorized file and locked tools stay the owner's. It cannot change the arguments or approve "always".
 */
export function createTaskResolveTool(
  gate: () => ToolGate,
): ToolDefinition<{ task_id: string; decision: 'approve' | 'deny'; feedback?: string }> {
  return {
    name: 'task_resolve',
    description: 'Code only (authorized files): approve or deny one pending approval task of the loop.',
    inputSchema: {
      type: 'object',
      properties: {
        task_id: { type: 'string', description: 'The pending task id (adf_tasks.id).', maxLength: 100 },
        decision: { type: 'string', enum: ['approve', 'deny'], description: 'Approve once, or deny.' },
        feedback: { type: 'string', description: 'Shown to the model when denied.', maxLength: 2000 },
      },
      required: ['task_id', 'decision'],
      additionalProperties: false,
    },
    run(args, ctx) {
      if (!ctx.authorized) {
        return refuse(
          ctx,
          args.task_id,
          'REQUIRES_AUTHORIZED_CODE',
          'adf.task_resolve() needs authorized code: unauthorized code never resolves approvals',
          'only a file the owner marked authorized may resolve tasks',
        );
      }
      const task = ctx.adf.tasks.get(args.task_id);
      if (task?.status !== 'pending_approval') {
        return refuse(
          ctx,
          args.task_id,
          'TASK_NOT_PENDING',
          `task ${args.task_id} is not waiting for approval`,
          'list pending tasks with db_query on adf_tasks',
        );
      }
      const reason = task.approvalMeta?.['reason'];
      const locked = toolFlags(ctx.config, task.tool)?.locked === true;
      if (task.origin !== 'llm' || reason !== 'restricted' || locked) {
        const why =
          task.origin !== 'llm'
            ? `it was requested by ${task.origin}, not the loop`
            : reason !== 'restricted'
              ? `its reason is ${String(reason)} (only the owner decides those)`
              : `${task.tool} is locked`;
        return refuse(
          ctx,
          args.task_id,
          'TASK_NOT_CODE_RESOLVABLE',
          `task ${args.task_id} cannot be resolved by code: ${why}`,
          'the owner resolves it (studio, CLI or control API)',
        );
      }
      gate().resolveTask(
        args.task_id,
        { decision: args.decision, ...(args.feedback ? { feedback: args.feedback } : {}) },
        ctx.origin === 'authorized-code' ? 'authorized-code' : 'owner',
      );
      return { task_id: args.task_id, decision: args.decision };
    },
  };
}

/**
 * `adf.loop_inject({ text })`: appends a note to the agent's conversation. It is stored as a
 * `runtime` row (never a user row) and shown to the model as a framed runtime note naming the
 * code that wrote it — never in the owner's voice. A note written while the loop is running reaches
 * the model with the next tool results; one written while idle, with the next activation. It does
 * not start the loop.
 */
export const loopInjectTool: ToolDefinition<{ text: string }> = {
  name: 'loop_inject',
  description: 'Code only: add a context note to the conversation (framed as a runtime note, not the owner).',
  inputSchema: {
    type: 'object',
    properties: { text: { type: 'string', description: 'The note (not empty).', maxLength: MAX_LOOP_NOTE_CHARS } },
    required: ['text'],
    additionalProperties: false,
  },
  run(args, ctx) {
    if (args.text.trim() === '') throw new TrustError('LOOP_INJECT_EMPTY', 'loop_inject needs a non-empty text');
    const seq = ctx.adf.loop.append({
      role: LOOP_NOTE_ROLE,
      content: { kind: 'loop_inject', from: ctx.principal.id, origin: ctx.origin, text: args.text },
    });
    return { seq };
  },
};

/** Options of {@link createModelInvokeTool}. */
export interface ModelInvokeDeps {
  readonly provider: () => ModelProvider;
  /** Told after every invocation (the agent raises `on_llm_call` with it). */
  readonly onModelCall?: (call: {
    provider: string;
    model: string;
    ok: boolean;
    stopReason?: string;
    inputTokens?: number;
    outputTokens?: number;
  }) => void;
}

/** Largest `max_tokens` a code model call may ask for. */
export const MAX_MODEL_INVOKE_TOKENS = 8192;

interface ModelInvokeArgs {
  prompt?: string;
  messages?: Array<{ role: 'user' | 'assistant'; content: string }>;
  system?: string;
  max_tokens?: number;
  temperature?: number;
}

/**
 * `adf.model_invoke({ prompt | messages, system?, max_tokens?, temperature? })`: one call of the
 * agent's own model provider, **with no tools** and without the agent's history or instructions;
 * returns `{ text, model, stopReason, usage }`. It goes over the same provider (so the same egress
 * policy and key injection), is audited (`model.invoke` with token counts), raises `on_llm_call`,
 * and its `max_tokens` is capped by `model.max_tokens` and {@link MAX_MODEL_INVOKE_TOKENS}. The
 * code runner also caps invocations per execution.
 */
export function createModelInvokeTool(deps: ModelInvokeDeps): ToolDefinition<ModelInvokeArgs> {
  checkOptions('createModelInvokeTool', modelInvokeToolDepsSchema, deps);
  return {
    name: 'model_invoke',
    description: 'Code only: one model call with no tools; returns { text, model, stopReason, usage }.',
    inputSchema: {
      type: 'object',
      properties: {
        prompt: { type: 'string', description: 'A single user message (or use messages).', maxLength: 200_000 },
        messages: {
          type: 'array',
          description: 'A conversation of at most 100 text turns ending with a user turn.',
          items: {
            type: 'object',
            properties: {
              role: { type: 'string', enum: ['user', 'assistant'], description: 'Who speaks.' },
              content: { type: 'string', description: 'Text.', maxLength: 200_000 },
            },
            required: ['role', 'content'],
            additionalProperties: false,
          },
        },
        system: { type: 'string', description: 'System prompt for this call only.', maxLength: 50_000 },
        max_tokens: {
          type: 'integer',
          minimum: 1,
          maximum: MAX_MODEL_INVOKE_TOKENS,
          description: `Output token cap (<= ${MAX_MODEL_INVOKE_TOKENS}).`,
        },
        temperature: { type: 'number', minimum: 0, maximum: 2, description: 'Sampling temperature 0..2.' },
      },
      additionalProperties: false,
    },
    async run(args, ctx) {
      if ((args.prompt === undefined) === (args.messages === undefined))
        throw new TrustError('MODEL_INVOKE_INVALID', 'give exactly one of prompt or messages', {
          hint: 'adf.model_invoke({ prompt: "..." })',
        });
      const messages: ModelMessage[] =
        args.prompt !== undefined
          ? [{ role: 'user', content: args.prompt }]
          : args.messages!.map((m) => ({ role: m.role, content: m.content }));
      if (messages.length > 100) throw new TrustError('MODEL_INVOKE_INVALID', 'at most 100 messages');
      if (messages.length === 0 || messages[messages.length - 1]!.role !== 'user')
        throw new TrustError('MODEL_INVOKE_INVALID', 'messages must end with a user turn');
      if (args.max_tokens !== undefined && (args.max_tokens < 1 || args.max_tokens > MAX_MODEL_INVOKE_TOKENS))
        throw new TrustError('MODEL_INVOKE_INVALID', `max_tokens must be 1..${MAX_MODEL_INVOKE_TOKENS}`);
      if (args.temperature !== undefined && !(args.temperature >= 0 && args.temperature <= 2))
        throw new TrustError('MODEL_INVOKE_INVALID', 'temperature must be 0..2');
      const provider = deps.provider();
      const cap = Math.min(ctx.config.model.max_tokens ?? MAX_MODEL_INVOKE_TOKENS, MAX_MODEL_INVOKE_TOKENS);
      const maxTokens = Math.min(args.max_tokens ?? cap, cap);
      const target = `${provider.kind}:${provider.model}`;
      let response: Awaited<ReturnType<ModelProvider['createMessage']>>;
      try {
        response = await provider.createMessage({
          messages,
          tools: [],
          maxTokens,
          signal: ctx.signal,
          ...(args.system !== undefined ? { system: args.system } : {}),
          ...(args.temperature !== undefined ? { temperature: args.temperature } : {}),
        });
      } catch (e) {
        ctx.audit.record({
          principal: ctx.principal,
          action: 'model.invoke',
          target,
          decision: 'deny',
          code: e instanceof TrustError ? e.code : 'PROVIDER_ERROR',
          rule: 'provider',
        });
        deps.onModelCall?.({ provider: provider.kind, model: provider.model, ok: false });
        throw e;
      }
      const usage = { inputTokens: response.usage.inputTokens, outputTokens: response.usage.outputTokens };
      ctx.audit.record({
        principal: ctx.principal,
        action: 'model.invoke',
        target,
        decision: 'allow',
        details: { ...usage, maxTokens },
      });
      deps.onModelCall?.({
        provider: provider.kind,
        model: response.model,
        ok: true,
        stopReason: response.stopReason,
        ...usage,
      });
      const text = response.content
        .filter((b) => b.type === 'text')
        .map((b) => (b as { text: string }).text)
        .join('');
      return { text, model: response.model, stopReason: response.stopReason, usage };
    },
  };
}
