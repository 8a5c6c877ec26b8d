import { isAbsolute, relative, resolve, sep } from 'node:path';
import { allow, deny, type Decision } from '@trust/core';

/**
 * Decides whether a URL path segment list names a file inside a root. Decodes once, then refuses
 * `..` and `.` segments, backslashes, NUL, empty segments and absolute paths, and finally checks
 * the resolved path is still under `root` (belt and braces).
 *
 * @example
 * evaluateRelativePath('..%2f..%2fetc%2fpasswd'); // deny CONTROL_PATH_INVALID
 */
export function evaluateRelativePath(encoded: string, root = '/'): Decision & { readonly path?: string } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(encoded);
  } catch {
    return invalid(encoded, 'it is not valid percent-encoding');
  }
  if (decoded.includes('\0') || decoded.includes('\\')) return invalid(decoded, 'it contains NUL or a backslash');
  if (decoded.startsWith('/') || isAbsolute(decoded)) return invalid(decoded, 'it is absolute');
  const segments = decoded.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..'))
    return invalid(decoded, 'it has an empty, "." or ".." segment');
  const full = resolve(root, decoded);
  const rel = relative(resolve(root), full);
  if (rel.startsWith('..') || isAbsolute(rel) || rel.split(sep).includes('..'))
    return invalid(decoded, 'it leaves the root');
  return { ...allow('relative-path'), path: decoded };
}

function invalid(path: string, why: string): Decision {
  return deny('CONTROL_PATH_INVALID', `path ${JSON.stringify(path.slice(0, 200))} is refused: ${why}`, {
    rule: 'relative-path',
    hint: 'name a file relative to the root, e.g. "docs/readme.md"',
  });
}
