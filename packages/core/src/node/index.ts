export { createJsonlAuditSink } from './jsonl-audit.js';
export { readJsonlAudit } from './jsonl-audit-read.js';
export { repairJsonlAudit } from './jsonl-audit-repair.js';
export type { JsonlAuditSink, JsonlAuditSinkOptions } from './jsonl-audit.js';
export type { JsonlAuditRepair } from './jsonl-audit-repair.js';
