import type { ShellCommand } from '../shell-types.js';
import { fileContent } from '../file-content.js';
import { mcpToolName } from '../../gate/mcp-name.js';
import { lines } from './text.js';

// Agent-domain commands: each resolves, from its argv alone, to the agent tool it calls, so the
// choke point gates exactly that tool (an MCP call is gated under its resolved mcp_<server>_<tool>).

const json = (v: unknown) => `${typeof v === 'string' ? v : JSON.stringify(v, null, 2)}\n`;
const option = (argv: readonly string[], name: string): string | undefined => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const positional = (argv: readonly string[], withValue: readonly string[]): string[] => {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (withValue.includes(argv[i]!)) {
      i++;
      continue;
    }
    if (!argv[i]!.startsWith('--')) out.push(argv[i]!);
  }
  return out;
};

const MSG_TOOLS: Readonly<Record<string, string>> = { send: 'msg_send', read: 'msg_read', list: 'msg_list' };

export const msg: ShellCommand = {
  name: 'msg',
  summary:
    'mail: msg send DID [--subject S] [--thread T] [TEXT|stdin] (→ msg_send); msg list [--status S] [--limit ' +
    'N] (→ msg_list); msg read ID (→ msg_read)',
  tools: (argv) => {
    const t = MSG_TOOLS[argv[0] ?? ''];
    return t ? [t] : [];
  },
  async run(ctx, argv) {
    const [sub, ...rest] = argv;
    if (sub === 'send') {
      const [to, ...words] = positional(rest, ['--subject', '--thread', '--parent', '--address']);
      if (!to) {
        ctx.err.write('usage: msg send DID [--subject S] [TEXT]\n');
        return 2;
      }
      const content = words.length ? words.join(' ') : ctx.stdin;
      const args: Record<string, unknown> = { to, content };
      for (const k of ['subject', 'thread', 'parent', 'address']) {
        const v = option(rest, `--${k}`);
        if (v !== undefined) args[k] = v;
      }
      if (rest.includes('--encrypt')) args.encrypt = true;
      ctx.out.write(json(await ctx.tool('msg_send', args)));
      return 0;
    }
    if (sub === 'list') {
      const args: Record<string, unknown> = {};
      const status = option(rest, '--status');
      if (status) args.status = status;
      const limit = option(rest, '--limit');
      if (limit) args.limit = Number(limit);
      ctx.out.write(json(await ctx.tool('msg_list', args)));
      return 0;
    }
    if (sub === 'read') {
      if (!rest[0]) {
        ctx.err.write('usage: msg read ID\n');
        return 2;
      }
      ctx.out.write(json(await ctx.tool('msg_read', { id: rest[0] })));
      return 0;
    }
    ctx.err.write('usage: msg send|list|read …\n');
    return 2;
  },
};

export const config: ShellCommand = {
  name: 'config',
  summary:
    'own config: config get [SECTION] (→ sys_get_config); config set|append|remove PATH [JSON] (→ sys_update_config)',
  tools: (argv) =>
    argv[0] === 'get'
      ? ['sys_get_config']
      : ['set', 'append', 'remove'].includes(argv[0] ?? '')
        ? ['sys_update_config']
        : [],
  async run(ctx, argv) {
    const [sub, path, raw] = argv;
    if (sub === 'get') {
      ctx.out.write(json(await ctx.tool('sys_get_config', path ? { section: path } : {})));
      return 0;
    }
    if ((sub === 'set' || sub === 'append' || sub === 'remove') && path) {
      let value: unknown = raw;
      if (raw !== undefined) {
        try {
          value = JSON.parse(raw);
        } catch {
          value = raw;
        }
      }
      ctx.out.write(
        json(await ctx.tool('sys_update_config', { path, op: sub, ...(raw !== undefined ? { value } : {}) })),
      );
      return 0;
    }
    ctx.err.write('usage: config get [SECTION] | config set|append|remove PATH [JSON]\n');
    return 2;
  },
};

