import type { TrustErrorCode } from '@trust/core';
import { allow, deny, type Decision, type Deny } from '@trust/core';
import type { AgentConfig } from './agent-config-schema.js';
import { checkAgentConfig, cloneConfig, effectiveToolDeclarations } from './agent-config.js';
import { BUILT_IN_TOOLS } from './built-in-tools.js';

/** Path segments that are owner-only anywhere they appear. */
export const FORBIDDEN_SEGMENTS: readonly string[] = Object.freeze([
  'locked',
  'locked_fields',
  'restricted',
  'restricted_methods',
]);
/** Top-level keys the agent can never set. */
export const DENIED_TOP_LEVEL: readonly string[] = Object.freeze(['v', 'id', 'metadata', 'locked_fields']);
/**
 * Guard paths: the switches that decide what needs approval. Hard-denied, no approval path.
 * A path equal to one of these or below it is a guard path; so is a wholesale set of `security`.
 */
export const GUARD_PATHS: readonly string[] = Object.freeze([
  'security.allow_unsigned',
  'security.require_middleware_authorization',
  'security.middleware',
  'security.fetch_middleware',
]);
/**
 * Locks defined in code, so they hold for every agent whatever its stored `locked_fields` say.
 * `triggers`: a system trigger runs its lambda with that file's authorization, so letting the
 * model add one would let it run authorized code without the approval `sys_lambda` needs.
 */
export const DEFAULT_LOCKED_PATHS: readonly string[] = Object.freeze([
  'security.allow_local_fetch',
  'stream_bind',
  'security.table_protections',
  'triggers',
]);

/** One `sys_update_config` request. */
export interface ConfigUpdateRequest {
  /** Dot path; array items in `tools` and `mcp.servers` may be named: `tools.fs_read.enabled`. */
  readonly path: string;
  readonly value?: unknown;
  /** `set` (default) replaces, `append` pushes onto an array, `remove` deletes the key or named item. */
  readonly op?: 'set' | 'append' | 'remove';
}

/** The outcome of planning an update: refused, applicable, or applicable only with an owner override. */
export type ConfigUpdatePlan =
  | { readonly kind: 'deny'; readonly decision: Deny }
  | { readonly kind: 'apply'; readonly next: AgentConfig; readonly path: string }
  | { readonly kind: 'needs-override'; readonly next: AgentConfig; readonly path: string; readonly decision: Deny };

const isUnder = (path: string, prefix: string) => path === prefix || path.startsWith(prefix + '.');

/**
 * Plans one config change, in a fixed order that fails closed: forbidden segments, denied keys,
 * guard paths, unknown keys, name resolution, locks, declaration integrity, re-validation.
 * Pure: it returns the next config and never writes.
 *
 * @example
 * const plan = planConfigUpdate(cfg, { path: 'tools.fs_delete.enabled', value: true });
 * if (plan.kind === 'apply') adf.setConfig(plan.next);
 */
export function planConfigUpdate(config: AgentConfig, request: ConfigUpdateRequest): ConfigUpdatePlan {
  const op = request.op ?? 'set';
  const raw = String(request.path ?? '').trim();
  const segments = raw.split('.');
  if (raw === '' || segments.some((s) => s === ''))
    return refuse(
      'CONFIG_PATH_INVALID',
      `config path "${raw}" is not a dot path`,
      'write e.g. "tools.fs_read.enabled"',
    );
  const bad = segments.find((s) => FORBIDDEN_SEGMENTS.includes(s));
  if (bad !== undefined)
    return refuse(
      'CONFIG_PATH_FORBIDDEN',
      `"${bad}" is owner-only and cannot be changed by the agent`,
      'ask the owner to change it in the owner console',
      'self-protection',
    );
  const top = segments[0] as string;
  if (DENIED_TOP_LEVEL.includes(top))
    return refuse('CONFIG_PATH_FORBIDDEN', `"${top}" cannot be changed by the agent`, 'ask the owner', 'denied-key');
  if (raw === 'security' || GUARD_PATHS.some((g) => isUnder(raw, g))) {
    return refuse(
      'CONFIG_GUARD_PATH',
      `"${raw}" is a guard path and is owner-only; there is no approval path`,
      'the owner changes it in the owner console',
      'guard-path',
    );
  }
  if (!Object.hasOwn(config, top))
    return refuse(
      'CONFIG_UNKNOWN_KEY',
      `unknown config section "${top}"`,
      `valid sections: ${Object.keys(config).join(', ')}`,
    );

  const draft = cloneConfig(config);
  const resolved = resolvePath(draft, segments);
  if (!resolved.ok)
    return refuse('CONFIG_PATH_INVALID', resolved.reason, 'use an existing path such as "limits.execution_timeout_ms"');
  const { parent, key, canonical } = resolved;
  const current = (parent as Record<string, unknown>)[key];
  const value = coerce(request.value, current);
  if (op === 'set') (parent as Record<string, unknown>)[key] = value;
  else if (op === 'append') {
    if (!Array.isArray(current)) return refuse('CONFIG_PATH_INVALID', `"${raw}" is not a list`, 'use op "set"');
    current.push(value);
  } else if (Array.isArray(parent)) parent.splice(Number(key), 1);
  else delete (parent as Record<string, unknown>)[key];

  const integrity = checkDeclarationIntegrity(config, draft);
  if (!integrity.allow) return { kind: 'deny', decision: integrity };
  const checked = checkAgentConfig(draft);
  if (!checked.ok) {
    const msg = checked.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    return refuse(
      'CONFIG_INVALID_AFTER_UPDATE',
      `the change would make the config invalid (${msg}); nothing was changed`,
      'send a value of the right type',
    );
  }
  const lock = findLock(config, draft, canonical);
  if (lock !== undefined) {
    return {
      kind: 'needs-override',
      next: checked.config,
      path: canonical,
      decision: deny(
        'CONFIG_LOCKED',
        `"${canonical}" is locked (${lock}); changing it needs a one-time owner approval`,
        { rule: 'locked-field', hint: 'the owner can approve this once; it is not remembered' },
      ),
    };
  }
  return { kind: 'apply', next: checked.config, path: canonical };
}

