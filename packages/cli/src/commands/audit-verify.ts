import type { CommandSpec } from '../command.js';
import { readAuditEvents, auditFormatOf } from '../audit-source.js';
import { CliError, usageError } from '../cli-error.js';
import { unchainedRecordCount } from '../unchained-log.js';
import { escapeTerminal } from '../terminal-text.js';
import { resolve } from 'node:path';

interface Broken {
  index: number;
  line?: number;
  code: string;
  reason: string;
}

/**
 * `intact`: the chain verifies; `torn-tail`: only an incomplete last line (a crash or a full disk); `tampered`:
 * anything else.
 */
type State = 'intact' | 'torn-tail' | 'tampered';

interface Result {
  file: string;
  format: string;
  ok: boolean;
  state: State;
  count: number;
  head?: string;
  broken?: Broken;
  repaired?: { line: number; removedBytes: number; removed: string };
}

/** Shown removed bytes: enough to recognise them, escaped for the terminal. */
const preview = (text: string): string => escapeTerminal(text.length > 120 ? `${text.slice(0, 120)}…` : text);

export const command: CommandSpec = {
  name: 'audit verify',
  summary: 'verify an audit hash chain and name the first broken link',
  description:
    'Every audit event carries the hash of the one before it, so an edited, deleted, inserted or\n' +
    'reordered event breaks the chain. This recomputes every hash and names the first event (and,\n' +
    'for JSONL files, the line) where the chain breaks. An incomplete last line is what a crash or a\n' +
    'full disk leaves, not an edit: it is reported as a torn tail, and --repair removes only it.',
  positionals: [{ name: 'file', description: 'a JSONL audit file (one event per line) or an agent .adf file' }],
  options: {
    repair: {
      type: 'boolean',
      description:
        'remove an incomplete last line (JSONL only) and print what was removed; refused when anything else is wrong',
    },
  },
  examples: [
    { command: 'trust audit verify ~/.trust/demo/audit.jsonl', explain: 'check a JSONL audit log' },
    {
      command: 'trust audit verify audit.jsonl --json | jq .result.broken',
      explain: 'the first broken link, for a script',
    },
    {
      command: 'trust audit verify audit.jsonl --repair',
      explain: 'after a crash: remove the torn last line, then verify',
    },
  ],
  jsonShape:
    '{ "file": string, "format": "jsonl"|"adf", "ok": boolean, "state": "intact"|"torn-tail"|"tampered", ' +
    '"count": number, "head"?: string, "broken"?: { "index": number, "line"?: number, "code": string, ' +
    '"reason": string }, "repaired"?: { "line": number, "removedBytes": number, "removed": string } }',
  exitCodes: [
    '1 the chain is broken or the last line is torn (the first broken link is named), the file is not a chained ' +
      'log (CLI_AUDIT_NOT_CHAINED), or it cannot be read',
  ],
  async run({ io, out, positionals, values }) {
    const path = positionals[0] as string;
    const full = resolve(io.cwd, path);
    const format = auditFormatOf(full);
    const repair = values.repair === true;
    if (repair && format !== 'jsonl')
      throw usageError(
        'CLI_USAGE_INVALID_VALUE',
        '--repair applies to JSONL audit files only',
        'an .adf file is a database; check it with "trust audit verify agent.adf"',
      );
    const unchained = format === 'jsonl' ? readableUnchainedCount(full) : undefined;
    if (unchained !== undefined)
      throw new CliError(
        'CLI_AUDIT_NOT_CHAINED',
        `${full} is not a hash-chained audit log: none of its ${unchained} record(s) carries a hash, so there is ` +
          'no chain to verify (nothing here says it was changed)',
        {
          hint:
            "trust's sandbox run log (sandbox-runs.jsonl) records runs, not chained events; verify an audit log " +
            'such as <workspace>/audit.jsonl or an agent .adf file',
          exitCode: 1,
        },
      );
    const { verifyChain } = await import('@trust/core');
    let result: Result;
    try {
      const { events } = await readAuditEvents(io.cwd, path);
      const verdict = verifyChain(events);
      result = verdict.ok
        ? { file: full, format, ok: true, state: 'intact', count: verdict.count, head: verdict.head }
        : {
            file: full,
            format,
            ok: false,
            state: 'tampered',
            count: events.length,
            broken: {
              index: verdict.index,
              ...(format === 'jsonl' ? { line: verdict.index + 1 } : {}),
              code: verdict.code,
              reason: verdict.reason,
            },
          };
    } catch (error) {
      // A line that is not an event at all is the first broken link too.
      const e = error as { code?: string; problems?: readonly { code?: string; path?: string; message: string }[] };
      const first = e.code === 'AUDIT_FILE_CORRUPT' ? e.problems?.[0] : undefined;
      const line = first?.path ? Number(/line (\d+)/.exec(first.path)?.[1]) : NaN;
      if (!first || !Number.isInteger(line)) throw error;
      const broken = (code: string, reason: string): Broken => ({ index: line - 1, line, code, reason });
      if (e.problems?.length !== 1 || first.code !== 'AUDIT_TORN_TAIL') {
        result = {
          file: full,
          format,
          ok: false,
          state: 'tampered',
          count: 0,
          broken: broken('AUDIT_MALFORMED', first.message),
        };
      } else {
        const { repairJsonlAudit } = await import('@trust/core/node');
        let r: ReturnType<typeof repairJsonlAudit> | undefined;
        let refused: string | undefined;
        try {
          r = repairJsonlAudit(full, { dryRun: !repair });
        } catch (failure) {
          if ((failure as { code?: string }).code !== 'AUDIT_REPAIR_REFUSED') throw failure;
          refused = (failure as Error).message;
        }
        if (r === undefined) {
          result = {
            file: full,
            format,
            ok: false,
            state: 'tampered',
            count: 0,
            broken: broken('AUDIT_MALFORMED', refused ?? first.message),
          };
        } else if (r.changed) {
          const verdict = verifyChain((await readAuditEvents(io.cwd, path)).events);
          result = {
            file: full,
            format,
            ok: verdict.ok,
            state: verdict.ok ? 'intact' : 'tampered',
            count: verdict.ok ? verdict.count : r.count,
            ...(verdict.ok
              ? { head: verdict.head }
              : {
                  broken: { index: verdict.index, line: verdict.index + 1, code: verdict.code, reason: verdict.reason },
                }),
            repaired: { line: r.line as number, removedBytes: r.removedBytes, removed: r.removed },
          };
        } else {
          result = {
            file: full,
            format,
            ok: false,
            state: 'torn-tail',
            count: r.count,
            broken: broken('AUDIT_TORN_TAIL', first.message),
          };
        }
      }
    }
    out.result(result);
    const s = out.style;
    const name = escapeTerminal(full);
    if (result.repaired) {
      const rep = result.repaired;
      out.line(
        `${s.yellow('repaired')} ${name}: removed the incomplete line ${rep.line} ` +
          `(${rep.removedBytes} byte(s), never acknowledged): ${preview(rep.removed)}`,
      );
    }
    if (result.ok) {
      out.line(
        `${s.green('✓')} ${name}: ${result.count} event(s), the chain is intact (head ${result.head?.slice(0, 16)}…)`,
      );
      return 0;
    }
    const b = result.broken as Broken;
    if (result.state === 'torn-tail') {
      out.line(
        `${s.red('✗')} ${name}: the last line (line ${b.line}) is ` +
          `incomplete: a write was interrupted by a crash or a full disk`,
      );
      out.line(`  ${s.red(b.code)}: this is not tampering; the ${result.count} event(s) before it verify`);
      out.line(
        `  ${s.cyan('hint')}: run "trust audit verify ${escapeTerminal(path)} --repair" to remove only that line`,
      );
      return 1;
    }
    out.line(
      `${s.red('✗')} ${name}: the chain breaks at ` +
        `event ${b.index}${b.line ? ` (line ${b.line})` : ''}: the file was changed after it was ` +
        `written (not what a crash leaves)`,
    );
    out.line(`  ${s.red(b.code)}: ${escapeTerminal(b.reason)}`);
    out.line(`  ${s.cyan('hint')}: events before it are intact; keep the file as evidence and find out who changed it`);
    return 1;
  },
};

/** {@link unchainedRecordCount}, leaving an unreadable file to the reader's own coded error. */
function readableUnchainedCount(file: string): number | undefined {
  try {
    return unchainedRecordCount(file);
  } catch {
    return undefined;
  }
}
