import { readFileSync } from 'node:fs';

/**
 * How many records a JSONL file holds when none of them is a chained audit event: every line is a
 * JSON object and not one carries a `hash` (trust's sandbox run log is such a file). `undefined`:
 * the file is, or claims to be, a chained log (at least one record has a `hash`, or a line is not a
 * JSON object), so the chain check must judge it; an audit log with some hashes removed still fails
 * there as tampered.
 *
 * @example
 * unchainedRecordCount('/home/me/.trust/sandbox-runs.jsonl'); // 12
 */
export function unchainedRecordCount(file: string): number | undefined {
  let count = 0;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      return undefined;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || 'hash' in value) return undefined;
    count++;
  }
  return count === 0 ? undefined : count;
}
