/** Reads the text of an fs_read result, whatever exact shape the tool returns. */
export function fileContent(result: unknown): string {
  if (typeof result === 'string') return result;
  const r = result as { content?: unknown } | null;
  return typeof r?.content === 'string' ? r.content : '';
}
