import { parseMcpToolName } from './mcp-name.js';
import { allow, deny, type Allow, type Deny } from '@trust/core';
import type { AgentConfig } from '../config/agent-config-schema.js';
import { CODE_EXECUTION_FLAGS } from '../config/agent-config-schema.js';
import { effectiveToolDeclarations } from '../config/agent-config.js';
import { CODE_EXCLUDED_TOOLS } from '../config/built-in-tools.js';
import type { ToolOrigin } from './tool-definition.js';

/** The flags the matrix reads. */
export interface ToolFlags {
  readonly enabled: boolean;
  readonly visible: boolean;
  readonly restricted: boolean;
  readonly locked: boolean;
}

/** What the gate does with a call: run it, ask the owner first, or refuse. */
export type ToolAccess =
  | { readonly kind: 'run'; readonly decision: Allow }
  | { readonly kind: 'approve'; readonly decision: Allow }
  | { readonly kind: 'deny'; readonly decision: Deny };

/** Tools refused to code besides say/ask: they would desynchronise the loop. */
const CODE_REFUSED = ['loop_compact', 'loop_clear'];
const isCode = (o: ToolOrigin) => o === 'code' || o === 'authorized-code';
const privileged = (o: ToolOrigin) => o === 'authorized-code' || o === 'owner' || o === 'system';

/**
 * The access matrix. `visible` is never read here: it only decides what the model is shown.
 *
 * | enabled | restricted | llm     | authorized code / owner / system | code                     |
 * |---------|------------|---------|----------------------------------|--------------------------|
 * | false   | false      | off     | off                              | off                      |
 * | false   | true       | off     | free                             | REQUIRES_AUTHORIZED_CODE |
 * | true    | false      | free    | free                             | free                     |
 * | true    | true       | approve | free                             | REQUIRES_AUTHORIZED_CODE |
 *
 * `say`/`ask` (and loop_compact/loop_clear) are refused to code whatever the flags.
 *
 * @example
 * evaluateToolAccess('fs_write', { enabled: true, visible: false, restricted: true, locked: false }, 'llm').kind; //
 * 'approve'
 */
export function evaluateToolAccess(name: string, flags: ToolFlags | undefined, origin: ToolOrigin): ToolAccess {
  if (isCode(origin) && (CODE_EXCLUDED_TOOLS.includes(name) || CODE_REFUSED.includes(name))) {
    return {
      kind: 'deny',
      decision: deny('EXCLUDED_TOOL', `${name} cannot be called from code`, { rule: 'code-excluded' }),
    };
  }
  if (flags === undefined) {
    return {
      kind: 'deny',
      decision: deny('TOOL_NOT_DECLARED', `tool "${name}" is not declared for this agent`, {
        rule: 'declared',
        hint: `the owner can add { "name": "${name}", "enabled": true } to tools`,
      }),
    };
  }
  if (flags.restricted && origin === 'code') {
    return {
      kind: 'deny',
      decision: deny('REQUIRES_AUTHORIZED_CODE', `${name} is restricted; only authorized code may call it`, {
        rule: 'restricted',
        hint: 'the owner can authorize the calling file',
      }),
    };
  }
  if (!flags.enabled) {
    if (flags.restricted && privileged(origin)) return { kind: 'run', decision: allow('restricted-authorized') };
    return {
      kind: 'deny',
      decision: deny('TOOL_DISABLED', `tool "${name}" is disabled`, {
        rule: 'enabled',
        hint: `set tools.${name}.enabled to true`,
      }),
    };
  }
  if (flags.restricted && origin === 'llm') return { kind: 'approve', decision: allow('restricted-hil') };
  return { kind: 'run', decision: allow(flags.restricted ? 'restricted-authorized' : 'enabled') };
}

/** Methods only code calls (`adf.get_identity()` …), gated by `code_execution` flags and `restricted_methods`. */
export const CODE_METHODS: readonly string[] = CODE_EXECUTION_FLAGS;

/**
 * Code methods that are never tools of the loop: the model can neither see nor call them, even if
 * a declaration of the same name exists (`sys_lambda` is the one code method that is also a tool).
 */
export const CODE_ONLY_METHODS: readonly string[] = Object.freeze(
  CODE_EXECUTION_FLAGS.filter((m) => m !== 'sys_lambda'),
);

/**
 * Gates a code-only method: its `code_execution` flag must be on, and a method in
 * `restricted_methods` needs authorized code. Returns undefined when `name` is not a code method.
 */
export function evaluateCodeMethod(name: string, config: AgentConfig, origin: ToolOrigin): ToolAccess | undefined {
  if (!CODE_METHODS.includes(name)) return undefined;
  if (origin === 'llm') return undefined;
  const flag = (config.code_execution as Record<string, unknown>)[name];
  if (flag !== true)
    return {
      kind: 'deny',
      decision: deny('CODE_METHOD_DISABLED', `adf.${name}() is disabled by code_execution.${name}`, {
        rule: 'code-execution',
      }),
    };
  if (origin === 'code' && config.code_execution.restricted_methods.includes(name as never)) {
    return {
      kind: 'deny',
      decision: deny(
        'REQUIRES_AUTHORIZED_CODE',
        `adf.${name}() is in restricted_methods; only authorized code may call it`,
        { rule: 'restricted-methods' },
      ),
    };
  }
  return { kind: 'run', decision: allow('code-execution') };
}

/**
 * The model's call of a code-only method that the owner declared as a tool anyway: refused
 * (`CODE_ONLY_METHOD`). Undefined for every other call (an undeclared one is TOOL_NOT_DECLARED).
 */
export function evaluateCodeOnlyForModel(
  name: string,
  flags: ToolFlags | undefined,
  origin: ToolOrigin,
): ToolAccess | undefined {
  if (origin !== 'llm' || flags === undefined || !CODE_ONLY_METHODS.includes(name)) return undefined;
  return {
    kind: 'deny',
    decision: deny('CODE_ONLY_METHOD', `${name} is an adf.${name}() method for agent code, not a tool of the model`, {
      rule: 'code-only',
      hint: `call it from code: await adf.${name}({...})`,
    }),
  };
}

/**
 * The flags of `name` in `config`: its effective declaration (first wins, sticky
 * restricted/locked), or for an undeclared MCP tool its server's defaults. The server is the one
 * that registered the tool (`registeredBy`, from the registry), and the one its name decodes to
 * exactly (`parseMcpToolName`); never a server whose name is merely a prefix. Either being
 * restricted restricts the tool (fail closed).
 */
export function toolFlags(config: AgentConfig, name: string, registeredBy?: string): ToolFlags | undefined {
  const d = effectiveToolDeclarations(config).get(name);
  const names = new Set<string>();
  if (registeredBy !== undefined) names.add(registeredBy);
  const decoded = parseMcpToolName(name)?.server;
  if (decoded !== undefined) names.add(decoded);
  const servers = config.mcp.servers.filter((s) => names.has(s.name));
  const restricted = servers.some((s) => s.restricted === true);
  // A restricted server makes every one of its tools restricted, whatever the declaration says.
  if (d) return restricted ? { ...d, restricted: true } : d;
  if (servers.length > 0) return { enabled: true, visible: true, restricted, locked: false };
  return undefined;
}
