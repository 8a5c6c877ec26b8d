import { TrustError } from '@trust/core';

/**
 * A command line its command cannot read (an option it does not implement, a missing value):
 * the command is refused with `status` (2, as GNU tools do for usage errors) and this message,
 * before anything runs.
 */
export class UsageError extends TrustError {
  constructor(
    message: string,
    readonly status = 2,
  ) {
    super('SHELL_USAGE', message, { hint: `run \`${message.split(':')[0]} --help\` for what it supports` });
  }
}

/**
 * The options a command implements, declared once: the choke point refuses any other with exit 2
 * before the command runs, and the command reads its argv with {@link parseOptions}.
 */
export interface OptionTable {
  /** Short options without a value, e.g. `'rnu'`. */
  readonly flags?: string;
  /** Short options with a value, attached (`-k2`) or the next word (`-k 2`). */
  readonly values?: string;
  /** Long options: `--name` → the key it sets (a short letter or its own name) and whether it takes a value. */
  readonly long?: Readonly<Record<string, { readonly key: string; readonly value?: boolean }>>;
  /** `-NUM` means `-KEY NUM` (head -5, tail -3). */
  readonly numeric?: string;
  /** Options end at the first operand (GNU otherwise reads them anywhere before `--`). */
  readonly stopAtOperand?: boolean;
}

/** A command line read by its table: the last value of each option, every value in order, and the operands. */
export interface ParsedOptions {
  readonly flags: ReadonlyMap<string, string>;
  readonly all: ReadonlyArray<readonly [string, string]>;
  readonly operands: readonly string[];
}

/**
 * Reads argv by a command's table; an option the table does not declare, or a missing value,
 * throws {@link UsageError} (exit 2) naming it.
 *
 * @example
 * ```ts
 * const { flags, operands } = parseOptions('sort', { flags: 'rnu', values: 'kt' }, ['-rk2', 'f.txt']);
 * // flags: r → '', k → '2'; operands: ['f.txt']
 * ```
 */
export function parseOptions(name: string, table: OptionTable, argv: readonly string[]): ParsedOptions {
  const flags = new Map<string, string>();
  const all: Array<[string, string]> = [];
  const operands: string[] = [];
  const set = (k: string, v: string) => {
    flags.set(k, v);
    all.push([k, v]);
  };
  const flagSet = table.flags ?? '';
  const valueSet = table.values ?? '';
  const supported = () =>
    [...flagSet, ...valueSet].map((c) => `-${c}`).concat(Object.keys(table.long ?? {}).map((l) => `--${l}`));
  const hint = () => {
    const s = supported();
    return s.length ? ` (supported: ${s.join(' ')})` : ' (it takes no options)';
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      operands.push(...argv.slice(i + 1));
      break;
    }
    if (a === '-' || !a.startsWith('-')) {
      operands.push(a);
      if (table.stopAtOperand) {
        operands.push(...argv.slice(i + 1));
        break;
      }
      continue;
    }
    if (table.numeric && /^-[0-9]+$/.test(a)) {
      set(table.numeric, a.slice(1));
      continue;
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const long = eq > 0 ? a.slice(2, eq) : a.slice(2);
      const spec = table.long?.[long];
      if (!spec) throw new UsageError(`${name}: unrecognized option '${a}'${hint()}`);
      if (spec.value) {
        const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
        if (v === undefined) throw new UsageError(`${name}: option '--${long}' requires an argument`);
        set(spec.key, v);
      } else if (eq > 0) throw new UsageError(`${name}: option '--${long}' doesn't allow an argument`);
      else set(spec.key, '');
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j]!;
      if (valueSet.includes(c)) {
        const v = j + 1 < a.length ? a.slice(j + 1) : argv[++i];
        if (v === undefined) throw new UsageError(`${name}: option requires an argument -- '${c}'`);
        set(c, v);
        break;
      }
      if (!flagSet.includes(c)) throw new UsageError(`${name}: invalid option -- '${c}'${hint()}`);
      set(c, '');
    }
  }
  return { flags, all, operands };
}
