/**
 * Normalises a path a script wrote for the virtual file store, which has no working directory:
 * `./a`, `a/./b` and `a/../b` name `a`, `a/b` and `b`. A path that climbs above the root
 * (`../x`) is left as written, so the file tools refuse it.
 *
 * @example
 * normalizeShellPath('./notes/../todo.txt'); // 'todo.txt'
 */
export function normalizeShellPath(path: string): string {
  if (!path.includes('.') || path.startsWith('/')) return path;
  const out: string[] = [];
  for (const seg of path.split('/')) {
    if (seg === '.' || seg === '') continue;
    if (seg === '..') {
      if (out.length === 0) return path;
      out.pop();
      continue;
    }
    out.push(seg);
  }
  return out.join('/') + (path.endsWith('/') && out.length > 0 ? '/' : '');
}

/** The same, for the `path` / `prefix` fields of a file tool's arguments. */
export function normalizeToolArgs(args: Record<string, unknown>): Record<string, unknown> {
  let out = args;
  for (const k of ['path', 'prefix']) {
    const v = args[k];
    if (typeof v === 'string' && v.includes('.')) out = { ...out, [k]: normalizeShellPath(v) };
  }
  return out;
}
