import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { TrustError } from '@trust/core';
import { createStderrLog, type McpLogRow } from './mcp-stderr-log.js';
import { callMcpText, DEFAULT_MCP_CALL_TIMEOUT_MS } from './mcp-tool-call.js';
import { listMcpTools, type McpToolInfo, type McpToolListLimits } from './mcp-tool-list.js';
import {
  openMcpSession,
  PERMANENT_MCP_CODES,
  withTimeout,
  type McpPlacement,
  type McpSession,
  type McpSessionOptions,
} from './mcp-session.js';

/** The health of one server: `starting`, `ready`, `degraded` (down, a restart is scheduled) or `failed` (given up). */
export type McpHealthState = 'starting' | 'ready' | 'degraded' | 'failed';

/** How a server that ends is restarted: capped exponential backoff. */
export interface McpRestartPolicy {
  /** Delay before the first restart (default 500 ms); doubled each consecutive failure. */
  readonly initialDelayMs?: number;
  /** The cap of the delay (default 30 s). */
  readonly maxDelayMs?: number;
  /** Consecutive failed starts before the server is `failed` (default 8). */
  readonly maxAttempts?: number;
  /** A server up this long has its failure count reset (default 30 s). */
  readonly stableAfterMs?: number;
}

/** Per-server tuning of a long-lived server. */
export interface McpServiceTuning {
  /** Deadline of each tool call (default 60 s); `notifications/cancelled` is sent on expiry. */
  readonly callTimeoutMs?: number;
  /** After a call timed out, the server must answer a ping within this (default 10 s), else it is restarted. */
  readonly pingTimeoutMs?: number;
  readonly restart?: McpRestartPolicy;
  readonly toolList?: McpToolListLimits;
}

/** Options of {@link startMcpService}. */
export interface McpServiceOptions extends McpSessionOptions, McpServiceTuning {
  /** The server's current tool list, after each successful list (connect, restart, `list_changed`). */
  onTools(tools: readonly McpToolInfo[], refused: ReadonlyArray<{ tool: string; reason: string }>): void;
  /** Rows for the agent's logs (state changes, stderr, bounded). */
  log(row: McpLogRow): void;
}

/** What {@link McpService.health} reports. Messages and the stderr tail are the server's text (untrusted). */
export interface McpServiceHealth {
  readonly state: McpHealthState;
  readonly placement: McpPlacement | undefined;
  /** Why the server is not ready (or the last problem of a ready one), with its code. */
  readonly reason: { readonly code: string; readonly message: string } | undefined;
  /** The last bytes of its stderr (up to 4 KiB). */
  readonly stderrTail: string;
  /** Restarts so far. */
  readonly restarts: number;
  /** When the state last changed (ISO 8601). */
  readonly since: string;
  readonly refusedEnv: readonly string[];
}

/** One long-lived server (see {@link startMcpService}). */
export interface McpService {
  readonly server: string;
  health(): McpServiceHealth;
  /** Resolves when the server is first ready; rejects with the first start's error. */
  firstStart(): Promise<void>;
  /**
   * Calls a tool by the server's own name. `timeoutMs` overrides the server's call deadline for
   * this call. `MCP_SERVER_UNAVAILABLE` when the server is not ready.
   */
  callTool(
    tool: string,
    args: Record<string, unknown>,
    options: { timeoutMs?: number; signal?: AbortSignal; maxTokens: number },
  ): Promise<{ content: string }>;
  close(): Promise<void>;
}

const codeOf = (e: unknown): string => {
  const c = (e as { code?: unknown } | null)?.code;
  return typeof c === 'string' ? c : 'MCP_CONNECT_FAILED';
};
const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 2000);

/**
 * Runs one MCP server as a service: starts it (independently of every other server), restarts
 * it with capped exponential backoff when it exits, stops answering (a call times out and a
 * ping then fails) or sends a line over the limit, refreshes its tools on
 * `notifications/tools/list_changed`, and reports its health. Its stderr goes to `log`, bounded.
 *
 * @example
 * const svc = startMcpService({ server, installedBy: 'agent', createSandbox, onTools: register, log: adf.logs.add });
 * await svc.firstStart();
 */
