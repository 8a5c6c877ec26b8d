// Which tools are dangerous enough that the studio asks before turning them on or approving a
// call, and what it tells the owner about visibility. Pure functions, unit-tested beside this file.
import type { ToolRow } from './types';

/** Tools whose use reaches outside the agent's own file, with what they can do. */
export const DANGEROUS_TOOLS: Readonly<Record<string, string>> = Object.freeze({
  adf_shell: 'runs shell commands for the agent',
  ws_connect: 'opens WebSocket connections to the network',
  ws_send: 'sends data over an open WebSocket',
  ws_disconnect: 'closes WebSocket connections',
  compute_exec: 'runs processes in the OS sandbox',
  mcp_install: 'installs and starts MCP servers',
  sys_create_adf: 'creates new agents',
  fs_delete: 'deletes files from the agent store',
  db_execute: 'changes the agent database',
  msg_delete: 'deletes messages',
});

/** The risk note of a tool, or undefined when it is not in the dangerous list. MCP tools count as dangerous. */
export function toolRisk(name: string): string | undefined {
  if (Object.hasOwn(DANGEROUS_TOOLS, name)) return DANGEROUS_TOOLS[name];
  if (name.startsWith('mcp_')) return 'calls a tool of an external MCP server';
  return undefined;
}

export type ToolFlag = 'enabled' | 'visible' | 'restricted' | 'locked';

/**
 * Whether flipping `flag` on `row` needs a confirmation: turning on a tool that is locked (the
 * default posture for shell and network tools) or on the dangerous list. Turning things off never does.
 */
export function confirmationFor(row: ToolRow, flag: ToolFlag): string | undefined {
  if (flag !== 'enabled' || row.enabled) return undefined;
  const risk = toolRisk(row.name);
  if (!row.locked && risk === undefined) return undefined;
  const why = row.locked ? 'it is locked off by default' : 'it is on the dangerous list';
  return `Enable ${row.name}? ${risk === undefined ? 'This tool' : `It ${risk}; `}${why}. The change is audited.`;
}

/** What the owner should know after a change: an enabled tool the model is not shown. */
export function visibilityNote(row: ToolRow): string | undefined {
  if (row.enabled && !row.visible) {
    return (
      `${row.name} is enabled but not visible: the model is not shown it and cannot call it; only the ` +
      `agent's code can. Tick "visible" to offer it to the model.`
    );
  }
  return undefined;
}
