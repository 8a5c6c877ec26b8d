export { createAdfAuditSink } from './adf-audit-sink.js';
export type { AdfAuditSink } from './adf-audit-sink.js';