export function startMcpService(options: McpServiceOptions): McpService {
  const name = options.server.name;
  const restart = options.restart ?? {};
  const initialDelay = restart.initialDelayMs ?? 500;
  const maxDelay = restart.maxDelayMs ?? 30_000;
  const maxAttempts = restart.maxAttempts ?? 8;
  const stableAfter = restart.stableAfterMs ?? 30_000;
  const connectTimeout = options.connectTimeoutMs ?? 120_000;
  const stderr = createStderrLog(name, options.log);
  let state: McpHealthState = 'starting';
  let reason: McpServiceHealth['reason'];
  let since = new Date().toISOString();
  let session: McpSession | undefined;
  let lastSession: McpSession | undefined;
  let placement: McpPlacement | undefined;
  let refusedEnv: readonly string[] = [];
  let failures = 0;
  let restarts = 0;
  let readyAt = 0;
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let settle: { ok(): void; fail(e: unknown): void } | undefined;
  const first = new Promise<void>((ok, fail) => {
    settle = { ok, fail };
  });
  first.catch(() => undefined);
  const setState = (s: McpHealthState, r?: McpServiceHealth['reason']): void => {
    state = s;
    reason = r;
    since = new Date().toISOString();
  };
  const safeLog = (row: McpLogRow): void => {
    try {
      options.log(row);
    } catch {
      /* logging must not fail the server */
    }
  };

  const failed = (e: unknown): void => {
    const code = codeOf(e);
    const message = messageOf(e);
    settle?.fail(e);
    settle = undefined;
    if (closed) return;
    failures += 1;
    if (PERMANENT_MCP_CODES.includes(code) || failures > maxAttempts) {
      const why = PERMANENT_MCP_CODES.includes(code) ? '' : ` (gave up after ${failures} failed starts)`;
      setState('failed', { code, message: message + why });
      safeLog({ level: 'error', origin: 'mcp', event: 'mcp.failed', target: name, message: message + why });
      return;
    }
    const delay = Math.min(maxDelay, initialDelay * 2 ** (failures - 1));
    restarts += 1;
    setState('degraded', { code, message });
    safeLog({
      level: 'error',
      origin: 'mcp',
      event: 'mcp.failed',
      target: name,
      message: `${message}; restart ${failures}/${maxAttempts} in ${delay} ms`,
    });
    timer = setTimeout(() => void start(), delay);
    timer.unref();
  };

  const down = (s: McpSession, code: string, message: string): void => {
    if (session !== s) return;
    session = undefined;
    void s.close();
    if (readyAt > 0 && Date.now() - readyAt >= stableAfter) failures = 0;
    const tail = s.stderrTail();
    failed(new TrustError(code as never, tail ? `${message} (server stderr: ${tail.slice(-300)})` : message));
  };

  let refreshing = false;
  let again = false;
  const refresh = async (s: McpSession): Promise<void> => {
    if (refreshing) {
      again = true;
      return;
    }
    refreshing = true;
    try {
      do {
        again = false;
        const listed = await listMcpTools(s.client, options.toolList, { timeout: connectTimeout });
        if (session !== s) return;
        options.onTools(listed.tools, listed.refused);
      } while (again && session === s);
    } catch (e) {
      if (session === s) {
        reason = { code: codeOf(e), message: `tools/list_changed refresh refused: ${messageOf(e)}` };
        safeLog({ level: 'error', origin: 'mcp', event: 'mcp.tools', target: name, message: reason.message });
      }
    } finally {
      refreshing = false;
    }
  };

  const start = async (): Promise<void> => {
    timer = undefined;
    if (closed) return;
    if (restarts > 0 || failures > 0) setState('starting');
    let s: McpSession | undefined;
    try {
      s = await openMcpSession({ ...options, onStderr: stderr.write });
      lastSession = s;
      placement = s.placement;
      refusedEnv = s.refusedEnv;
      if (closed) return void (await s.close());
      const opened = s;
      const listed = await withTimeout(
        listMcpTools(opened.client, options.toolList, { timeout: connectTimeout }),
        connectTimeout,
        name,
      );
      if (closed) return void (await opened.close());
      session = opened;
      readyAt = Date.now();
      opened.client.onclose = () => {
        const fault = opened.fault();
        if (fault) down(opened, fault.code, fault.message);
        else down(opened, 'MCP_SERVER_EXITED', `MCP server ${name} exited or its transport ended`);
      };
      opened.client.setNotificationHandler(ToolListChangedNotificationSchema, () => void refresh(opened));
      setState('ready');
      options.onTools(listed.tools, listed.refused);
      safeLog({
        level: 'info',
        origin: 'mcp',
        event: 'mcp.connected',
        target: name,
        message:
          `${name} ready (${opened.placement}); ${listed.tools.length} tools` +
          (restarts > 0 ? `; restart ${restarts}` : '') +
          (opened.refusedEnv.length ? `; refused env ${opened.refusedEnv.join(', ')}` : ''),
      });
      settle?.ok();
      settle = undefined;
    } catch (e) {
      await s?.close();
      failed(e);
    }
  };

  const scheduleFirst = setImmediate(() => void start());
  return {
    server: name,
    health: () => ({
      state,
      placement,
      reason,
      stderrTail: (session ?? lastSession)?.stderrTail() ?? '',
      restarts,
      since,
      refusedEnv,
    }),
    firstStart: () => first,
    async callTool(tool, args, call) {
      const s = session;
      if (!s || state !== 'ready')
        throw new TrustError('MCP_SERVER_UNAVAILABLE', `MCP server ${name} is ${state}, not ready`, {
          hint: reason ? `${reason.code}: ${reason.message.slice(0, 300)}` : 'wait for it to start, then retry',
        });
      try {
        return await callMcpText(s.client, tool, args, {
          timeoutMs: call.timeoutMs ?? options.callTimeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS,
          ...(call.signal ? { signal: call.signal } : {}),
          maxTokens: call.maxTokens,
          label: `${name}/${tool}`,
        });
      } catch (e) {
        // A call that timed out: the server must still answer a ping, or it is restarted.
        if (codeOf(e) === 'MCP_CALL_TIMEOUT' && session === s) {
          const pingMs = options.pingTimeoutMs ?? 10_000;
          try {
            await s.client.ping({ timeout: pingMs });
          } catch {
            down(s, 'MCP_SERVER_UNRESPONSIVE', `MCP server ${name} stopped answering (no ping within ${pingMs} ms)`);
          }
        }
        throw e;
      }
    },
    async close() {
      closed = true;
      clearImmediate(scheduleFirst);
      clearTimeout(timer);
      stderr.flush();
      settle?.fail(new TrustError('MCP_SERVER_UNAVAILABLE', `MCP server ${name} was closed before it started`));
      settle = undefined;
      const s = session ?? lastSession;
      session = undefined;
      await s?.close();
    },
  };
}
