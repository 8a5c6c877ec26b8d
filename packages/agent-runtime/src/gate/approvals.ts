import type { TrustErrorCode } from '@trust/core';
import { TrustError, type AuditSink, type Principal } from '@trust/core';
import type { AdfFile } from '../adf/adf-file.js';
import type { AdfTask } from '../adf/adf-tasks.js';
import { escapeForTerminal } from './escape.js';
import type { ToolOrigin } from './tool-definition.js';

/** What an approver (the owner's UI) answers. */
export interface ApprovalResponse {
  readonly decision: 'approve' | 'deny';
  /** Replacement arguments, re-validated before use. */
  readonly args?: unknown;
  /** Shown to the model when denied. */
  readonly feedback?: string;
  /** Persist `enabled:true, restricted:false`. Refused for locked declarations and protection overrides. */
  readonly always?: boolean;
}

/** What an approver is shown. Every untrusted string is already escaped in `prompt`. */
export interface ApprovalRequest {
  readonly task: AdfTask;
  readonly reason: 'restricted' | 'protection' | 'authorized-target';
  /** A one-paragraph, terminal-safe description. */
  readonly prompt: string;
  readonly signal: AbortSignal;
}

/**
 * The owner's side of human-in-the-loop. A throwing or rejecting approver denies. The task also
 * stays in `adf_tasks`, so another surface (the control API) may resolve it first.
 */
export interface Approver {
  request(request: ApprovalRequest): Promise<ApprovalResponse>;
}

/** Outcome of one wait. */
export type ApprovalOutcome =
  | { readonly kind: 'approved'; readonly args: unknown; readonly always: boolean; readonly by: ToolOrigin }
  | { readonly kind: 'denied'; readonly feedback: string; readonly by: ToolOrigin | 'timeout' | 'approver-error' }
  | { readonly kind: 'aborted' };

interface Waiter {
  settle(o: ApprovalOutcome): void;
  reason: ApprovalRequest['reason'];
  locked: boolean;
}

/** Per-gate registry of pending approvals (not module state: two gates never see each other's). */
export interface ApprovalDesk {
  wait(input: {
    tool: string;
    args: unknown;
    origin: ToolOrigin;
    reason: ApprovalRequest['reason'];
    locked: boolean;
    detail?: string;
    signal?: AbortSignal;
    timeoutMs: number;
  }): Promise<{ task: AdfTask; outcome: ApprovalOutcome }>;
  /** Resolves a pending task. Only the owner or authorized code may. Throws a TrustError otherwise. */
  resolve(taskId: string, response: ApprovalResponse, by: ToolOrigin): void;
  pending(): AdfTask[];
}

