import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { CliError } from './cli-error.js';

/**
 * Reads a file named on the command line, relative to `cwd`. A missing or unreadable file is
 * `CLI_FILE_NOT_FOUND` / `CLI_FILE_UNREADABLE` (exit 1) with the path and a hint.
 *
 * @example
 * const text = await readInputFile(io.cwd, 'policy.json', 'policy file');
 */
export async function readInputFile(cwd: string, path: string, what: string): Promise<string> {
  const full = resolve(cwd, path);
  try {
    return await readFile(full, 'utf8');
  } catch (cause) {
    const code = (cause as { code?: string }).code;
    if (code === 'ENOENT') {
      throw new CliError('CLI_FILE_NOT_FOUND', `${what} ${full} does not exist`, { hint: 'check the path', cause });
    }
    throw new CliError('CLI_FILE_UNREADABLE', `cannot read ${what} ${full} (${code ?? 'error'})`, {
      hint: 'check the path and its permissions',
      cause,
    });
  }
}

/** Parses JSON read from a file, with `CLI_FILE_INVALID_JSON` and the position on failure (never quoting the text). */
export function parseJsonFile(text: string, path: string, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    const at = /position (\d+)/.exec(cause instanceof Error ? cause.message : '')?.[1];
    let where = '';
    if (at !== undefined) {
      const before = text.slice(0, Number(at));
      where = ` at line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
    }
    throw new CliError('CLI_FILE_INVALID_JSON', `${what} ${path} is not valid JSON${where}`, {
      hint: 'fix the JSON syntax',
    });
  }
}
