import { controlError } from './control-error.js';

/**
 * Sets `value` at a dot path in a plain config document, for owner updates. Items of `tools` and
 * `mcp.servers` may be named (`tools.fs_read.enabled`); a named tool that does not exist yet is
 * appended as a new declaration. Returns the canonical path. The caller re-validates the result.
 */
export function setConfigPath(doc: Record<string, unknown>, path: string, value: unknown): string {
  const segments = path.split('.');
  let node: unknown = doc;
  const canonical: string[] = [];
  for (let i = 0; i < segments.length - 1; i++) {
    const seg = segments[i]!;
    if (Array.isArray(node)) {
      let idx = node.findIndex((x) => (x as { name?: unknown } | null)?.name === seg);
      if (idx < 0 && /^\d+$/.test(seg) && Number(seg) < node.length) idx = Number(seg);
      if (idx < 0 && canonical.join('.') === 'tools') idx = node.push({ name: seg }) - 1;
      if (idx < 0)
        throw controlError(
          'CONTROL_BAD_REQUEST',
          `no item "${seg}" in ${canonical.join('.')}`,
          'name an existing item',
        );
      node = node[idx];
    } else if (node !== null && typeof node === 'object') {
      const rec = node as Record<string, unknown>;
      if (!Object.hasOwn(rec, seg) || rec[seg] === null || typeof rec[seg] !== 'object') {
        if (i === 0)
          throw controlError(
            'CONTROL_BAD_REQUEST',
            `unknown config section "${seg}"`,
            `valid sections: ${Object.keys(doc).join(', ')}`,
          );
        rec[seg] = {};
      }
      node = rec[seg];
    }
    canonical.push(seg);
  }
  const last = segments.at(-1)!;
  if (Array.isArray(node))
    throw controlError(
      'CONTROL_BAD_REQUEST',
      `"${path}" names a list item, not a field`,
      'set a field of the item, e.g. tools.fs_read.enabled',
    );
  (node as Record<string, unknown>)[last] = value;
  return [...canonical, last].join('.');
}
