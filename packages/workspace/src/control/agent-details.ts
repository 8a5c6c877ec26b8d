import { createHash } from 'node:crypto';
import type { Principal } from '@trust/core';
import type { AdfFile } from '@trust/agent-runtime';
import { effectiveToolDeclarations } from '@trust/agent-runtime';
import { reviewKeyOf } from '@trust/agent-runtime';
import type { AgentFileText, AgentRuntimeView, ControlAgent } from './agent-registry.js';
import { controlError } from './control-error.js';
import type { McpServerLiveState } from '@trust/agent-runtime/mcp';

/** Largest file the studio editor reads or saves, in UTF-8 bytes (under the 64 KiB request body cap). */
export const FILE_EDIT_MAX_BYTES = 48 * 1024;

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * The editor and read-only panel methods of one agent file. `audited` records an owner action in
 * the agent's own hash-chained log.
 */
export function adfDetails(
  adf: AdfFile,
  audited: (by: Principal, action: string, target: string, details?: Record<string, unknown>) => void,
  mcpLive?: () => readonly McpServerLiveState[] | undefined,
): Required<Pick<ControlAgent, 'fileText' | 'writeFile' | 'runtimeView' | 'did'>> {
  const text = (path: string): AgentFileText => {
    const f = adf.files.read(path);
    if (f === undefined) throw controlError('CONTROL_NOT_FOUND', `no file "${path}"`, 'list files with GET …/files');
    const refused = refusal(f.content, f.protection);
    return {
      path: f.path,
      content: refused?.code === 'CONTROL_BODY_TOO_LARGE' ? '' : Buffer.from(f.content).toString('utf8'),
      sha256: sha256(f.content),
      size: f.size,
      protection: f.protection,
      editable: refused === undefined,
      ...(refused === undefined ? {} : { refused }),
    };
  };
  return {
    fileText: text,
    writeFile(path, content, base, by) {
      const bytes = Buffer.from(content, 'utf8');
      if (bytes.length > FILE_EDIT_MAX_BYTES) throw tooLarge(bytes.length);
      // The comparison with what the editor read and the write happen in one IMMEDIATE
      // transaction: no other writer of this file can get between them.
      adf.transaction(() => {
        const cur = adf.files.read(path);
        const now = cur === undefined ? null : sha256(cur.content);
        if (now !== base)
          throw controlError(
            'CONTROL_CONFLICT',
            cur === undefined
              ? `"${path}" no longer exists`
              : base === null
                ? `"${path}" already exists`
                : `"${path}" changed since it was read`,
            'reload the file, then apply your change again',
          );
        // read_only refuses here with ADF_FILE_PROTECTED; the owner's editor does not bypass it.
        adf.files.write(path, bytes);
      });
      audited(by, 'file.write', path, { bytes: bytes.length, sha256: sha256(bytes) });
      return text(path);
    },
    runtimeView: () => runtimeView(adf, mcpLive),
    did: () => adf.meta.get('adf_did') ?? null,
  };
}

function refusal(content: Uint8Array, protection: string): AgentFileText['refused'] {
  if (content.length > FILE_EDIT_MAX_BYTES)
    return { code: 'CONTROL_BODY_TOO_LARGE', reason: tooLarge(content.length).message };
  if (!Buffer.from(Buffer.from(content).toString('utf8'), 'utf8').equals(Buffer.from(content)))
    return { code: 'CONTROL_BAD_REQUEST', reason: 'the file is not UTF-8 text; it cannot be edited here' };
  if (protection === 'read_only')
    return { code: 'ADF_FILE_PROTECTED', reason: 'the file is read_only: saving it is refused' };
  return undefined;
}

function tooLarge(size: number) {
  return controlError(
    'CONTROL_BODY_TOO_LARGE',
    `the file is ${size} bytes; the editor handles at most ${FILE_EDIT_MAX_BYTES}`,
    'edit large files outside the studio',
  );
}

function runtimeView(
  adf: AdfFile,
  mcpLive: (() => readonly McpServerLiveState[] | undefined) | undefined,
): AgentRuntimeView {
  const c = adf.config();
  const live = mcpLive?.();
  const tools = [...effectiveToolDeclarations(c).values()];
  const review = reviewKeyOf(adf);
  const signed = adf.meta.get('adf_owner_sig') !== undefined;
  return {
    triggers: c.triggers.map((t) => {
      const timing =
        t.debounce_ms !== undefined
          ? `debounce ${t.debounce_ms} ms`
          : t.interval_ms !== undefined
            ? `at most every ${t.interval_ms} ms`
            : t.batch_ms !== undefined
              ? `batch ${t.batch_ms} ms${t.batch_count === undefined ? '' : ` / ${t.batch_count}`}`
              : undefined;
      return {
        type: t.type,
        scope: t.scope,
        ...(t.lambda === undefined ? {} : { lambda: t.lambda }),
        ...(t.filter === undefined ? {} : { filter: t.filter }),
        ...(timing === undefined ? {} : { timing }),
      };
    }),
    timers: adf.timers.list().map((t) => ({
      id: t.id,
      schedule: t.schedule,
      nextWakeAt: t.nextWakeAt,
      runCount: t.runCount,
      locked: t.locked,
      expired: t.expired,
      lambda: t.lambda,
    })),
    mcp: c.mcp.servers.map((s) => {
      const enabledTools = tools.filter((d) => d.enabled && d.name.startsWith(`mcp_${s.name}_`)).map((d) => d.name);
      return {
        name: s.name,
        transport: s.command !== undefined ? 'stdio' : s.url !== undefined ? 'http' : 'none',
        target: s.command !== undefined ? [s.command, ...s.args].join(' ') : (s.url ?? ''),
        restricted: s.restricted === true,
        capabilities: s.capabilities,
        enabledTools,
        // The control API sees the file, not live connections: say what the file decides.
        status:
          s.command === undefined && s.url === undefined
            ? 'invalid: neither command nor url'
            : enabledTools.length === 0
              ? 'configured, no tool enabled: its tools cannot run'
              : 'configured: started with the agent runtime',
        live: liveState(live, s.name),
      };
    }),
    identity: {
      did: adf.meta.get('adf_did') ?? null,
      ownerDid: review.ownerDid,
      review: review.ownerDid !== null ? 'signed' : signed ? 'signature-invalid' : 'unsigned',
      contentHash: review.contentHash,
    },
    messaging: {
      receive: c.messaging.receive,
      mode: c.messaging.mode,
      visibility: c.messaging.visibility,
      allowList: c.messaging.allow_list,
      blockList: c.messaging.block_list,
    },
  };
}

/** One server's live state for the panel; `undefined` states means the agent runs without its runtime. */
function liveState(
  states: readonly McpServerLiveState[] | undefined,
  name: string,
): AgentRuntimeView['mcp'][number]['live'] {
  if (states === undefined)
    return { state: 'agent-not-running', detail: 'the agent is not running: start it to connect its MCP servers' };
  const s = states.find((x) => x.server === name);
  if (s === undefined) return { state: 'not-started', detail: 'the running agent has not started this server' };
  if (s.kind === 'connected') return { state: 'connected', detail: `${s.placement}; ${s.tools} tools` };
  if (s.kind === 'failed') return { state: 'failed', detail: `${s.code}: ${s.message.slice(0, 1000)}` };
  return { state: 'disconnected', detail: s.message.slice(0, 1000) };
}
