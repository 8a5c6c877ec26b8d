import { z } from 'zod';

/**
 * The agent config, version 1. Every object is strict (unknown keys are errors, so a typo never
 * silently disables a guard) and every field carries a description.
 */

const bool = (d: string) => z.boolean().describe(d);

/** One tool declaration. A missing `enabled`/`visible` means false: nothing is on by accident. */
export const toolDeclarationSchema = z
  .strictObject({
    name: z.string().min(1).max(200).describe('Tool name, e.g. "fs_read" or "mcp_github_search".'),
    enabled: bool('Whether the tool may run at all. The only flag that gates execution.').default(false),
    visible: bool('Whether the model is shown the tool. Controls advertising only, never execution.').default(false),
    restricted: bool(
      'LLM calls need human approval; unauthorized code is refused; authorized code runs it freely.',
    ).optional(),
    locked: bool('The agent may not change this declaration through sys_update_config.').optional(),
  })
  .describe('One tool declaration: { "name": "fs_read", "enabled": true, "visible": true }.');

const lambdaRef = z
  .strictObject({
    lambda: z
      .string()
      .regex(/^[\w./-]+\.(ts|js|mjs):[A-Za-z_$][\w$]*$/)
      .describe('A VFS file and exported function, e.g. "mw/inbox.ts:check".'),
  })
  .describe('A middleware entry naming a lambda.');

export const CODE_EXECUTION_FLAGS = [
  'model_invoke',
  'sys_lambda',
  'task_resolve',
  'loop_inject',
  'identity_status',
  'get_identity',
  'set_identity',
  'emit_event',
  'attestation_list',
  'attestation_add',
  'attestation_issue',
] as const;

const codeExecutionShape = Object.fromEntries(
  CODE_EXECUTION_FLAGS.map((k) => [k, bool(`Whether agent code may call adf.${k}().`).default(true)]),
) as Record<(typeof CODE_EXECUTION_FLAGS)[number], z.ZodDefault<z.ZodBoolean>>;

const codeExecutionSchema = z
  .strictObject({
    ...codeExecutionShape,
    restricted_methods: z
      .array(z.enum(CODE_EXECUTION_FLAGS).describe('A code method name.'))
      .default(['attestation_issue'])
      .describe(
        'Methods only authorized code may call. An explicit list replaces the default ["attestation_issue"]; ' +
          '[] restricts none.',
      ),
  })
  .describe('Which adf.* methods agent code may call.');

const securitySchema = z
  .strictObject({
    allow_unsigned: bool('Accept unsigned inbound messages. Guard path: owner only.').default(true),
    require_signature: bool(
      'Refuse inbound messages without a valid envelope signature, independent of allow_unsigned.',
    ).default(false),
    require_payload_signature: bool('Refuse inbound messages without a valid payload signature.').default(false),
    middleware: z
      .strictObject({
        inbox: z.array(lambdaRef).default([]).describe('Lambdas run on every inbound message; [] runs none.'),
        outbox: z.array(lambdaRef).default([]).describe('Lambdas run on every outbound message; [] runs none.'),
      })
      .prefault({})
      .describe('Message middleware chains. Guard path: owner only.'),
    fetch_middleware: z
      .array(lambdaRef)
      .default([])
      .describe('Lambdas run before every sys_fetch; [] runs none. Guard path.'),
    require_middleware_authorization: bool('Only middleware from authorized files runs. Guard path.').default(true),
    allow_local_fetch: bool(
      'Let sys_fetch reach private addresses. Locked by default: changing it needs owner approval.',
    ).default(false),
    table_protections: z
      .record(
        z
          .string()
          .regex(/^local_\w+$/)
          .describe('A local_* table name.'),
        z.enum(['none', 'append_only', 'authorized']).describe('Protection level.'),
      )
      .default({})
      .describe(
        'Per-table protection for local_* tables: append_only forbids UPDATE/DELETE, authorized needs authorized code.',
      ),
  })
  .describe('Security switches.');

