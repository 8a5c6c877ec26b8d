import type { ShellCommand } from '../shell-types.js';
import { fileContent } from '../file-content.js';
import { parseArgs } from './text.js';

const CURL_VALUE_FLAGS = ['X', 'H', 'd', 'o'];

export const curl: ShellCommand = {
  name: 'curl',
  summary: 'HTTP request: -X -H -d -o -i -s -f (→ sys_fetch; -o → fs_write)',
  tools: (argv) =>
    parseArgs(
      argv.map((a) => (a === '--output' ? '-o' : a)),
      CURL_VALUE_FLAGS,
    ).flags.has('o')
      ? ['sys_fetch', 'fs_write']
      : ['sys_fetch'],
  async run(ctx, argv) {
    const headers: Record<string, string> = {};
    const rest: string[] = [];
    let method: string | undefined;
    let body: string | undefined;
    let outFile: string | undefined;
    let include = false;
    let failOnError = false;
    const longs: Readonly<Record<string, string>> = {
      '--request': 'X',
      '--header': 'H',
      '--data': 'd',
      '--data-raw': 'd',
      '--output': 'o',
      '--include': 'i',
      '--fail': 'f',
      '--silent': 's',
      '--show-error': 'S',
      '--location': 'L',
    };
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      if (!a.startsWith('-') || a === '-') {
        rest.push(a);
        continue;
      }
      // short flags combine (-sSL, -so FILE, -XPOST): a value flag takes the rest of the word or the next one
      const letters = a.startsWith('--') ? (longs[a] ?? '') : a.slice(1);
      if (!letters) {
        ctx.err.write(`curl: option ${a} is not supported\n`);
        return 2;
      }
      for (let j = 0; j < letters.length; j++) {
        const f = letters[j]!;
        if (CURL_VALUE_FLAGS.includes(f)) {
          const v = letters.slice(j + 1) || argv[++i] || '';
          if (f === 'X') method = v;
          else if (f === 'H') {
            const k = v.indexOf(':');
            if (k > 0) headers[v.slice(0, k).trim()] = v.slice(k + 1).trim();
          } else if (f === 'd') body = v;
          else outFile = v;
          break;
        }
        if (f === 'i') include = true;
        else if (f === 'f') failOnError = true;
        else if (f === 's' || f === 'S' || f === 'L') {
          /* sys_fetch always follows redirects, up to its limit */
        } else {
          ctx.err.write(`curl: option -${f} is not supported\n`);
          return 2;
        }
      }
    }
    if (rest.length !== 1) {
      ctx.err.write('usage: curl [-X M] [-H h] [-d body] [-o file] URL\n');
      return 2;
    }
    const r = (await ctx.tool('sys_fetch', {
      url: rest[0],
      method: method ?? (body !== undefined ? 'POST' : 'GET'),
      headers,
      ...(body !== undefined ? { body } : {}),
    })) as { status?: number; body?: string; headers?: Record<string, string> };
    const text = typeof r?.body === 'string' ? r.body : '';
    const head = include
      ? `HTTP ${r?.status ?? ''}\n${Object.entries(r?.headers ?? {})
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n')}\n\n`
      : '';
    if (outFile) await ctx.tool('fs_write', { path: outFile, content: text, mode: 'write' });
    else ctx.out.write(head + text);
    return failOnError && (r?.status ?? 0) >= 400 ? 22 : 0;
  },
};

const isReadSql = (sql: string) =>
  /^\s*(select|with|explain|values)\b/i.test(sql) && !/^\s*with\b[\s\S]*\b(insert|update|delete|replace)\b/i.test(sql);

export const sqlite3: ShellCommand = {
  name: 'sqlite3',
  summary: 'SQL on the agent database: reads → db_query, writes → db_execute (-json)',
  tools: (argv) => {
    const sql = parseArgs(argv).operands.at(-1);
    if (sql === undefined || parseArgs(argv).operands.length === 0) return ['db_query', 'db_execute'];
    return isReadSql(sql) ? ['db_query'] : ['db_execute'];
  },
  async run(ctx, argv) {
    const { flags, operands } = parseArgs(argv);
    // `sqlite3 [DB] SQL`: the database is always the agent's own; a DB name is ignored.
    const sql = operands.length ? operands[operands.length - 1]! : ctx.stdin;
    if (!sql.trim()) {
      ctx.err.write('sqlite3: no SQL given\n');
      return 1;
    }
    if (isReadSql(sql)) {
      const r = (await ctx.tool('db_query', { sql })) as
        | { rows?: Array<Record<string, unknown>> }
        | Array<Record<string, unknown>>;
      const rows = Array.isArray(r) ? r : (r?.rows ?? []);
      ctx.out.write(
        flags.has('j') || argv.includes('-json')
          ? `${JSON.stringify(rows)}\n`
          : rows
              .map(
                (row) =>
                  `${Object.values(row)
                    .map((v) => (v === null ? '' : String(v)))
                    .join('|')}\n`,
              )
              .join(''),
      );
    } else {
      const r = (await ctx.tool('db_execute', { sql })) as { changes?: number };
      if (typeof r?.changes === 'number' && argv.includes('-changes')) ctx.out.write(`${r.changes}\n`);
    }
    return 0;
  },
};

export const node: ShellCommand = {
  name: 'node',
  summary: 'run JavaScript in the code sandbox: node -e CODE | node FILE (→ sys_code; FILE → fs_read)',
  tools: (argv) => (argv[0] === '-e' || argv[0] === '-p' ? ['sys_code'] : ['fs_read', 'sys_code']),
  async run(ctx, argv) {
    let code: string;
    if (argv[0] === '-e' || argv[0] === '-p')
      code = argv[0] === '-p' ? `return (${argv[1] ?? 'undefined'})` : (argv[1] ?? '');
    else if (argv[0]) code = fileContent(await ctx.tool('fs_read', { path: argv[0] }));
    else code = ctx.stdin;
    const r = (await ctx.tool('sys_code', { code })) as {
      value?: unknown;
      logs?: string[];
      ok?: boolean;
      error?: string;
    };
    for (const l of r?.logs ?? []) ctx.out.write(`${l.replace(/^\[(log|info|debug)\] /, '')}\n`);
    if (r?.error) {
      ctx.err.write(`${r.error}\n`);
      return 1;
    }
    if (argv[0] === '-p' && r?.value !== undefined && r.value !== null)
      ctx.out.write(`${typeof r.value === 'string' ? r.value : JSON.stringify(r.value)}\n`);
    return 0;
  },
};
