import { randomUUID } from 'node:crypto';
import {
  TrustError,
  checkJsonValue,
  createPrincipal,
  deniedError,
  deny,
  type AuditSink,
  type Decision,
  type Deny,
  type Principal,
  type PrincipalKind,
} from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { AdfTask } from '../adf/adf-tasks.js';
import type { AgentConfig } from '../config/agent-config-schema.js';
import {
  CODE_ONLY_METHODS,
  evaluateCodeMethod,
  evaluateCodeOnlyForModel,
  evaluateToolAccess,
  toolFlags,
  type ToolAccess,
  type ToolFlags,
} from './access-matrix.js';
import { createApprovalDesk, type ApprovalResponse, type Approver } from './approvals.js';
import { validateJsonSchema } from './json-schema.js';
import { toolGateOptionsSchema } from './tool-gate-options.js';
import { checkOptions } from '../options/strict-options.js';
import type { ToolContext, ToolDefinition, ToolOrigin, ToolRegistry } from './tool-definition.js';

/** Options for one call. Everything that confers authority is here, never in `args`. */
export interface ToolCallOptions {
  readonly origin: ToolOrigin;
  readonly signal?: AbortSignal;
  /**
   * Whether the execution that issued this call was itself authorized. `authorized-code` with
   * `parentAuthorized: false` is downgraded to `code`: authorization never flows into a child
   * that an unauthorized parent started.
   */
  readonly parentAuthorized?: boolean;
  /** Principal id for the audit trail (e.g. the code file or loop id). */
  readonly principalId?: string;
}

/** What the loop shows the model. */
export interface VisibleTool {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
}

export interface ToolGate {
  /** Runs one tool call through the matrix, approvals and audit. Throws a TrustError on denial. */
  call(name: string, args: unknown, options: ToolCallOptions): Promise<unknown>;
  /** The matrix decision alone, without running anything (for shell preflight and UIs). */
  check(name: string, origin: ToolOrigin): ToolAccess;
  /** Registered tools that are enabled and visible. */
  visibleTools(): VisibleTool[];
  /** Resolves a pending approval (control API, authorized code). */
  resolveTask(taskId: string, response: ApprovalResponse, by: ToolOrigin): void;
  pendingApprovals(): AdfTask[];
}

export interface ToolGateOptions {
  readonly adf: AdfFile;
  readonly registry: ToolRegistry;
  readonly approver?: Approver;
  /** Clock for approval deadlines (`approval_meta.expires_at`). */
  readonly clock?: () => Date;
  /** Defaults to `adf.audit`. */
  readonly audit?: AuditSink;
  /** Overrides `limits.approval_timeout_ms`. */
  readonly approvalTimeoutMs?: number;
  /** Agent id used in principals. */
  readonly agentId?: string;
}

const PRIVILEGED: readonly ToolOrigin[] = ['authorized-code', 'owner', 'system'];
const KIND: Record<ToolOrigin, PrincipalKind> = {
  llm: 'llm',
  code: 'code',
  'authorized-code': 'authorized-code',
  owner: 'owner',
  system: 'owner',
};

/**
 * Creates the one gate every tool call goes through. Order: origin downgrade, reserved-argument
 * check, code-method flags, the access matrix, authorized-target rule, argument validation,
 * approval (LLM + restricted), run. Every decision is an audit event.
 *
 * @example
 * const gate = createToolGate({ adf, registry: createToolRegistry([sysGetConfigTool]) });
 * await gate.call('sys_get_config', {}, { origin: 'llm' });
 */