const limitsSchema = z
  .strictObject({
    execution_timeout_ms: z
      .int()
      .min(100)
      .max(300_000)
      .default(60_000)
      .describe('Wall-clock cap for one code execution.'),
    max_file_read_tokens: z
      .int()
      .min(1)
      .default(30_000)
      .describe('Largest file read returned to the model, in tokens.'),
    max_file_write_bytes: z.int().min(1).default(5_000_000).describe('Largest single virtual file write, in bytes.'),
    max_tool_result_tokens: z
      .int()
      .min(1)
      .default(16_000)
      .describe('Largest tool result returned to the model, in tokens.'),
    max_sql_rows: z.int().min(1).max(100_000).default(500).describe('Row cap for db_query results.'),
    sql_timeout_ms: z
      .int()
      .min(1)
      .max(60_000)
      .default(2_000)
      .describe('Wall-clock cap for one db_query; the SQL process is killed at the cap (SQL_TIMEOUT).'),
    sql_execute_timeout_ms: z
      .int()
      .min(1)
      .max(30_000)
      .default(2_000)
      .describe(
        'Wall-clock cap for one db_execute; the SQL process is killed at the cap and nothing is committed ' +
          '(SQL_TIMEOUT).',
      ),
    max_sql_result_bytes: z
      .int()
      .min(1_024)
      .max(64 * 1024 * 1024)
      .default(4 * 1024 * 1024)
      .describe('Byte cap for one db_query result, counted while rows are produced.'),
    max_sql_growth_bytes: z
      .int()
      .min(4_096)
      .max(1024 * 1024 * 1024)
      .default(64 * 1024 * 1024)
      .describe('How much one db_execute may grow the agent file (SQL_GROWTH_LIMIT, rolled back).'),
    approval_timeout_ms: z
      .int()
      .min(1)
      .max(86_400_000)
      .default(1_200_000)
      .describe('A pending approval auto-denies after this long.'),
    max_active_turns: z
      .int()
      .min(1)
      .nullable()
      .default(null)
      .describe('Cap on LLM turns per activation; null means no cap.'),
  })
  .describe('Resource limits.');

const messagingSchema = z
  .strictObject({
    receive: bool('Accept inbound messages at all.').default(false),
    mode: z
      .enum(['proactive', 'respond_only', 'listen_only'])
      .default('respond_only')
      .describe('How the agent reacts to mail.'),
    visibility: z
      .enum(['directory', 'localhost', 'lan', 'public', 'off'])
      .default('localhost')
      .describe('Who can discover the agent.'),
    allow_list: z
      .array(z.string().startsWith('did:').describe('A sender DID.'))
      .default([])
      .describe('Verified sender DIDs always accepted; [] means no allow list.'),
    block_list: z
      .array(z.string().startsWith('did:').describe('A sender DID.'))
      .default([])
      .describe('Sender DIDs refused; allow_list wins.'),
  })
  .describe('Messaging settings.');

const modelSchema = z
  .strictObject({
    provider: z.enum(['scripted', 'openai-compatible', 'anthropic']).default('scripted').describe('LLM provider kind.'),
    model_id: z.string().default('scripted').describe('Model identifier, e.g. "claude-sonnet-4".'),
    base_url: z.url().optional().describe('Provider base URL (openai-compatible).'),
    api_key_env: z
      .string()
      .regex(/^[A-Z_][A-Z0-9_]*$/)
      .optional()
      .describe('Name of the host env var holding the API key; the key itself is never stored.'),
    api_key: z.string().optional().describe('An inline API key. Discouraged; always redacted by sys_get_config.'),
    temperature: z.number().min(0).max(2).optional().describe('Sampling temperature.'),
    max_tokens: z.int().min(1).optional().describe('Output token cap per turn.'),
    context_window: z
      .int()
      .min(1_000)
      .max(10_000_000)
      .optional()
      .describe(
        'Tokens the model is sent at most per call (history, system prompt, tools and the answer). ' +
          'Older turns are compacted into a summary past it. Default: the provider context size.',
      ),
    compaction: z
      .enum(['model', 'truncate'])
      .default('model')
      .describe(
        'How older turns are compacted: "model" asks the agent model for a summary (a plain truncation ' +
          'with a marker if it fails); "truncate" only marks what was removed.',
      ),
  })
  .describe('The LLM model.');

export const TRIGGER_TYPES = [
  'on_startup',
  'on_inbox',
  'on_outbox',
  'on_file_change',
  'on_chat',
  'on_timer',
  'on_tool_call',
  'on_task_create',
  'on_task_complete',
  'on_logs',
  'on_llm_call',
  'on_external',
] as const;

