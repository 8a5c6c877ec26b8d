import type { CommandSpec } from '../command.js';
import { readAuditEvents, auditFormatOf } from '../audit-source.js';
import { escapeTerminal } from '../terminal-text.js';
import { resolve } from 'node:path';

interface Broken {
  index: number;
  line?: number;
  code: string;
  reason: string;
}

export const command: CommandSpec = {
  name: 'audit verify',
  summary: 'verify an audit hash chain and name the first broken link',
  description:
    'Every audit event carries the hash of the one before it, so an edited, deleted, inserted or\nreordered event breaks the chain. This recomputes every hash and names the first event (and,\nfor JSONL files, the line) where the chain breaks.',
  positionals: [{ name: 'file', description: 'a JSONL audit file (one event per line) or an agent .adf file' }],
  options: {},
  examples: [
    { command: 'trust audit verify ~/.trust/demo/audit.jsonl', explain: 'check a JSONL audit log' },
    { command: 'trust audit verify audit.jsonl --json | jq .result.broken', explain: 'the first broken link, for a script' },
  ],
  jsonShape: '{ "file": string, "format": "jsonl"|"adf", "ok": boolean, "count": number, "head"?: string, "broken"?: { "index": number, "line"?: number, "code": string, "reason": string } }',
  exitCodes: ['1 the chain is broken, or the file cannot be read (the first broken link is named)'],
  async run({ io, out, positionals }) {
    const path = positionals[0] as string;
    const full = resolve(io.cwd, path);
    const format = auditFormatOf(full);
    let result: { file: string; format: string; ok: boolean; count: number; head?: string; broken?: Broken };
    try {
      const { events } = await readAuditEvents(io.cwd, path);
      const { verifyChain } = await import('@trust/core');
      const verdict = verifyChain(events);
      result = verdict.ok
        ? { file: full, format, ok: true, count: verdict.count, head: verdict.head }
        : {
            file: full,
            format,
            ok: false,
            count: events.length,
            broken: { index: verdict.index, ...(format === 'jsonl' ? { line: verdict.index + 1 } : {}), code: verdict.code, reason: verdict.reason },
          };
    } catch (error) {
      // A line that is not an event at all is the first broken link too.
      const e = error as { code?: string; problems?: readonly { path?: string; message: string }[] };
      const first = e.code === 'AUDIT_FILE_CORRUPT' ? e.problems?.[0] : undefined;
      const line = first?.path ? Number(/line (\d+)/.exec(first.path)?.[1]) : NaN;
      if (!first || !Number.isInteger(line)) throw error;
      result = { file: full, format, ok: false, count: 0, broken: { index: line - 1, line, code: 'AUDIT_MALFORMED', reason: first.message } };
    }
    out.result(result);
    const s = out.style;
    const name = escapeTerminal(full);
    if (result.ok) {
      out.line(`${s.green('✓')} ${name}: ${result.count} event(s), the chain is intact (head ${result.head?.slice(0, 16)}…)`);
      return 0;
    }
    const b = result.broken as Broken;
    out.line(`${s.red('✗')} ${name}: the chain breaks at event ${b.index}${b.line ? ` (line ${b.line})` : ''}`);
    out.line(`  ${s.red(b.code)}: ${escapeTerminal(b.reason)}`);
    out.line(`  ${s.cyan('hint')}: events before it are intact; keep the file as evidence and find out who changed it`);
    return 1;
  },
};
