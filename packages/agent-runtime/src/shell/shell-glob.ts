/** Whether a glob pattern has an unescaped `*`, `?` or a closed `[…]`. */
export function isGlobPattern(pattern: string): boolean {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '*' || c === '?') return true;
    if (c === '[' && pattern.indexOf(']', i + 2) > 0) return true;
  }
  return false;
}

/** The directory part of a pattern before its first glob segment (`a/b/*.md` → `a/b/`). */
export function literalPrefix(pattern: string): string {
  const segs = pattern.split('/');
  let prefix = '';
  for (const s of segs.slice(0, -1)) {
    if (isGlobPattern(s)) break;
    prefix += `${s.replace(/\\(.)/g, '$1')}/`;
  }
  return prefix;
}

/**
 * Pathname expansion over the virtual file store: `paths` are the stored files; their parent
 * directories are implied. Segments match one path level; `*` and `?` do not match a leading
 * dot unless the pattern segment starts with one. Matches come back sorted (C collation).
 */
export function matchGlob(pattern: string, paths: readonly string[]): string[] {
  const lead = /^(\.\/)+/.exec(pattern)?.[0] ?? '';
  const body = pattern.slice(lead.length);
  const segs = body.split('/');
  const res = segs.map((s) => new RegExp(`^${globToRegex(s, true)}$`, 's'));
  const candidates = new Set<string>();
  for (const p of paths) {
    const parts = p.split('/');
    for (let k = 1; k <= parts.length; k++) candidates.add(parts.slice(0, k).join('/'));
  }
  const out: string[] = [];
  for (const c of candidates) {
    const parts = c.split('/');
    if (parts.length !== segs.length) continue;
    if (parts.every((part, i) => res[i]!.test(part) && (!part.startsWith('.') || segs[i]!.startsWith('.'))))
      out.push(lead + c);
  }
  return out.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A shell glob (`*`, `?`, `[…]` with `!`/`^` negation, `\\x`) as a regex body. */
export function globToRegex(pattern: string, pathMode = false): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') out += pathMode ? '[^/]*' : '.*';
    else if (c === '?') out += pathMode ? '[^/]' : '.';
    else if (c === '\\' && i + 1 < pattern.length) out += pattern[++i]!.replace(/[\\^$.*+?()|{}[\]]/g, '\\$&');
    else if (c === '[') {
      const close = pattern.indexOf(']', i + (pattern[i + 1] === '!' || pattern[i + 1] === '^' ? 3 : 2));
      if (close < 0) {
        out += '\\[';
        continue;
      }
      let cls = pattern.slice(i + 1, close);
      const neg = cls.startsWith('!') || cls.startsWith('^');
      if (neg) cls = cls.slice(1);
      cls = cls
        .replace(/\[:alpha:\]/g, 'A-Za-z')
        .replace(/\[:digit:\]/g, '0-9')
        .replace(/\[:alnum:\]/g, 'A-Za-z0-9')
        .replace(/\[:space:\]/g, ' \\t\\n')
        .replace(/\[:upper:\]/g, 'A-Z')
        .replace(/\[:lower:\]/g, 'a-z')
        .replace(/[\\\]^]/g, '\\$&');
      out += `[${neg ? '^' : ''}${cls}]`;
      i = close;
    } else out += c.replace(/[\\^$.+()|{}[\]]/g, '\\$&');
  }
  return out;
}
