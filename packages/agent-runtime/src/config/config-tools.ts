import { TrustError, deniedError } from '@trust/core';
import type { ToolDefinition } from '../gate/tool-definition.js';
import type { AgentConfig } from './agent-config-schema.js';
import { planConfigUpdate, type ConfigUpdateRequest } from './config-update.js';
import { redactConfig } from './redact-config.js';

/**
 * `sys_update_config`: the agent changes its own config by dot path. Hard denials (owner-only
 * segments, guard paths, weakening declarations, invalid results) never reach a human; a locked
 * field becomes a one-time owner override that is audited and never persisted as a widening
 * (`locked_fields` and lock flags are untouched). Authorized callers get the override directly,
 * still audited.
 *
 * @example
 * await gate.call('sys_update_config', { path: 'tools.fs_delete.enabled', value: true }, { origin: 'llm' });
 */
export const sysUpdateConfigTool: ToolDefinition<
  ConfigUpdateRequest,
  { ok: true; path: string; override: boolean; note?: string }
> = {
  name: 'sys_update_config',
  description: 'Change one field of your own config by dot path, e.g. {"path":"tools.fs_delete.enabled","value":true}.',
  inputSchema: {
    type: 'object',
    properties: {
      path: { type: 'string', maxLength: 300 },
      value: {},
      op: { type: 'string', enum: ['set', 'append', 'remove'] },
    },
    required: ['path'],
    additionalProperties: false,
  },
  precheck(args, adf) {
    const plan = planConfigUpdate(adf.config(), args);
    return plan.kind === 'deny' ? plan.decision : undefined;
  },
  async run(args, ctx) {
    const plan = planConfigUpdate(ctx.adf.config(), args);
    const record = (
      decision: 'allow' | 'deny',
      extra: { code?: string; rule?: string; details?: Record<string, unknown> } = {},
    ) =>
      ctx.audit.record({
        principal: ctx.principal,
        action: 'config.update',
        target: String(args.path),
        decision,
        ...extra,
      });
    if (plan.kind === 'deny') {
      record('deny', { code: plan.decision.code, ...(plan.decision.rule ? { rule: plan.decision.rule } : {}) });
      throw deniedError(plan.decision);
    }
    let override = false;
    if (plan.kind === 'needs-override') {
      const granted = await ctx.requestOverride({ target: `config:${plan.path}`, decision: plan.decision });
      if (!granted) {
        record('deny', { code: plan.decision.code, rule: 'locked-field' });
        throw deniedError(plan.decision);
      }
      override = true;
    }
    // Re-plan against the current config inside one transaction, so a concurrent change between
    // approval and apply is not lost and the result is re-validated; on any error nothing is written.
    ctx.adf.transaction(() => {
      const again = planConfigUpdate(ctx.adf.config(), args);
      if (again.kind === 'deny') throw deniedError(again.decision);
      ctx.adf.setConfig(again.next);
    });
    record('allow', {
      rule: override ? 'one-time-override' : 'config-update',
      ...(override ? { details: { override: true } } : {}),
    });
    return override
      ? {
          ok: true,
          path: plan.path,
          override,
          note: '⚠ protection override: applied once with owner approval; the lock stays in place',
        }
      : { ok: true, path: plan.path, override };
  },
};

/**
 * `sys_get_config`: the agent reads its config, with secrets shown as `__redacted__`.
 *
 * @example
 * await gate.call('sys_get_config', { section: 'limits' }, { origin: 'llm' });
 */
export const sysGetConfigTool: ToolDefinition<{ section?: string }, unknown> = {
  name: 'sys_get_config',
  description: 'Read your own config (secrets redacted). Optional "section", e.g. "limits" or "tools".',
  inputSchema: {
    type: 'object',
    properties: { section: { type: 'string', maxLength: 100 } },
    additionalProperties: false,
  },
  run(args, ctx) {
    const redacted = redactConfig(ctx.adf.config());
    if (args.section === undefined) return redacted;
    if (!Object.hasOwn(redacted, args.section))
      throw new TrustError('CONFIG_UNKNOWN_KEY', `unknown config section "${args.section}"`, {
        hint: `valid sections: ${Object.keys(redacted).join(', ')}`,
      });
    return redacted[args.section as keyof AgentConfig];
  },
};
