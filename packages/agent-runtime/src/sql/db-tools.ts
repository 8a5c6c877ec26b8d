import type { ToolDefinition } from '../gate/tool-definition.js';
import type { ExecuteResult, QueryResult, SqlGuard } from './sql-guard.js';

interface SqlArgs {
  sql: string;
  params?: unknown[];
}

const inputSchema = {
  type: 'object',
  properties: {
    sql: { type: 'string', maxLength: 100_000 },
    params: { type: 'array', items: { type: ['string', 'number', 'null', 'boolean'] } },
  },
  required: ['sql'],
  additionalProperties: false,
} as const;

const bind = (p: unknown[] | undefined) => (p ?? []).map((v) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));

/**
 * `db_query`: one read-only statement over local_* and the eight readable adf_* tables, on the
 * read-only connection of the agent's SQL worker (or, once judged there, the bounded fast lane),
 * capped in rows, bytes and wall-clock time.
 *
 * @example
 * registry.register(createDbQueryTool(createSqlGuard(adf)));
 */
export function createDbQueryTool(guard: SqlGuard): ToolDefinition<SqlArgs, QueryResult> {
  return {
    name: 'db_query',
    description:
      'Run one read-only SQL statement (SELECT/WITH/VALUES) over local_* tables and adf_loop, adf_inbox, ' +
      'adf_outbox, adf_files, adf_timers, adf_audit, adf_logs, adf_tasks.',
    inputSchema,
    run: (args) => guard.runQuery(args.sql, bind(args.params)),
  };
}

/**
 * `db_execute`: one write statement on local_* tables only; table protections apply, and
 * authorized callers may write `authorized`/`append_only` tables. Capped in wall-clock time and in how
 * much it may grow the file.
 */
export function createDbExecuteTool(guard: SqlGuard): ToolDefinition<SqlArgs, ExecuteResult> {
  return {
    name: 'db_execute',
    description: 'Run one SQL write statement (INSERT/UPDATE/DELETE/CREATE/DROP/ALTER) on local_* tables.',
    inputSchema,
    run: (args, ctx) => guard.runExecute(args.sql, { authorized: ctx.authorized, params: bind(args.params) }),
  };
}
