import type { CommandSpec } from '../command.js';
import { resolveTask } from './agent-approve.js';

export const command: CommandSpec = {
  name: 'agent deny',
  summary: 'deny a pending approval task',
  description:
    'Refuses a restricted tool call that an agent is waiting on, through the running `trust studio`\n' +
    '(the demo workspace unless --workspace). The feedback is shown to the model. Without a task id it\n' +
    'lists what is waiting.',
  positionals: [
    { name: 'task', description: 'the task id (or a unique prefix of 4+ characters); omit to list', required: false },
  ],
  options: {
    workspace: {
      type: 'string',
      valueName: 'dir',
      description: 'the workspace the studio runs on (default: the demo workspace)',
    },
    feedback: { type: 'string', valueName: 'text', description: 'why, for the model' },
  },
  examples: [
    { command: 'trust agent deny 7e6d --feedback "not that file"', explain: 'deny, and tell the agent why' },
    { command: 'trust agent deny --json', explain: 'list what is waiting, for a script' },
  ],
  jsonShape:
    '{ "task": { "id", "agent", "tool", "args", "reason", "status": "denied", ' +
    '"feedback"? } }  (without a task: { "pending": [task…] })',
  run: (ctx) => resolveTask(ctx, 'deny'),
};
