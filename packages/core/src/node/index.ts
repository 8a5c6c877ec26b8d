export {
  CALL_CHANNEL_VERSION,
  CALL_STATE,
  createCallChannelBuffers,
  isReplyReady,
  openCallChannel,
  postCall,
  postReply,
  readReply,
  userWord,
} from './call-channel.js';
export { CALL_WAIT_SLICE_MS, MAX_SYNC_WAIT_MS, awaitReply, nextCall, waitForReply } from './call-channel-wait.js';
export { createJsonlAuditSink } from './jsonl-audit.js';
export { readJsonlAudit } from './jsonl-audit-read.js';
export { repairJsonlAudit } from './jsonl-audit-repair.js';
export type { JsonlAuditSink, JsonlAuditSinkOptions } from './jsonl-audit.js';
export type { JsonlAuditRepair } from './jsonl-audit-repair.js';
export type { CallChannel, CallChannelBuffers, CallChannelOptions, CallCodec } from './call-channel.js';
export type { CallWaitOptions, NextCallOptions } from './call-channel-wait.js';
