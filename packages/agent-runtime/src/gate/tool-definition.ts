import { TrustError, type AuditSink, type Deny, type Principal } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { AgentConfig } from '../config/agent-config-schema.js';

/** Who is calling a tool. Authorization is this value, carried per call, never an argument. */
export type ToolOrigin = 'llm' | 'code' | 'authorized-code' | 'owner' | 'system';

/** All origins, in a fixed order. */
export const TOOL_ORIGINS: readonly ToolOrigin[] = Object.freeze(['llm', 'code', 'authorized-code', 'owner', 'system']);

/** A JSON Schema (the subset the gate validates: type, properties, required, additionalProperties, items, enum). */
export type JsonSchema = Readonly<Record<string, unknown>>;

/** What a running tool gets. Nothing here is derived from the tool's arguments. */
export interface ToolContext {
  readonly adf: AdfFile;
  /** The effective origin of this call (after downgrades). */
  readonly origin: ToolOrigin;
  /** True for authorized code, the owner and the runtime itself. Tools use this to bypass protections. */
  readonly authorized: boolean;
  readonly principal: Principal;
  readonly config: AgentConfig;
  readonly signal: AbortSignal;
  readonly callId: string;
  readonly audit: AuditSink;
  /**
   * Asks for a one-time override of a protection (a locked config field, a read_only file).
   * Authorized callers get it at once (audited); the LLM loop and plain code get an owner approval
   * task. Resolves true when granted. Never persisted.
   */
  requestOverride(request: { target: string; decision: Deny }): Promise<boolean>;
}

/**
 * One tool. `run` receives validated arguments; the gate has already decided it may run.
 *
 * @example
 * const echo: ToolDefinition = { name: 'echo', description: 'Echo', inputSchema: { type: 'object' }, run: (a) => a };
 */
export interface ToolDefinition<A = Record<string, unknown>, R = unknown> {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchema;
  run(args: A, ctx: ToolContext): R | Promise<R>;
  /**
   * For tools that execute a VFS file (sys_lambda): the file path the call targets. When that file
   * is authorized, an LLM call needs approval and an unauthorized caller is refused.
   */
  authorizedTarget?(args: A): string | undefined;
  /**
   * A hard check that needs no human, run before any approval is requested, so an owner is never
   * asked to approve a call that would be refused anyway (sys_update_config on a guard path).
   */
  precheck?(args: A, adf: AdfFile): Deny | undefined;
  /**
   * For MCP tools: the configured server that registered the tool. The gate takes the server's
   * flags (e.g. `restricted`) from this server, never from a name prefix. Undefined: not an MCP tool.
   */
  readonly mcpServer?: string;
}

/** A name → definition registry, one per runtime instance. */
export interface ToolRegistry {
  register(tool: ToolDefinition<never, unknown>): void;
  /**
   * Removes `tool` if it is the one registered under its name (an MCP server's tool that its
   * server no longer lists). Returns whether it was removed; another tool of that name stays.
   */
  unregister?(tool: ToolDefinition<never, unknown>): boolean;
  get(name: string): ToolDefinition | undefined;
  has(name: string): boolean;
  list(): ToolDefinition[];
}

/**
 * Creates an empty registry.
 *
 * @example
 * const registry = createToolRegistry();
 * registry.register(sysGetConfigTool);
 */
export function createToolRegistry(tools: ReadonlyArray<ToolDefinition<never, unknown>> = []): ToolRegistry {
  const map = new Map<string, ToolDefinition>();
  const registry: ToolRegistry = {
    register(tool) {
      if (!/^[a-z][a-z0-9_]*$/.test(tool.name))
        throw new TrustError('TOOL_NAME_INVALID', `tool name "${tool.name}" must be lower snake_case`);
      const had = map.get(tool.name);
      if (had) {
        const by = had.mcpServer !== undefined ? ` by MCP server ${had.mcpServer}` : '';
        throw new TrustError('TOOL_ALREADY_REGISTERED', `tool "${tool.name}" is already registered${by}`, {
          hint: 'tool names are unique per agent; rename the server or the tool',
        });
      }
      map.set(tool.name, tool as unknown as ToolDefinition);
    },
    unregister(tool) {
      if (map.get(tool.name) !== (tool as unknown)) return false;
      return map.delete(tool.name);
    },
    get: (name) => map.get(name),
    has: (name) => map.has(name),
    list: () => [...map.values()],
  };
  for (const t of tools) registry.register(t);
  return registry;
}
