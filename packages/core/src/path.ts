/**
 * Pure POSIX path handling for capability grants. No filesystem access: symlinks are not
 * resolved here (the backends confine access with preopens and bind mounts).
 */

/**
 * Normalises an absolute POSIX path: collapses repeated slashes, resolves `.` and `..` (`..` at
 * the root stays at the root), and strips a trailing slash. Returns `undefined` for a relative
 * or empty path.
 *
 * @example
 * normalizeAbsolutePath('/data//a/../b/'); // '/data/b'
 * normalizeAbsolutePath('data');           // undefined
 */
export function normalizeAbsolutePath(path: string): string | undefined {
  if (!path.startsWith('/')) return undefined;
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

/**
 * True when normalised `path` equals `root` or lies below it on a segment boundary, so `/data`
 * contains `/data/x` but not `/database`. Both arguments must already be normalised.
 *
 * @example
 * isPathWithin('/data', '/data/x');   // true
 * isPathWithin('/data', '/database'); // false
 */
export function isPathWithin(root: string, path: string): boolean {
  if (root === '/') return path.startsWith('/');
  return path === root || path.startsWith(`${root}/`);
}
