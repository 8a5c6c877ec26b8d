/** Text styling functions; each returns its input unchanged when colour is off. */
export interface Style {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
}

/**
 * Decides whether to colour output: never when `NO_COLOR` is set to a non-empty value (see
 * no-color.org) or `--no-color` was given; always when `FORCE_COLOR` is set to a non-empty value
 * other than `0`; otherwise only when the stream is a TTY and `TERM` is not `dumb`.
 *
 * @example
 * shouldColor({ env: process.env, isTTY: process.stderr.isTTY === true, flag: undefined });
 */
export function shouldColor(input: {
  env: Readonly<Record<string, string | undefined>>;
  isTTY: boolean;
  flag?: boolean | undefined;
}): boolean {
  if (input.flag === false) return false;
  if (input.env.NO_COLOR !== undefined && input.env.NO_COLOR !== '') return false;
  const force = input.env.FORCE_COLOR;
  if (force !== undefined && force !== '' && force !== '0') return true;
  return input.isTTY && input.env.TERM !== 'dumb';
}

/**
 * Creates a style. Colours use the basic 16-colour SGR codes, which every terminal supports.
 *
 * @example
 * const s = createStyle(true); s.red('denied');
 */
export function createStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    cyan: wrap(36, 39),
  };
}