function refuse(code: TrustErrorCode, reason: string, hint: string, rule = 'config-update'): ConfigUpdatePlan {
  return { kind: 'deny', decision: deny(code, reason, { rule, hint }) };
}

type Resolved = { ok: true; parent: object; key: string; canonical: string } | { ok: false; reason: string };

/** Walks the draft, resolving named items of `tools` and `mcp.servers` to indexes. */
function resolvePath(root: Record<string, unknown>, segments: readonly string[]): Resolved {
  let node: unknown = root;
  const canonical: string[] = [];
  for (let i = 0; i < segments.length - 1; i++) {
    const seg = segments[i] as string;
    const next = step(node, seg);
    if (next === undefined || next.value === null || typeof next.value !== 'object')
      return { ok: false, reason: `path "${segments.slice(0, i + 1).join('.')}" does not exist` };
    canonical.push(next.name);
    node = next.value;
  }
  const last = segments[segments.length - 1] as string;
  if (Array.isArray(node)) {
    const idx = indexOf(node, last);
    if (idx < 0) return { ok: false, reason: `no item "${last}" in ${canonical.join('.')}` };
    return { ok: true, parent: node, key: String(idx), canonical: [...canonical, last].join('.') };
  }
  return { ok: true, parent: node as object, key: last, canonical: [...canonical, last].join('.') };
}

function step(node: unknown, seg: string): { value: unknown; name: string } | undefined {
  if (Array.isArray(node)) {
    const idx = indexOf(node, seg);
    if (idx < 0) return undefined;
    const item = node[idx] as { name?: unknown };
    return { value: item, name: typeof item?.name === 'string' ? item.name : seg };
  }
  if (node !== null && typeof node === 'object' && Object.hasOwn(node, seg))
    return { value: (node as Record<string, unknown>)[seg], name: seg };
  return undefined;
}

/** Named items resolve first-wins, like declarations; a bare integer is an index. */
function indexOf(list: unknown[], seg: string): number {
  const byName = list.findIndex((x) => x !== null && typeof x === 'object' && (x as { name?: unknown }).name === seg);
  if (byName >= 0) return byName;
  return /^\d+$/.test(seg) && Number(seg) < list.length ? Number(seg) : -1;
}

/** Coerces stringly-typed model output: JSON containers, booleans, and numbers only where a number is. */
function coerce(value: unknown, current: unknown): unknown {
  if (typeof value !== 'string') return value;
  const t = value.trim();
  if ((t.startsWith('{') || t.startsWith('[')) && typeof current === 'object') {
    try {
      return JSON.parse(t);
    } catch {
      return value;
    }
  }
  if (typeof current === 'boolean' && (t === 'true' || t === 'false')) return t === 'true';
  if (typeof current === 'number' && /^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  return value;
}

/** No duplicate names, and no declaration may clear a restricted/locked flag the tool had. */
function checkDeclarationIntegrity(before: AgentConfig, draft: Record<string, unknown>): Decision {
  const tools = draft['tools'];
  if (!Array.isArray(tools)) return allow();
  const prev = effectiveToolDeclarations(before);
  const seen = new Set<string>();
  for (const d of tools as Array<Record<string, unknown>>) {
    const name = String(d?.['name']);
    if (seen.has(name))
      return deny('CONFIG_DUPLICATE_DECLARATION', `tool "${name}" is declared twice`, {
        rule: 'declaration-integrity',
        hint: 'change the existing declaration instead',
      });
    seen.add(name);
    const was = prev.get(name);
    const builtIn = BUILT_IN_TOOLS.find((b) => b.name === name);
    // Against the tool's current effective declaration; a tool not declared before is held to its built-in default.
    if ((was ? was.restricted : builtIn?.restricted) && d['restricted'] !== true) {
      return deny('CONFIG_DECLARATION_WEAKENED', `the change would clear "restricted" on tool "${name}"`, {
        rule: 'declaration-integrity',
        hint: 'only the owner can change restricted',
      });
    }
    if ((was ? was.locked : builtIn?.locked) && d['locked'] !== true) {
      return deny('CONFIG_DECLARATION_WEAKENED', `the change would clear "locked" on tool "${name}"`, {
        rule: 'declaration-integrity',
        hint: 'only the owner can change locked',
      });
    }
  }
  return allow();
}

/**
 * Returns why the change is locked, or undefined: a locked field on, above or below the path, or a
 * change to any declaration of a locked tool (however it is reached: by name, index or whole list).
 */
function findLock(config: AgentConfig, draft: Record<string, unknown>, path: string): string | undefined {
  for (const l of [...DEFAULT_LOCKED_PATHS, ...config.locked_fields]) {
    if (isUnder(path, l) || isUnder(l, path)) return `locked field "${l}"`;
  }
  const lockedTools = [...effectiveToolDeclarations(config).values()].filter((d) => d.locked).map((d) => d.name);
  const after = Array.isArray(draft['tools']) ? (draft['tools'] as Array<{ name?: unknown }>) : [];
  for (const name of lockedTools) {
    const before = JSON.stringify(config.tools.filter((t) => t.name === name));
    if (JSON.stringify(after.filter((t) => t?.name === name)) !== before) return `tool "${name}" is locked`;
  }
  return undefined;
}
