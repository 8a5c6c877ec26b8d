import { join, resolve } from 'node:path';
import type { CommandSpec } from '../command.js';
import { stringOption } from '../args.js';
import { CliError, usageError } from '../cli-error.js';
import { callStudio, readStudioState } from '../studio-state.js';
import { trustHome } from '../trust-home.js';
import { escapeTerminal } from '../terminal-text.js';
import type { CommandContext } from '../command.js';

interface TaskView {
  id: string;
  agent: string;
  tool: string;
  args: unknown;
  reason: string;
  status: string;
}

/** Shared by `agent approve` and `agent deny`: lists pending tasks, or resolves one by id or unique prefix. */
export async function resolveTask(ctx: CommandContext, decision: 'approve' | 'deny'): Promise<number> {
  const { io, out, values, positionals } = ctx;
  const ws = stringOption(values, 'workspace');
  const workspace = ws ? resolve(io.cwd, ws) : join(trustHome(io.env), 'demo');
  // The command line is checked before the studio is asked anything.
  let body: Record<string, unknown> = {};
  if (decision === 'approve') {
    const args = stringOption(values, 'args');
    if (args !== undefined) {
      try {
        body = { args: JSON.parse(args) };
      } catch {
        throw usageError('CLI_USAGE_INVALID_VALUE', '--args must be JSON', `for example --args '{"path":"notes.md"}'`);
      }
    }
  } else {
    const feedback = stringOption(values, 'feedback');
    if (feedback !== undefined) body = { feedback };
  }
  const state = await readStudioState(workspace);
  const tasks = ((await callStudio(state, 'GET', '/tasks')).tasks ?? []) as TaskView[];
  const pending = tasks.filter((t) => t.status === 'pending');
  const wanted = positionals[0];
  const e = escapeTerminal;
  if (wanted === undefined) {
    out.result({ pending });
    if (pending.length === 0) out.line('no approvals are waiting');
    for (const t of pending)
      out.line(`${t.id}  ${e(t.agent)}  ${e(t.tool)} ${e(JSON.stringify(t.args))}\n    ${e(t.reason)}`);
    return 0;
  }
  const matches = pending.filter((t) => t.id === wanted || (wanted.length >= 4 && t.id.startsWith(wanted)));
  if (matches.length !== 1) {
    throw new CliError(
      'AGENT_TASK_NOT_FOUND',
      matches.length === 0 ? `no pending approval task ${wanted}` : `${wanted} matches ${matches.length} tasks`,
      {
        hint: pending.length
          ? `pending: ${pending.map((t) => t.id).join(', ')}`
          : 'nothing is waiting; run the command without a task id to list',
      },
    );
  }
  const task = matches[0] as TaskView;
  const result = (
    await callStudio(
      state,
      'POST',
      `/agents/${encodeURIComponent(task.agent)}/tasks/${encodeURIComponent(task.id)}/${decision}`,
      body,
    )
  ).task as TaskView;
  out.result({ task: result });
  const verdict = decision === 'approve' ? out.style.green('approved') : out.style.yellow('denied');
  out.line(`${verdict} ${task.id}: ${e(task.agent)} ${e(task.tool)}`);
  return 0;
}

export const command: CommandSpec = {
  name: 'agent approve',
  summary: 'approve a pending approval task',
  description:
    'Answers a restricted tool call that an agent is waiting on, through the control server of the\n' +
    'running `trust studio` (the demo workspace unless --workspace). Without a task id it lists what is\n' +
    'waiting. A unique prefix of the id is enough. --args replaces the arguments (re-validated).',
  positionals: [
    { name: 'task', description: 'the task id (or a unique prefix of 4+ characters); omit to list', required: false },
  ],
  options: {
    workspace: {
      type: 'string',
      valueName: 'dir',
      description: 'the workspace the studio runs on (default: the demo workspace)',
    },
    args: { type: 'string', valueName: 'json', description: 'approve with these arguments instead' },
  },
  examples: [
    { command: 'trust agent approve', explain: 'list the approvals that are waiting' },
    { command: 'trust agent approve 7e6d', explain: 'approve a task by id prefix' },
    {
      command: 'trust agent approve 7e6d --args \'{"path":"notes.md","mode":"append","content":"edited"}\'',
      explain: 'approve with changed arguments',
    },
  ],
  jsonShape:
    '{ "task": { "id", "agent", "tool", "args", "reason", "status": ' +
    '"approved" } }  (without a task: { "pending": [task…] })',
  run: (ctx) => resolveTask(ctx, 'approve'),
};