const triggerSchema = z
  .strictObject({
    type: z
      .enum(TRIGGER_TYPES)
      .describe(
        'Event that fires the trigger. on_external: an event a local integration posts to the control API ' +
          '(POST …/trigger), matched on filter "source".',
      ),
    scope: z.enum(['system', 'agent']).default('agent').describe('system runs a lambda; agent wakes the LLM loop.'),
    lambda: z.string().optional().describe('For system scope: "file.ts:fn" in the VFS.'),
    filter: z
      .record(z.string().describe('Filter key.'), z.string().describe('Filter value.'))
      .optional()
      .describe(
        'Event filters, e.g. { "source": "mesh" } or { "watch": "docs/**" }. Every key must match; a key the ' +
          'event type does not know never matches. Values: alternatives separated by "|", "*" wildcards.',
      ),
    debounce_ms: z
      .int()
      .min(1)
      .max(86_400_000)
      .optional()
      .describe(
        'Fire once, with the latest event, after no matching event for this long. At most one of ' +
          'debounce_ms, interval_ms, batch_ms.',
      ),
    interval_ms: z
      .int()
      .min(1)
      .max(86_400_000)
      .optional()
      .describe(
        'Fire at most once per this long: the first event at once, the latest of the rest when the interval ' +
          'ends. At most one of debounce_ms, interval_ms, batch_ms.',
      ),
    batch_ms: z
      .int()
      .min(1)
      .max(86_400_000)
      .optional()
      .describe(
        'Collect matching events for this long after the first one, then fire once with all of them ' +
          '(data.batch). At most one of debounce_ms, interval_ms, batch_ms.',
      ),
    batch_count: z
      .int()
      .min(1)
      .max(1000)
      .optional()
      .describe('With batch_ms: fire as soon as this many events are collected (default and maximum 1000).'),
  })
  .superRefine((t, ctx) => {
    const set = (['debounce_ms', 'interval_ms', 'batch_ms'] as const).filter((k) => t[k] !== undefined);
    if (set.length > 1)
      ctx.addIssue({
        code: 'custom',
        path: [set[1]!],
        message:
          `a trigger takes at most one of debounce_ms, interval_ms, batch_ms (got ${set.join(', ')}); ` +
          'e.g. { "type": "on_file_change", "debounce_ms": 500 }',
      });
    if (t.batch_count !== undefined && t.batch_ms === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['batch_count'],
        message: 'batch_count needs batch_ms; e.g. { "type": "on_inbox", "batch_ms": 60000, "batch_count": 10 }',
      });
  })
  .describe('One trigger.');

const mcpServerSchema = z
  .strictObject({
    name: z
      .string()
      .regex(/^[a-z0-9_-]+$/)
      .describe('Server name; its tools appear as mcp_<name>_<tool>.'),
    command: z.string().optional().describe('stdio: the executable to run (inside the OS sandbox).'),
    args: z.array(z.string().describe('One argument.')).default([]).describe('stdio: arguments.'),
    url: z.url().optional().describe('http: the server URL (through the egress policy).'),
    env: z
      .record(z.string().describe('Env var name.'), z.string().describe('Value; redacted by sys_get_config.'))
      .default({})
      .describe('Extra env for the server.'),
    capabilities: z
      .array(z.string().describe('A capability, e.g. "fs:ro:/data".'))
      .default([])
      .describe('Sandbox capabilities; [] grants none.'),
    restricted: bool('Every tool of this server needs approval from the LLM loop.').optional(),
  })
  .describe('One MCP server.');

const streamBindSchema = z
  .strictObject({
    host_process_bind: bool('Allow binding streams to host processes. Locked by default.').default(false),
    allow_tcp_bind: bool('Allow binding streams to TCP peers. Locked by default.').default(false),
    tcp_allowlist: z
      .array(z.string().describe('host:port'))
      .default([])
      .describe('TCP peers a bind may reach; [] means none.'),
  })
  .describe('Stream bind gates (default-locked).');

/** The agent config schema, `v: 1`. */
export const agentConfigSchema = z
  .strictObject({
    v: z.literal(1).describe('Config format version; always 1.'),
    id: z.string().min(1).optional().describe('Informational agent id. Never used as a trust key.'),
    name: z.string().min(1).max(200).default('agent').describe('Display name.'),
    description: z.string().max(10_000).default('').describe('What the agent is for.'),
    instructions: z.string().max(200_000).default('').describe('System instructions for the model.'),
    autonomous: bool('Run the loop without a human turn. Off by default.').default(false),
    model: modelSchema.prefault({}),
    tools: z
      .array(toolDeclarationSchema)
      .default([])
      .describe(
        'Tool declarations; a tool not listed is unavailable. Duplicates resolve first-wins, and never clear ' +
          'restricted/locked.',
      ),
    code_execution: codeExecutionSchema.prefault({}),
    security: securitySchema.prefault({}),
    limits: limitsSchema.prefault({}),
    messaging: messagingSchema.prefault({}),
    triggers: z.array(triggerSchema).default([]).describe('Triggers; [] means none.'),
    mcp: z
      .strictObject({ servers: z.array(mcpServerSchema).default([]).describe('MCP servers; [] means none.') })
      .prefault({})
      .describe('MCP servers.'),
    stream_bind: streamBindSchema.prefault({}),
    logging: z
      .strictObject({
        max_rows: z.int().min(100).max(1_000_000).default(10_000).describe('adf_logs keeps at most this many rows.'),
      })
      .prefault({})
      .describe('Logging.'),
    locked_fields: z
      .array(z.string().min(1).describe('A dot path, e.g. "limits" or "tools.fs_write".'))
      .default([])
      .describe('Config paths the agent may change only with owner approval; [] adds none to the built-in locks.'),
    metadata: z
      .record(z.string().describe('Key.'), z.unknown().describe('Value.'))
      .default({})
      .describe('Free-form owner metadata.'),
  })
  .describe('An agent config, format v1.');

/** A validated agent config. Functions inside the runtime take this and never re-validate. */
export type AgentConfig = z.output<typeof agentConfigSchema>;
/** One validated tool declaration. */
export type ToolDeclaration = z.output<typeof toolDeclarationSchema>;
