import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { CommandSpec } from '../command.js';
import { choiceOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { demoAnswer } from '../demo-workspace.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'agent chat',
  summary: 'chat with an agent in the terminal, with approval prompts',
  description:
    'Runs the agent loop on an .adf file in your terminal: each line you type is a message. A restricted\ntool call stops and asks you (y approves, anything else denies); prompts show the exact tool and\narguments, escaped. When stdin is not a terminal, every approval is denied (a non-interactive\nprompt never says yes). The scripted provider is the offline demo brain (it asks to save your\nmessage with fs_write); the OpenAI-compatible and Anthropic providers are not wired into the CLI yet.',
  positionals: [{ name: 'file', description: 'the .adf agent file' }],
  options: {
    provider: { type: 'string', valueName: 'name', description: 'scripted (default; no model is called) | openai | anthropic (not available yet)' },
  },
  examples: [
    { command: 'trust agent new careful.adf --template restricted && trust agent chat careful.adf', explain: 'chat with a new agent; approve its writes as they come' },
    { command: "printf 'hello\\n' | trust agent chat careful.adf --json", explain: 'non-interactive: approvals are denied, turns come back as JSON' },
  ],
  jsonShape: '{ "file": string, "provider": string, "turns": [{ "role", "content" }], "approvals": [{ "tool", "args", "decision": "approve"|"deny" }] }',
  async run({ io, out, values, positionals }) {
    const file = resolve(io.cwd, positionals[0] as string);
    if (!existsSync(file)) throw new CliError('CLI_FILE_NOT_FOUND', `${file} does not exist`, { hint: 'create one with `trust agent new <file.adf>`' });
    const provider = choiceOption(values, 'provider', ['scripted', 'openai', 'anthropic'] as const) ?? 'scripted';
    if (provider !== 'scripted') {
      throw new CliError('NOT_IMPLEMENTED', `the ${provider} provider is not wired into trust agent chat yet`, { hint: 'use --provider scripted (the offline demo) for now' });
    }
    const rt = await import('@trust/agent-runtime');
    const interactive = io.stdin.isTTY === true && !out.json;
    const rl = createInterface({ input: io.stdin, terminal: false });
    const lines: string[] = [];
    const waiters: ((line: string | undefined) => void)[] = [];
    let closed = false;
    rl.on('line', (l) => (waiters.length ? waiters.shift()?.(l) : lines.push(l)));
    rl.on('close', () => {
      closed = true;
      while (waiters.length) waiters.shift()?.(undefined);
    });
    const nextLine = () => (lines.length ? Promise.resolve(lines.shift()) : closed ? Promise.resolve(undefined) : new Promise<string | undefined>((r) => waiters.push(r)));
    const approvals: { tool: string; args: unknown; decision: 'approve' | 'deny' }[] = [];
    const s = out.style;
    const agent = rt.openAgent(file, {
      provider: rt.createScriptedProvider(Array.from({ length: 10_000 }, () => demoAnswer)),
      approver: {
        async request(req) {
          const task = req.task;
          out.line(`${s.yellow('approval needed')}: ${escapeTerminal(req.prompt, { multiline: true })}`);
          out.line(`  tool ${escapeTerminal(task.tool)} args ${escapeTerminal(JSON.stringify(task.args))}`);
          let decision: 'approve' | 'deny' = 'deny';
          if (interactive) {
            io.stdout.write('  approve? [y/N] ');
            const answer = (await nextLine())?.trim().toLowerCase();
            decision = answer === 'y' || answer === 'yes' ? 'approve' : 'deny';
          } else {
            out.line('  stdin is not a terminal: denied');
          }
          approvals.push({ tool: task.tool, args: task.args, decision });
          return decision === 'approve' ? { decision } : { decision, feedback: interactive ? 'the owner said no' : 'no interactive owner to approve' };
        },
      },
      onEvent: (e) => {
        if (e.kind === 'text' || e.kind === 'say') out.line(`${s.cyan('agent')}: ${escapeTerminal(e.text, { multiline: true })}`);
        if (e.kind === 'tool_result') out.line(s.dim(`  ${escapeTerminal(e.name)} ${e.isError ? 'failed' : 'done'}`));
      },
    });
    const before = agent.adf.loop.list().at(-1)?.seq ?? -1;
    out.line(s.dim(`chatting with ${escapeTerminal(agent.adf.config().name)} (provider: ${rt.SCRIPTED_LABEL}); end with Ctrl-D`));
    try {
      for (;;) {
        if (interactive) io.stdout.write(`${s.bold('you')}> `);
        const text = await nextLine();
        if (text === undefined || io.signal.aborted) break;
        if (text.trim() === '') continue;
        await agent.send(text);
      }
      const turns = agent.adf.loop.list({ afterSeq: before }).map((t) => ({ role: t.role, content: t.content }));
      out.result({ file, provider, turns, approvals });
      return 0;
    } finally {
      rl.close();
      agent.close();
    }
  },
};
