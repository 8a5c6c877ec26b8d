export { createSqlGuard } from './sql-guard.js';
export type { ExecuteResult, QueryResult, SqlGuard, SqlGuardOptions, SqlQueryStats } from './sql-guard.js';
export { createDbExecuteTool, createDbQueryTool } from './db-tools.js';
export type { TableProtection } from './sql-policy.js';
