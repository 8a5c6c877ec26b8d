import { allow, deny } from '@trust/core';
import type { Decision } from '@trust/core';
import type { ShellGate } from './shell-types.js';

/**
 * An in-memory gate for shell tests: virtual files in a Map, a tool matrix (disabled,
 * restricted with a scripted human answer) and a log of every preflight and call.
 */
export interface FakeShellGate extends ShellGate {
  readonly files: Map<string, string>;
  readonly preflights: string[];
  readonly calls: Array<{ tool: string; args: Record<string, unknown> }>;
}

export function createFakeShellGate(
  options: {
    disabled?: string[];
    restricted?: Record<string, 'approve' | 'reject'>;
    files?: Record<string, string>;
    fetch?: (url: string) => { status: number; body: string };
  } = {},
): FakeShellGate {
  const files = new Map(Object.entries(options.files ?? {}));
  const preflights: string[] = [];
  const calls: Array<{ tool: string; args: Record<string, unknown> }> = [];
  const notFound = (path: string) => Object.assign(new Error(`${path}: not found`), { code: 'FS_NOT_FOUND' });
  const impl: Record<string, (a: Record<string, unknown>) => unknown> = {
    fs_read: (a) => {
      const c = files.get(String(a.path));
      if (c === undefined) throw notFound(String(a.path));
      return { path: a.path, content: c };
    },
    fs_write: (a) => {
      const p = String(a.path);
      files.set(p, a.mode === 'append' ? (files.get(p) ?? '') + String(a.content) : String(a.content));
      return { path: p };
    },
    fs_list: (a) => ({
      files: [...files.keys()]
        .filter((k) => k.startsWith(String(a.prefix ?? '')))
        .sort()
        .map((path) => ({ path, size: files.get(path)!.length })),
    }),
    fs_delete: (a) => {
      if (!files.delete(String(a.path))) throw notFound(String(a.path));
      return { deleted: a.path };
    },
    sys_fetch: (a) => ({
      ...(options.fetch?.(String(a.url)) ?? { status: 200, body: `fetched ${String(a.url)}` }),
      headers: {},
    }),
    db_query: (a) => ({ rows: [{ sql: a.sql, n: 1 }] }),
    db_execute: () => ({ changes: 1 }),
    sys_code: (a) => ({ value: `ran ${String(a.code).length} chars`, logs: ['[log] hello from code'] }),
  };
  return {
    files,
    preflights,
    calls,
    async preflight(tool): Promise<Decision> {
      preflights.push(tool);
      if (options.disabled?.includes(tool)) return deny('TOOL_DISABLED', `${tool} is disabled`);
      const r = options.restricted?.[tool];
      if (r === 'reject') return deny('APPROVAL_REJECTED', `the owner rejected ${tool}`);
      return allow(r ? 'approved' : 'enabled');
    },
    async call(tool, args) {
      calls.push({ tool, args });
      const f = impl[tool];
      if (!f) throw Object.assign(new Error(`no tool ${tool}`), { code: 'TOOL_UNKNOWN' });
      return f(args);
    },
  };
}
