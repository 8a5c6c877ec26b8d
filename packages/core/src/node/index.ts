export { createJsonlAuditSink, readJsonlAudit } from './jsonl-audit.js';
export type { JsonlAuditSink, JsonlAuditSinkOptions } from './jsonl-audit.js';
