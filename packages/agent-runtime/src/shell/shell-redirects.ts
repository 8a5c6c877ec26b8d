import { TrustError } from '@trust/core';
import type { Redirect, Word } from './shell-ast.js';
import { expandString } from './shell-expand.js';
import type { Interp } from './shell-interp.js';
import type { BufferSink, ExpandScope, Io, RunState } from './shell-state.js';
import { EXIT_REJECTED } from './shell-types.js';
import type { ShellSink } from './shell-types.js';
import { fileContent } from './file-content.js';

/** Output of a `>`/`>>` redirect, kept until the command has run and then written through fs_write. */
export interface PendingWrite {
  readonly path: string;
  readonly append: boolean;
  readonly sink: BufferSink;
}

/** A statement's redirects, resolved: its streams and what it must read and write through tools. */
export interface Redirected {
  readonly kind: 'redirected';
  readonly stdin: string;
  readonly out: ShellSink;
  readonly err: ShellSink;
  readonly writes: readonly PendingWrite[];
  /** Tools the redirects need (`fs_read`, `fs_write`); they join the command's at the choke point. */
  readonly tools: readonly string[];
  /** Files `<` reads, in order, once the tools are preflighted. */
  readonly reads: readonly string[];
}

/** A redirect that was not opened: `status` is the statement's exit status. */
export interface RedirectFailed {
  readonly kind: 'failed';
  readonly status: number;
}

/** Writes an error line and returns `status`. */
export const fail = (io: Io, message: string, status: number): number => {
  io.err.write(`adf_shell: ${message}\n`);
  return status;
};

/**
 * Resolves a statement's redirects in order, expanding targets but touching no file: reads and
 * writes happen through tools only after the choke point has preflighted them.
 */
export async function resolveRedirects(
  ip: Interp,
  redirs: readonly Redirect[],
  io: Io,
  scope: ExpandScope,
  st: RunState,
): Promise<Redirected | RedirectFailed> {
  const subst = ip.subst(io, scope, st);
  let stdin = io.stdin;
  let out = io.out;
  let err = io.err;
  const writes: PendingWrite[] = [];
  const redirTools: string[] = [];
  const reads: string[] = [];
  for (const r of redirs) {
    const op = ip.syntax.ops.redirect.get(r.Op);
    const fd = r.N ? r.N.Value : undefined;
    if (fd !== undefined && fd !== '0' && fd !== '1' && fd !== '2')
      throw new TrustError(
        'SHELL_UNSUPPORTED',
        `adf_shell: unsupported syntax: file descriptor ${fd} (only 0, 1 and 2 exist)`,
      );
    if (op === '<<' || op === '<<-') {
      const quotedDelim = r.Word.Parts.some((p) => p.type !== 'Lit');
      let body = r.Hdoc
        ? quotedDelim
          ? literalWord(r.Hdoc)
          : await expandString(r.Hdoc, scope, ip.syntax, subst)
        : '';
      if (op === '<<-') body = body.replace(/^\t+/gm, '');
      stdin = body;
      continue;
    }
    scope.substStatus = undefined;
    const target =
      op === '<<<'
        ? `${await expandString(r.Word, scope, ip.syntax, subst)}\n`
        : await expandString(r.Word, scope, ip.syntax, subst);
    // A redirect built from a failed (or refused) substitution is not opened at all.
    if (scope.substStatus !== undefined && scope.substStatus !== 0)
      return {
        kind: 'failed',
        status: fail(
          io,
          `redirect target not used: its command substitution failed with status ${scope.substStatus}`,
          scope.substStatus,
        ),
      };
    if (op === '<<<') {
      stdin = target;
      continue;
    }
    if (op === '>&' || op === '<&') {
      if (op === '>&' && (fd === undefined || fd === '1') && target === '2') out = err;
      else if (op === '>&' && fd === '2' && target === '1') err = out;
      else if (op === '>&' && (target === '1' || target === '2')) {
        /* 1>&1, 2>&2 */
      } else if (target === '-') {
        if (fd === '2') err = ip.nullSink;
        else if (op === '>&') out = ip.nullSink;
        else stdin = '';
      } else if (op === '>&' && fd === undefined && !/^[0-9]+$/.test(target)) {
        out = err = redirectTo(ip, target, false, writes, redirTools);
      } else if (op === '<&' && target === '0') {
        /* <&0 */
      } else
        throw new TrustError(
          'SHELL_UNSUPPORTED',
          `adf_shell: unsupported syntax: redirect ${fd ?? ''}${op}${target} (only 1 and 2 can be duplicated)`,
        );
      continue;
    }
    if (op === '<') {
      if (target === '/dev/null') {
        stdin = '';
        continue;
      }
      reads.push(target);
      redirTools.push('fs_read');
      continue;
    }
    if (op === '>' || op === '>>' || op === '>|' || op === '&>' || op === '&>>') {
      const s = redirectTo(ip, target, op === '>>' || op === '&>>', writes, redirTools);
      if (op === '&>' || op === '&>>') {
        out = s;
        err = s;
      } else if (fd === '2') err = s;
      else out = s;
      continue;
    }
    throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: unsupported syntax: redirect ${op ?? r.Op}`);
  }
  return { kind: 'redirected', stdin, out, err, writes, tools: redirTools, reads };
}

function redirectTo(ip: Interp, target: string, append: boolean, writes: PendingWrite[], tools: string[]): ShellSink {
  if (target === '/dev/null') return ip.nullSink;
  if (target === '') throw new TrustError('SHELL_REDIRECT', 'adf_shell: ambiguous redirect: the target is empty');
  const sink = ip.bufferSink();
  writes.push({ path: target, append, sink });
  tools.push('fs_write');
  return sink;
}

export const errorText = (e: unknown) => (e as Error)?.message ?? String(e);

export async function readFiles(ip: Interp, paths: readonly string[]): Promise<string> {
  let s = '';
  for (const p of paths) s += fileContent(await ip.call('fs_read', { path: p }));
  return s;
}

/** Writes redirect output through fs_write; returns a failure status (130 on a human's rejection) or 0. */
export async function flushWrites(ip: Interp, writes: readonly PendingWrite[], io: Io): Promise<number> {
  for (const w of writes) {
    try {
      await ip.call('fs_write', { path: w.path, content: w.sink.text(), mode: w.append ? 'append' : 'write' });
    } catch (e) {
      return fail(io, `${w.path}: ${errorText(e)}`, ip.isRejection(e) ? EXIT_REJECTED : 1);
    }
  }
  return 0;
}

function literalWord(word: Word): string {
  return word.Parts.map((p) => (p.type === 'Lit' ? p.Value : '')).join('');
}
