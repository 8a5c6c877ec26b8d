import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { CommandSpec } from '../command.js';
import { loadOrCreateOwnerIdentity } from '../owner-identity.js';
import { choiceOption, stringOption } from '../args.js';
import type { OptionValues } from '../command.js';
import type { AuditEvent, AuditSink } from '@trust/core';
import { CliError } from '../cli-error.js';
import { escapeTerminal } from '../terminal-text.js';

export const command: CommandSpec = {
  name: 'agent chat',
  summary: 'chat with an agent in the terminal, with approval prompts',
  description:
    'Runs the agent loop on an .adf file in your terminal: each line you type is a message. A restricted\n' +
    'tool call stops and asks you (y approves, anything else denies); prompts show the exact tool and\n' +
    'arguments, escaped. When stdin is not a terminal, every approval is denied (a non-interactive\n' +
    'prompt never says yes).\n' +
    '\n' +
    "The provider is the agent's model.provider unless --provider says otherwise. scripted is the\n" +
    'offline demo brain (no model is called; it asks to save your message with fs_write). openai\n' +
    '(any OpenAI-compatible server) and anthropic go over HTTPS through the egress policy: the API key\n' +
    "is read from an environment variable (--api-key-env, else the agent's model.api_key_env, else\n" +
    'OPENAI_API_KEY / ANTHROPIC_API_KEY) and injected into requests to the model host only, so\n' +
    "neither the model nor the agent's code ever holds it. A model server on this machine or your LAN\n" +
    '(http://127.0.0.1:11434/v1, …) needs --allow-local-model; plain http is refused otherwise.',
  positionals: [{ name: 'file', description: 'the .adf agent file' }],
  options: {
    provider: {
      type: 'string',
      valueName: 'name',
      description: "scripted (no model is called) | openai | anthropic (default: the agent's model.provider)",
    },
    model: { type: 'string', valueName: 'id', description: "the model id (default: the agent's model.model_id)" },
    'base-url': {
      type: 'string',
      valueName: 'url',
      description: "the API root (default: the agent's model.base_url, else the provider's public API)",
    },
    'api-key-env': {
      type: 'string',
      valueName: 'NAME',
      description: 'the environment variable holding the API key (default OPENAI_API_KEY / ANTHROPIC_API_KEY)',
    },
    'allow-local-model': {
      type: 'boolean',
      description: 'let the model client reach this machine or your LAN (a local model server); off by default',
    },
  },
  examples: [
    {
      command: 'trust agent new careful.adf --template restricted && trust agent chat careful.adf',
      explain: 'chat with a new agent; approve its writes as they come',
    },
    {
      command: "printf 'hello\\n' | trust agent chat careful.adf --json",
      explain: 'non-interactive: approvals are denied, turns come back as JSON',
    },
    {
      command: 'OPENAI_API_KEY=sk-… trust agent chat careful.adf --provider openai --model gpt-4o-mini',
      explain: 'a real model; the key is injected at egress',
    },
    {
      command: 'ANTHROPIC_API_KEY=sk-ant-… trust agent chat careful.adf --provider anthropic --model claude-sonnet-4-5',
      explain: 'the Anthropic Messages API',
    },
    {
      command:
        'OPENAI_API_KEY=local trust agent chat careful.adf --provider openai --model ' +
        'llama3.2 --base-url http://127.0.0.1:11434/v1 --allow-local-model',
      explain: 'an OpenAI-compatible server on this machine',
    },
  ],
  jsonShape:
    '{ "file": string, "provider": "scripted"|"openai-compatible"|"anthropic", "model": string, ' +
    '"turns": [{ "role", "content" }], "approvals": [{ "tool", "args", "decision": ' +
    '"approve"|"deny" }], "egress": AuditEvent[] (one per model request; [] for scripted) }',
  exitCodes: [
    '2 the model cannot be set up: no API key in the environment, no model id, a ' +
      'local or clear-text base URL (the code, MODEL_*, says which)',
    '126 the egress policy or address guard denied the model request',
  ],
  async run({ io, out, values, positionals }) {
    const file = resolve(io.cwd, positionals[0] as string);
    const chosen = choiceOption(values, 'provider', ['scripted', 'openai', 'anthropic'] as const);
    if (!existsSync(file))
      throw new CliError('CLI_FILE_NOT_FOUND', `${file} does not exist`, {
        hint: 'create one with `trust agent new <file.adf>`',
      });
    const [rt, { demoAnswer, openModel }, { createMemoryAuditSink }] = await Promise.all([
      import('@trust/agent-runtime'),
      import('@trust/workspace'),
      import('@trust/core'),
    ]);
    // Review first: a foreign file's config (its model, its base_url) is not used before its owner accepted it.
    const owner = await loadOrCreateOwnerIdentity(io.env);
    const probe = rt.openAdf(file, { trust: 'foreign', readonly: true });
    let key: { contentHash: string; ownerDid: string | null };
    try {
      key = rt.reviewKeyOf(probe);
    } finally {
      probe.close();
    }
    if (key.ownerDid !== owner.did)
      throw new CliError(
        'ADF_REVIEW_REQUIRED',
        `${file} is foreign: it does not carry your signature over its current content ` +
          `(content ${key.contentHash.slice(0, 16)}…, signed by ${key.ownerDid ?? 'nobody valid'})`,
        { hint: `review what it can do, then accept it: trust agent review ${positionals[0] as string} --accept` },
      );
    // Every decision of the model client (one per request) is shown as it happens and returned in --json.
    const memory = createMemoryAuditSink();
    const egress: AuditEvent[] = [];
    const audit: AuditSink = {
      record(input) {
        const event = memory.record(input);
        egress.push(event);
        const s = out.style;
        const rule = event.rule ? ` (rule ${escapeTerminal(event.rule)})` : '';
        const code = event.code ? ` ${escapeTerminal(event.code)}` : '';
        out.line(
          s.dim(
            `  egress ${event.decision} ${escapeTerminal(event.action)} ${escapeTerminal(event.target)}${rule}${code}`,
          ),
        );
        return event;
      },
    };
    const model = await openModel(
      file,
      {
        ...(chosen === undefined ? {} : { provider: chosen === 'openai' ? 'openai-compatible' : chosen }),
        ...optionalString(values, 'model', 'model'),
        ...optionalString(values, 'base-url', 'baseUrl'),
        ...optionalString(values, 'api-key-env', 'apiKeyEnv'),
        allowLocal: values['allow-local-model'] === true,
      },
      io.env,
      () => rt.createScriptedProvider(Array.from({ length: 10_000 }, () => demoAnswer)),
      { audit },
    );
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
    const nextLine = () =>
      lines.length
        ? Promise.resolve(lines.shift())
        : closed
          ? Promise.resolve(undefined)
          : new Promise<string | undefined>((r) => waiters.push(r));
    const approvals: { tool: string; args: unknown; decision: 'approve' | 'deny' }[] = [];
    const s = out.style;
    const agent = rt.openAgent(file, {
      provider: model.provider,
      // A file without this owner's signature over its current content is refused (ADF_REVIEW_REQUIRED).
      owner,
      approver: {
        async request(req) {
          const task = req.task;
          // The prompt names the tool and its exact arguments (escaped); printed once.
          out.line(`${s.yellow('approval needed')}: ${escapeTerminal(req.prompt, { multiline: true })}`);
          let decision: 'approve' | 'deny' = 'deny';
          if (interactive) {
            io.stdout.write('  approve? [y/N] ');
            const answer = (await nextLine())?.trim().toLowerCase();
            decision = answer === 'y' || answer === 'yes' ? 'approve' : 'deny';
          } else {
            out.line('  stdin is not a terminal: denied');
          }
          approvals.push({ tool: task.tool, args: task.args, decision });
          return decision === 'approve'
            ? { decision }
            : { decision, feedback: interactive ? 'the owner said no' : 'no interactive owner to approve' };
        },
      },
      onEvent: (e) => {
        if (e.kind === 'text' || e.kind === 'say')
          out.line(`${s.cyan('agent')}: ${escapeTerminal(e.text, { multiline: true })}`);
        if (e.kind === 'tool_result') out.line(s.dim(`  ${escapeTerminal(e.name)} ${e.isError ? 'failed' : 'done'}`));
      },
    });
    const before = agent.adf.loop.list().at(-1)?.seq ?? -1;
    out.line(
      s.dim(
        `chatting with ${escapeTerminal(agent.adf.config().name)} ` +
          `(provider: ${escapeTerminal(model.describe)}); end with Ctrl-D`,
      ),
    );
    try {
      for (;;) {
        if (interactive) io.stdout.write(`${s.bold('you')}> `);
        const text = await nextLine();
        if (text === undefined || io.signal.aborted) break;
        if (text.trim() === '') continue;
        await agent.send(text);
      }
      const turns = agent.adf.loop.list({ afterSeq: before }).map((t) => ({ role: t.role, content: t.content }));
      out.result({ file, provider: model.provider.kind, model: model.provider.model, turns, approvals, egress });
      return 0;
    } finally {
      rl.close();
      agent.close();
      await model.close();
    }
  },
};

function optionalString<K extends string>(values: OptionValues, flag: string, key: K): Partial<Record<K, string>> {
  const v = stringOption(values, flag);
  return v === undefined ? {} : ({ [key]: v } as Record<K, string>);
}
