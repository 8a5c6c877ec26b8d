import type { CliIo } from './io.js';
import { escapeTerminal } from './terminal-text.js';
import { createStyle, shouldColor, type Style } from './style.js';
import { exitCodeFor } from './exit-code.js';
import { cliHint } from './cli-hints.js';

/** Version of every JSON document and JSON line `trust` prints. */
export const JSON_FORMAT_VERSION = 1;

/**
 * How a command writes. In `--json` mode `line` prints nothing and `result` prints one JSON
 * document on stdout; in human mode `result` prints nothing and `line` prints text. Progress and
 * warnings always go to stderr, so stdout stays clean for pipes.
 */
export interface Output {
  readonly json: boolean;
  /** Style for stdout (colour only when stdout is a TTY and NO_COLOR is unset). */
  readonly style: Style;
  /** Style for stderr. */
  readonly errStyle: Style;
  /** Prints a line of human output (already escaped by the caller where untrusted). */
  line(text?: string): void;
  /** Prints the command's JSON result document (json mode only). */
  result(data: unknown): void;
  /** Prints one JSON line for streaming commands (json mode only). */
  event(data: unknown): void;
  /** A progress line on stderr, e.g. `› packing plugin`. */
  progress(message: string): void;
  /** A warning on stderr. */
  warn(message: string): void;
}

/** Creates the output for one command run. */
export function createOutput(
  io: CliIo,
  options: { json: boolean; command: string; color?: boolean | undefined },
): Output {
  const style = createStyle(shouldColor({ env: io.env, isTTY: io.stdout.isTTY === true, flag: options.color }));
  const errStyle = createStyle(shouldColor({ env: io.env, isTTY: io.stderr.isTTY === true, flag: options.color }));
  return {
    json: options.json,
    style,
    errStyle,
    line(text = '') {
      if (!options.json) io.stdout.write(`${text}\n`);
    },
    result(data) {
      if (options.json) {
        io.stdout.write(
          `${JSON.stringify({ v: JSON_FORMAT_VERSION, ok: true, command: options.command, result: data })}\n`,
        );
      }
    },
    event(data) {
      if (options.json) io.stdout.write(`${JSON.stringify(data)}\n`);
    },
    progress(message) {
      io.stderr.write(`${errStyle.dim('›')} ${message}\n`);
    },
    warn(message) {
      io.stderr.write(`${errStyle.yellow('warning')}: ${message}\n`);
    },
  };
}

interface ErrorLike {
  code?: unknown;
  message?: unknown;
  hint?: unknown;
  problems?: unknown;
}

/** The JSON shape of a failed command (`ok: false`). */
export interface JsonError {
  readonly code: string;
  readonly message: string;
  readonly hint?: string;
  readonly exitCode: number;
  readonly problems?: readonly { code: string; message: string; hint?: string; path?: string }[];
}

/** Normalises any thrown value into the printed error shape. */
export function toJsonError(error: unknown): JsonError {
  const e = (typeof error === 'object' && error !== null ? error : { message: String(error) }) as ErrorLike;
  const out: { -readonly [K in keyof JsonError]: JsonError[K] } = {
    code: typeof e.code === 'string' ? e.code : 'CLI_INTERNAL',
    message: typeof e.message === 'string' ? e.message : String(error),
    exitCode: exitCodeFor(error),
  };
  if (typeof e.hint === 'string') out.hint = cliHint(e.hint);
  if (Array.isArray(e.problems) && e.problems.length > 0) {
    out.problems = e.problems.map((p: Record<string, unknown>) => {
      const item: { code: string; message: string; hint?: string; path?: string } = {
        code: String(p.code ?? ''),
        message: String(p.message ?? ''),
      };
      if (typeof p.hint === 'string') item.hint = cliHint(p.hint);
      if (typeof p.path === 'string') item.path = p.path;
      return item;
    });
  }
  return out;
}

/**
 * The message without a closing clause that repeats the hint (`…; add "x" to the allow list` is
 * printed once, on the hint line). The JSON document keeps the whole message.
 */
function withoutHint(message: string, hint: string | undefined): string {
  if (!hint || !message.endsWith(hint) || message.length === hint.length) return message;
  return message.slice(0, -hint.length).replace(/[\s;:,.—-]+$/, '');
}

/**
 * Prints an error: in json mode one `{ v, ok: false, command, error }` document on stdout;
 * otherwise `error[CODE]: reason` plus `hint:` lines on stderr, red only on a TTY. Every part
 * is escaped, since messages may quote untrusted input. Returns the exit code.
 */
export function printError(
  io: CliIo,
  error: unknown,
  options: { json: boolean; command: string; color?: boolean | undefined },
): number {
  const e = toJsonError(error);
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ v: JSON_FORMAT_VERSION, ok: false, command: options.command, error: e })}\n`);
    return e.exitCode;
  }
  const s = createStyle(shouldColor({ env: io.env, isTTY: io.stderr.isTTY === true, flag: options.color }));
  const message = escapeTerminal(withoutHint(e.message, e.hint), { multiline: true });
  const lines = [`${s.red(s.bold(`error[${escapeTerminal(e.code)}]`))}: ${message}`];
  for (const p of e.problems ?? []) {
    const where = p.path ? ` (at ${escapeTerminal(p.path)})` : '';
    lines.push(`  - ${escapeTerminal(p.code)}${where}: ${escapeTerminal(p.message)}`);
    if (p.hint) lines.push(`    fix: ${escapeTerminal(p.hint)}`);
  }
  if (e.hint) lines.push(`  ${s.cyan('hint')}: ${escapeTerminal(e.hint, { multiline: true })}`);
  if (e.code === 'CLI_INTERNAL' && error instanceof Error && io.env.TRUST_DEBUG) {
    const stack = error.cause instanceof Error ? error.cause.stack : error.stack;
    if (stack) lines.push(escapeTerminal(stack, { multiline: true }));
  }
  io.stderr.write(`${lines.join('\n')}\n`);
  return e.exitCode;
}
