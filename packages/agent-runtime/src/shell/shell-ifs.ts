/**
 * Splits text on IFS as `read` does: IFS whitespace around fields is trimmed and runs of it
 * separate once; each other IFS character separates (so `a,,b` has an empty field). At most
 * `max` fields: the last keeps the rest of the text.
 *
 * @example
 * splitIfs('a, b,,c', ', ', Infinity); // ['a', 'b', '', 'c']
 */
export function splitIfs(line: string, ifs: string, max: number): string[] {
  const ws = [...ifs]
    .filter((c) => c === ' ' || c === '\t' || c === '\n')
    .map((c) => (c === '\t' ? '\\t' : c === '\n' ? '\\n' : ' '))
    .join('');
  const other = [...ifs]
    .filter((c) => c !== ' ' && c !== '\t' && c !== '\n')
    .map((c) => c.replace(/[\\\]^-]/g, '\\$&'))
    .join('');
  const trimmed = ws ? line.replace(new RegExp(`^[${ws}]+|[${ws}]+$`, 'g'), '') : line;
  if (trimmed === '') return [];
  const sep = new RegExp(other ? `[${ws}]*[${other}][${ws}]*|[${ws}]+` : `[${ws}]+`, 'y');
  const out: string[] = [];
  let cur = '';
  for (let i = 0; i < trimmed.length; ) {
    sep.lastIndex = i;
    const m = out.length < max - 1 ? sep.exec(trimmed) : null;
    if (m && m[0].length > 0) {
      out.push(cur);
      cur = '';
      i += m[0].length;
      continue;
    }
    cur += trimmed[i];
    i++;
  }
  out.push(cur);
  return out;
}

/**
 * Field splitting of an unquoted expansion: as {@link splitIfs}, but a trailing non-blank separator ends a field
 * instead of adding an empty one.
 */
export function splitFields(text: string, ifs: string): string[] {
  if (ifs === ' \t\n' || ifs === ' ') return text.split(/[ \t\n]+/);
  if (ifs === '') return [text];
  const fields = splitIfs(text, ifs, Infinity);
  const other = [...ifs].filter((c) => c !== ' ' && c !== '\t' && c !== '\n');
  if (fields.length > 0 && fields[fields.length - 1] === '' && other.some((c) => text.trimEnd().endsWith(c)))
    fields.pop();
  return fields;
}