export function createApprovalDesk(
  adf: AdfFile,
  audit: AuditSink,
  principalFor: (o: ToolOrigin) => Principal,
  approver?: Approver,
  clock: () => Date = () => new Date(),
): ApprovalDesk {
  const waiters = new Map<string, Waiter>();
  const desk: ApprovalDesk = {
    pending: () => adf.tasks.list({ status: 'pending_approval' }),
    resolve(taskId, response, by) {
      const task = adf.tasks.get(taskId);
      const fail = (code: TrustErrorCode, message: string) => {
        audit.record({
          principal: principalFor(by),
          action: 'approval.resolve',
          target: taskId,
          decision: 'deny',
          code,
          rule: 'approval',
        });
        return new TrustError(code, message);
      };
      if (by !== 'owner' && by !== 'authorized-code')
        throw fail('TASK_RESOLVE_FORBIDDEN', `only the owner or authorized code may resolve approvals, not ${by}`);
      const w = waiters.get(taskId);
      if (task?.status !== 'pending_approval' || !w)
        throw fail('TASK_NOT_PENDING', `task ${taskId} is not waiting for approval`);
      if (response.decision === 'approve' && response.always === true && (w.locked || w.reason !== 'restricted')) {
        throw fail(
          'TASK_ALWAYS_APPROVE_REFUSED',
          w.locked
            ? 'this tool is locked; approve once instead of always'
            : 'a protection override can only be approved once',
        );
      }
      w.settle(
        response.decision === 'approve'
          ? { kind: 'approved', args: response.args ?? task.args, always: response.always === true, by }
          : { kind: 'denied', feedback: response.feedback ?? 'denied', by },
      );
    },
    async wait(input) {
      const task = adf.tasks.create({
        tool: input.tool,
        args: input.args,
        origin: input.origin,
        status: 'pending_approval',
        requiresAuthorization: true,
        executorManaged: true,
        approvalMeta: {
          reason: input.reason,
          expires_at: new Date(clock().getTime() + input.timeoutMs).toISOString(),
          ...(input.detail ? { detail: input.detail } : {}),
        },
      });
      audit.record({
        principal: principalFor(input.origin),
        action: 'approval.request',
        target: input.tool,
        decision: 'deny',
        code: 'APPROVAL_PENDING',
        rule: input.reason,
        details: { task: task.id },
      });
      const controller = new AbortController();
      const outcome = await new Promise<ApprovalOutcome>((resolve) => {
        let done = false;
        const settle = (o: ApprovalOutcome) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          input.signal?.removeEventListener('abort', onAbort);
          waiters.delete(task.id);
          controller.abort();
          resolve(o);
        };
        const onAbort = () => settle({ kind: 'aborted' });
        const timer = setTimeout(
          () => settle({ kind: 'denied', feedback: `no decision within ${input.timeoutMs} ms`, by: 'timeout' }),
          input.timeoutMs,
        );
        waiters.set(task.id, { settle, reason: input.reason, locked: input.locked });
        if (input.signal?.aborted) return onAbort();
        input.signal?.addEventListener('abort', onAbort, { once: true });
        if (approver) {
          const tool = escapeForTerminal(input.tool, { singleLine: true, maxLength: 200 });
          const detail = input.detail
            ? `: ${escapeForTerminal(input.detail, { singleLine: true, maxLength: 300 })}`
            : '';
          const args = escapeForTerminal(input.args, { maxLength: 1500 });
          const prompt = `Agent wants to run ${tool} (${input.reason}${detail}) with arguments ${args}`;
          Promise.resolve()
            .then(() => approver.request({ task, reason: input.reason, prompt, signal: controller.signal }))
            .then((r) => {
              if (!done) desk.resolve(task.id, r, 'owner');
            })
            .catch((e: unknown) =>
              settle({
                kind: 'denied',
                feedback: `approval failed: ${e instanceof Error ? e.message : String(e)}`,
                by: 'approver-error',
              }),
            );
        }
      });
      const status = outcome.kind === 'approved' ? 'running' : outcome.kind === 'aborted' ? 'cancelled' : 'denied';
      adf.tasks.transition(
        task.id,
        'pending_approval',
        status,
        outcome.kind === 'denied'
          ? { error: outcome.feedback }
          : outcome.kind === 'approved'
            ? { args: outcome.args }
            : { error: 'aborted' },
      );
      audit.record({
        principal: principalFor(outcome.kind === 'approved' ? outcome.by : 'owner'),
        action: 'approval.resolve',
        target: input.tool,
        decision: outcome.kind === 'approved' ? 'allow' : 'deny',
        rule: input.reason,
        ...(outcome.kind === 'approved'
          ? {}
          : {
              code:
                outcome.kind === 'aborted'
                  ? 'TOOL_CALL_ABORTED'
                  : outcome.by === 'timeout'
                    ? 'TOOL_APPROVAL_TIMEOUT'
                    : 'TOOL_APPROVAL_DENIED',
            }),
        details: { task: task.id, ...(outcome.kind === 'approved' && outcome.always ? { always: true } : {}) },
      });
      return { task: adf.tasks.get(task.id) as AdfTask, outcome };
    },
  };
  return desk;
}
