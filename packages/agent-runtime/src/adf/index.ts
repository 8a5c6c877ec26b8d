// `@trust/agent-runtime/adf`: the .adf file (create, open) and the records it holds.
export { createAdf, openAdf } from './adf-file.js';
export { withAdfSnapshot } from './adf-snapshot.js';
export type { AdfFile, CreateAdfOptions, OpenAdfOptions } from './adf-file.js';
export type { AdfEvent, AdfEvents } from './adf-events.js';
export { normalizeVfsPath } from './adf-files.js';
export type { AdfFileRecord, AdfFiles, FileProtection, FlagSetter } from './adf-files.js';
export type { AdfTask, AdfTasks, TaskStatus } from './adf-tasks.js';
export type {
  AdfLogs,
  AdfLoop,
  AdfMail,
  AdfTimers,
  LogRow,
  LoopEntry,
  MailInput,
  MailRow,
  TimerRow,
} from './adf-records.js';
export { RUNTIME_META_KEYS } from './adf-meta.js';
export type { AdfMeta, MetaProtection } from './adf-meta.js';
export { ADF_READABLE_TABLES, ADF_SCHEMA_VERSION, ADF_SECRET_TABLES } from './schema.js';
export type { AdfAuditSink } from '../audit/adf-audit-sink.js';