export const mcp: ShellCommand = {
  name: 'mcp',
  summary: 'MCP: mcp call SERVER TOOL [JSON|stdin] (→ mcp_<server>_<tool>); mcp servers (→ sys_get_config)',
  tools: (argv) =>
    argv[0] === 'call' && argv[1] && argv[2]
      ? [mcpToolName(argv[1], argv[2])]
      : argv[0] === 'servers'
        ? ['sys_get_config']
        : [],
  async run(ctx, argv) {
    const [sub, server, tool, raw] = argv;
    if (sub === 'servers') {
      ctx.out.write(json(await ctx.tool('sys_get_config', { section: 'mcp' })));
      return 0;
    }
    if (sub !== 'call' || !server || !tool) {
      ctx.err.write('usage: mcp call SERVER TOOL [JSON] | mcp servers\n');
      return 2;
    }
    const text = raw ?? (ctx.stdin.trim() || '{}');
    let args: unknown;
    try {
      args = JSON.parse(text);
    } catch {
      ctx.err.write('mcp: the arguments must be a JSON object\n');
      return 2;
    }
    if (typeof args !== 'object' || args === null || Array.isArray(args)) {
      ctx.err.write('mcp: the arguments must be a JSON object\n');
      return 2;
    }
    ctx.out.write(json(await ctx.tool(mcpToolName(server, tool), args as Record<string, unknown>)));
    return 0;
  },
};

const UNITS: Readonly<Record<string, number>> = {
  second: 1000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
  week: 604_800_000,
};

export const at: ShellCommand = {
  name: 'at',
  summary: 'one-shot timer whose payload is stdin: at now + N minutes|hours|days, or at ISO-TIME (→ sys_set_timer)',
  tools: () => ['sys_set_timer'],
  async run(ctx, argv) {
    const spec = argv.join(' ').trim();
    const rel = /^now\s*\+\s*([0-9]+)\s*(second|minute|hour|day|week)s?$/i.exec(spec);
    const payload = ctx.stdin.replace(/\n$/, '');
    let args: Record<string, unknown>;
    if (rel) args = { kind: 'delay', ms: Number(rel[1]) * UNITS[rel[2]!.toLowerCase()]!, payload };
    else if (spec && !Number.isNaN(new Date(spec).getTime()))
      args = { kind: 'once', at: new Date(spec).toISOString(), payload };
    else {
      ctx.err.write('usage: echo PAYLOAD | at now + N minutes|hours|days  (or at ISO-TIME)\n');
      return 1;
    }
    ctx.out.write(json(await ctx.tool('sys_set_timer', args)));
    return 0;
  },
};

export const crontab: ShellCommand = {
  name: 'crontab',
  summary:
    'crontab -l lists timers (→ sys_list_timers); crontab FILE|- adds one cron timer per "m h dom mon dow ' +
    'payload" line (→ sys_set_timer; FILE → fs_read); existing timers are kept',
  tools: (argv) =>
    argv[0] === '-l'
      ? ['sys_list_timers']
      : argv[0] === '-' || argv.length === 0
        ? ['sys_set_timer']
        : ['fs_read', 'sys_set_timer'],
  async run(ctx, argv) {
    if (argv[0] === '-l') {
      ctx.out.write(json(await ctx.tool('sys_list_timers', {})));
      return 0;
    }
    if (argv[0]?.startsWith('-') && argv[0] !== '-') {
      ctx.err.write(`crontab: option ${argv[0]} is not supported (supported: -l, FILE, -)\n`);
      return 1;
    }
    const text = argv[0] && argv[0] !== '-' ? fileContent(await ctx.tool('fs_read', { path: argv[0] })) : ctx.stdin;
    for (const line of lines(text)) {
      if (!line.trim() || line.trim().startsWith('#')) continue;
      const m = /^\s*(@\w+|\S+\s+\S+\s+\S+\s+\S+\s+\S+)\s+(.*)$/.exec(line);
      if (!m) {
        ctx.err.write(`crontab: bad line: ${line}\n`);
        return 1;
      }
      ctx.out.write(json(await ctx.tool('sys_set_timer', { kind: 'cron', cron: m[1], payload: m[2] })));
    }
    return 0;
  },
};
