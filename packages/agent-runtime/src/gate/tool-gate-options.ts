import { z } from 'zod';
import { fn, positive, withMethods } from '../options/strict-options.js';

/** The strict schema of `createToolGate`'s options, checked once at the boundary. */
export const toolGateOptionsSchema = z
  .object({
    adf: withMethods('the open .adf file, e.g. openAdf("agent.adf")', 'close'),
    registry: withMethods('the tools, e.g. createToolRegistry([sysGetConfigTool])', 'get', 'list'),
    approver: withMethods(
      'answers approvals, e.g. { request: async () => ({ decision: "deny" }) }',
      'request',
    ).optional(),
    clock: fn('clock for approval deadlines, e.g. () => new Date()').optional(),
    audit: withMethods('audit sink, e.g. createMemoryAuditSink()', 'record').optional(),
    approvalTimeoutMs: positive(
      'approval deadline in ms, overriding limits.approval_timeout_ms, e.g. 300000',
    ).optional(),
    agentId: z.string().min(1).optional().describe('agent id used in principals, e.g. "helper"'),
  })
  .strict()
  .describe('createToolGate options, e.g. { adf, registry }');
