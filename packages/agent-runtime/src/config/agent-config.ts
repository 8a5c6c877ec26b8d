import { TrustError, type Problem } from '@trust/core';
import type { z } from 'zod';
import { agentConfigSchema, type AgentConfig, type ToolDeclaration } from './agent-config-schema.js';
import { BUILT_IN_TOOLS } from './built-in-tools.js';

/**
 * Validates a config document once, at the boundary, and reports every problem at once
 * (code `ADF_CONFIG_INVALID`, one `problems[]` entry per issue with its path).
 *
 * @example
 * const config = parseAgentConfig({ v: 1, name: 'helper' });
 * config.messaging.receive; // false
 */
export function parseAgentConfig(doc: unknown): AgentConfig {
  const result = checkAgentConfig(doc);
  if (result.ok) return result.config;
  const lines = result.problems.map((p) => `${p.path || '(root)'}: ${p.message}`).join('; ');
  throw new TrustError(
    'ADF_CONFIG_INVALID',
    `agent config is invalid (${result.problems.length} problem(s)): ${lines}`,
    {
      problems: result.problems,
      hint: 'fix each listed path; a minimal valid config is { "v": 1 }',
    },
  );
}

/** Like {@link parseAgentConfig} but returns the problems instead of throwing. */
export function checkAgentConfig(doc: unknown): { ok: true; config: AgentConfig } | { ok: false; problems: Problem[] } {
  const r = agentConfigSchema.safeParse(doc);
  if (r.success) return { ok: true, config: deepFreeze(r.data) };
  return { ok: false, problems: r.error.issues.map(toProblem) };
}

function toProblem(issue: z.core.$ZodIssue): Problem {
  const path = issue.path.map(String).join('.');
  const hint =
    issue.code === 'unrecognized_keys'
      ? `remove ${issue.keys.join(', ')}; the schema is strict`
      : path === 'v'
        ? 'set "v": 1'
        : undefined;
  return hint === undefined
    ? { code: 'ADF_CONFIG_INVALID', message: issue.message, path, severity: 'error' }
    : { code: 'ADF_CONFIG_INVALID', message: issue.message, path, hint, severity: 'error' };
}

/**
 * The default config, per the default security posture: autonomous off, messaging receive off,
 * `adf_shell`/`ws_*` disabled and locked, `sys_fetch` enabled (confined by egress), every built-in
 * tool declared with its default flags.
 *
 * @example
 * const cfg = defaultAgentConfig({ name: 'helper' });
 */
export function defaultAgentConfig(overrides: { name?: string; id?: string } = {}): AgentConfig {
  return parseAgentConfig({
    v: 1,
    ...overrides,
    tools: BUILT_IN_TOOLS.map((b) => {
      const d: Record<string, unknown> = { name: b.name, enabled: b.enabled, visible: b.visible };
      if (b.restricted) d['restricted'] = true;
      if (b.locked) d['locked'] = true;
      return d;
    }),
  });
}

/**
 * The effective declaration of each tool: first declaration wins for `enabled`/`visible`, but a
 * later duplicate can only ever add `restricted`/`locked`, never clear them.
 */
export function effectiveToolDeclarations(config: AgentConfig): ReadonlyMap<string, Required<ToolDeclaration>> {
  const out = new Map<string, Required<ToolDeclaration>>();
  for (const d of config.tools) {
    const prev = out.get(d.name);
    if (prev === undefined) {
      out.set(d.name, {
        name: d.name,
        enabled: d.enabled,
        visible: d.visible,
        restricted: d.restricted === true,
        locked: d.locked === true,
      });
    } else {
      out.set(d.name, {
        ...prev,
        restricted: prev.restricted || d.restricted === true,
        locked: prev.locked || d.locked === true,
      });
    }
  }
  return out;
}

/** Recursively freezes a plain value. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value as object)) deepFreeze(v);
  }
  return value;
}

/** A structured deep copy of a config, unfrozen, for planning changes. */
export function cloneConfig(config: AgentConfig): Record<string, unknown> {
  return structuredClone(config) as unknown as Record<string, unknown>;
}
