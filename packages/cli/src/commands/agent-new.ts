import { existsSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { CommandSpec } from '../command.js';
import { loadOrCreateOwnerIdentity } from '../owner-identity.js';
import { stringOption } from '../args.js';
import { CliError } from '../cli-error.js';
import { parseJsonFile, readInputFile } from '../read-input-file.js';
import { escapeTerminal } from '../terminal-text.js';
import { trustHome } from '../trust-home.js';

export const command: CommandSpec = {
  name: 'agent new',
  summary: 'create an agent file (.adf)',
  description:
    'Creates an .adf agent file (one SQLite file: config, loop, files, tasks, audit). Templates:\n' +
    '  default     the built-in tools with their safe default flags\n' +
    '  restricted  like default, but every enabled tool that writes or reaches out needs your approval\n' +
    '  <file.json> your own config (validated; unknown keys are errors)\n' +
    '\n' +
    'Every agent gets its identity at creation: an Ed25519 key and a did:key, the private key sealed\n' +
    'to your owner and runtime keys (kept in <trust home>/identity-keys.json, mode 0600, created on\n' +
    'first use; the trust home is $TRUST_HOME or ~/.trust). Without those keys the agent cannot sign.',
  positionals: [{ name: 'file', description: 'the .adf file to create' }],
  options: {
    template: {
      type: 'string',
      valueName: 'name|file',
      description: 'default (the default), restricted, or a JSON config file',
    },
    name: { type: 'string', valueName: 'name', description: 'display name (default: the file name)' },
  },
  examples: [
    { command: 'trust agent new helper.adf', explain: 'an agent with the default tool flags' },
    {
      command: 'trust agent new careful.adf --template restricted',
      explain: 'every write or network tool waits for your approval',
    },
    { command: 'trust agent new bot.adf --template bot-config.json', explain: 'from your own config' },
  ],
  jsonShape:
    '{ "file": string, "name": string, "did": string, "template": string, "tools": number, "restricted": string[] }',
  async run({ io, out, values, positionals }) {
    const file = resolve(io.cwd, positionals[0] as string);
    if (existsSync(file))
      throw new CliError('CLI_FILE_EXISTS', `${file} already exists`, {
        hint: 'choose another file name; an agent file is never overwritten',
      });
    const { createAdf, defaultAgentConfig, loadOrCreateIdentityKeys, provisionAgentIdentity, signAdfContent } =
      await import('@trust/agent-runtime');
    // Read (or create) the keys first: a bad key file stops here, before any agent file exists.
    const keys = loadOrCreateIdentityKeys(join(trustHome(io.env), 'identity-keys.json'));
    const owner = await loadOrCreateOwnerIdentity(io.env);
    const name = stringOption(values, 'name') ?? basename(file).replace(/\.adf$/i, '');
    const template = stringOption(values, 'template') ?? 'default';
    let config: Record<string, unknown>;
    if (template === 'default' || template === 'restricted') {
      config = structuredClone(defaultAgentConfig({ name })) as unknown as Record<string, unknown>;
      if (template === 'restricted') {
        const risky: ReadonlySet<string> = new Set([
          'fs_write',
          'fs_delete',
          'db_execute',
          'sys_fetch',
          'ws_connect',
          'ws_send',
          'sys_code',
          'sys_lambda',
          'adf_shell',
          'msg_send',
          'sys_update_config',
          'sys_set_meta',
        ]);
        config.tools = (config.tools as { name: string; enabled: boolean }[]).map((t) =>
          risky.has(t.name) && t.enabled ? { ...t, restricted: true } : t,
        );
      }
    } else {
      const doc = parseJsonFile(await readInputFile(io.cwd, template, 'agent template'), template, 'agent template');
      config = { name, ...(doc as Record<string, unknown>) };
    }
    await mkdir(dirname(file), { recursive: true });
    const adf = createAdf(file, { template: config });
    let did: string;
    try {
      did = provisionAgentIdentity(adf, keys, { kind: 'owner', id: 'cli' }).did;
    } catch (e) {
      adf.close();
      rmSync(file, { force: true });
      throw e;
    }
    const created = adf.config();
    try {
      // The file is the owner's from the start: signed by them, so chat runs it without a review.
      signAdfContent(adf, owner);
    } finally {
      adf.close();
    }
    const restricted = created.tools.filter((t) => t.restricted === true).map((t) => t.name);
    out.result({ file, name: created.name, did, template, tools: created.tools.length, restricted });
    out.line(
      `${out.style.green('created')} agent ${escapeTerminal(created.name)} ` +
        `in ${escapeTerminal(file)} (${created.tools.length} tool declarations, ${restricted.length} ` +
        `restricted)`,
    );
    out.line(`  identity ${escapeTerminal(did)}`);
    out.line(`next: trust agent inspect ${escapeTerminal(positionals[0] as string)}`);
    return 0;
  },
};