export function createToolGate(input: ToolGateOptions): ToolGate {
  const options = checkOptions('createToolGate', toolGateOptionsSchema, input);
  const { adf, registry } = options;
  const audit = options.audit ?? adf.audit;
  const agent = options.agentId ?? adf.meta.get('adf_did') ?? adf.path;
  const principalFor = (o: ToolOrigin, id?: string): Principal =>
    createPrincipal(KIND[o], id ?? (o === 'system' ? 'runtime' : o), agent);
  const desk = createApprovalDesk(adf, audit, (o) => principalFor(o), options.approver, options.clock);
  const timeout = (c: AgentConfig) => options.approvalTimeoutMs ?? c.limits.approval_timeout_ms;
  // The signal of calls made without one: never aborted (creating a controller per call is costly).
  const idle = new AbortController().signal;
  // Flags per config object: configs are frozen and replaced on change, so identity is a safe key.
  let flagsFor: { config: AgentConfig; map: Map<string, ToolFlags | undefined> } | undefined;
  const flagsOf = (config: AgentConfig, name: string): ToolFlags | undefined => {
    if (flagsFor?.config !== config) flagsFor = { config, map: new Map() };
    if (!flagsFor.map.has(name)) flagsFor.map.set(name, toolFlags(config, name, registry.get(name)?.mcpServer));
    return flagsFor.map.get(name);
  };

  const refuse = (principal: Principal, name: string, decision: Deny, details?: Record<string, unknown>): never => {
    audit.record({
      principal,
      action: 'tool.call',
      target: name,
      decision: 'deny',
      code: decision.code,
      ...(decision.rule ? { rule: decision.rule } : {}),
      ...(details ? { details } : {}),
    });
    throw deniedError(decision);
  };

  function decide(name: string, origin: ToolOrigin, config: AgentConfig): ToolAccess {
    const method = evaluateCodeMethod(name, config, origin);
    if (method?.kind === 'deny') return method;
    const flags = flagsOf(config, name);
    if (method && flags === undefined) return method; // a code-only method, not a declared tool
    return evaluateCodeOnlyForModel(name, flags, origin) ?? evaluateToolAccess(name, flags, origin);
  }

  async function call(name: string, rawArgs: unknown, opts: ToolCallOptions): Promise<unknown> {
    let origin = opts.origin;
    if (origin === 'authorized-code' && opts.parentAuthorized === false) origin = 'code';
    const principal = principalFor(origin, opts.principalId);
    const config = adf.config();
    const args = rawArgs === undefined ? {} : rawArgs;
    // Nesting is capped (64) before anything recursive (validation, storing the task, the
    // sandbox) sees the arguments; the walk is iterative.
    const shape = checkJsonValue(args);
    if (!shape.allow) refuse(principal, name, shape);
    if (args !== null && typeof args === 'object' && !Array.isArray(args)) {
      const reserved = Object.keys(args).filter((k) => k.startsWith('_'));
      if (reserved.length > 0) {
        refuse(
          principal,
          name,
          deny(
            'TOOL_ARGS_RESERVED',
            `argument(s) ${reserved.join(', ')} are reserved; authority is never taken from arguments`,
            { rule: 'out-of-band-authority', hint: 'remove underscore-prefixed arguments' },
          ),
        );
      }
    }
    let access = decide(name, origin, config);
    if (access.kind === 'deny') return refuse(principal, name, access.decision);
    const tool = registry.get(name);
    if (!tool)
      return refuse(
        principal,
        name,
        deny('TOOL_NOT_IMPLEMENTED', `tool "${name}" is declared but no implementation is registered`, {
          rule: 'registry',
        }),
      );
    let detail: string | undefined;
    let reason: 'restricted' | 'authorized-target' = 'restricted';
    const target = tool.authorizedTarget?.(args as never);
    if (target !== undefined && adf.files.isAuthorized(target)) {
      if (origin === 'code')
        return refuse(
          principal,
          name,
          deny('REQUIRES_AUTHORIZED_CALLER', `${target} is authorized; unauthorized code cannot call it`, {
            rule: 'authorized-target',
          }),
        );
      if (origin === 'llm') {
        if (access.kind === 'run') reason = 'authorized-target';
        access = { kind: 'approve', decision: access.decision };
        detail = `runs authorized file ${target}`;
      }
    }
    let finalArgs = validate(tool, args, principal, name);
    const pre = tool.precheck?.(finalArgs, adf);
    if (pre) return refuse(principal, name, pre);
    if (access.kind === 'approve') {
      const flags = flagsOf(config, name);
      const { outcome, task } = await desk.wait({
        tool: name,
        args: finalArgs,
        origin,
        reason,
        locked: flags?.locked === true,
        timeoutMs: timeout(config),
        ...(detail ? { detail } : {}),
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      if (outcome.kind === 'aborted')
        throw new TrustError('TOOL_CALL_ABORTED', `${name} was aborted while waiting for approval`);
      if (outcome.kind === 'denied') {
        const code = outcome.by === 'timeout' ? 'TOOL_APPROVAL_TIMEOUT' : 'TOOL_APPROVAL_DENIED';
        throw new TrustError(code, `${name} was not approved: ${outcome.feedback}`, { hint: outcome.feedback });
      }
      finalArgs = validate(tool, outcome.args, principal, name);
      const again = tool.precheck?.(finalArgs, adf);
      if (again) return refuse(principal, name, again);
      if (outcome.always) persistAlwaysApprove(adf, name, audit, principalFor('owner'));
      return runTool(tool, finalArgs, origin, principal, opts, config, task.id);
    }
    audit.record({
      principal,
      action: 'tool.call',
      target: name,
      decision: 'allow',
      ...(access.decision.rule ? { rule: access.decision.rule } : {}),
    });
    return runTool(tool, finalArgs, origin, principal, opts, config);
  }

  function validate(tool: ToolDefinition, args: unknown, principal: Principal, name: string): Record<string, unknown> {
    if (
      args !== null &&
      typeof args === 'object' &&
      !Array.isArray(args) &&
      Object.keys(args).some((k) => k.startsWith('_'))
    ) {
      refuse(
        principal,
        name,
        deny('TOOL_ARGS_RESERVED', 'underscore-prefixed arguments are reserved', { rule: 'out-of-band-authority' }),
      );
    }
    const problems = validateJsonSchema(tool.inputSchema, args);
    if (problems.length > 0) {
      audit.record({
        principal,
        action: 'tool.call',
        target: name,
        decision: 'deny',
        code: 'TOOL_ARGS_INVALID',
        rule: 'input-schema',
      });
      throw new TrustError(
        'TOOL_ARGS_INVALID',
        `invalid arguments for ${name}: ${problems.map((p) => p.message).join('; ')}`,
        { problems },
      );
    }
    return args as Record<string, unknown>;
  }

  async function runTool(
    tool: ToolDefinition,
    args: Record<string, unknown>,
    origin: ToolOrigin,
    principal: Principal,
    opts: ToolCallOptions,
    config: AgentConfig,
    taskId?: string,
  ): Promise<unknown> {
    const signal = opts.signal ?? idle;
    const authorized = PRIVILEGED.includes(origin);
    const ctx: ToolContext = {
      adf,
      origin,
      authorized,
      principal,
      config,
      signal,
      callId: randomUUID(),
      audit,
      async requestOverride({ target, decision }) {
        if (authorized) {
          audit.record({
            principal,
            action: 'override.use',
            target,
            decision: 'allow',
            rule: decision.rule ?? 'protection',
            code: decision.code,
          });
          return true;
        }
        const { outcome } = await desk.wait({
          tool: tool.name,
          args,
          origin,
          reason: 'protection',
          locked: true,
          detail: `${decision.reason}`,
          timeoutMs: timeout(config),
          signal,
        });
        const granted = outcome.kind === 'approved';
        audit.record({
          principal,
          action: 'override.use',
          target,
          decision: granted ? 'allow' : 'deny',
          rule: decision.rule ?? 'protection',
          code: decision.code,
          details: { oneTime: true },
        });
        return granted;
      },
    };
    try {
      const result = await tool.run(args, ctx);
      if (taskId) adf.tasks.transition(taskId, 'running', 'completed', { result: safeJson(result) });
      return result;
    } catch (e) {
      if (taskId)
        adf.tasks.transition(taskId, 'running', 'failed', { error: e instanceof Error ? e.message : String(e) });
      throw e;
    }
  }

  return {
    call,
    check: (name, origin) => decide(name, origin, adf.config()),
    visibleTools() {
      const config = adf.config();
      return registry
        .list()
        .filter((t) => {
          const f = flagsOf(config, t.name);
          return f?.enabled === true && f.visible && !CODE_ONLY_METHODS.includes(t.name);
        })
        .map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema }));
    },
    resolveTask: (id, response, by) => desk.resolve(id, response, by),
    pendingApprovals: () => desk.pending(),
  };
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    return '"[unserialisable]"';
  }
}

/** "Always approve": the owner persists enabled:true, restricted:false on every declaration of the tool. */
function persistAlwaysApprove(adf: AdfFile, name: string, audit: AuditSink, principal: Principal): Decision {
  const config = adf.config();
  const tools = config.tools.map((t) => (t.name === name ? { ...t, enabled: true, restricted: false } : t));
  adf.setConfig({ ...config, tools });
  audit.record({
    principal,
    action: 'config.update',
    target: `tools.${name}`,
    decision: 'allow',
    rule: 'always-approve',
  });
  return { allow: true };
}
