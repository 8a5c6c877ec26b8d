import { closeSync, constants, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './cli-error.js';

const SQLITE_MAGIC = Buffer.from('SQLite format 3\0', 'latin1');

/**
 * Checks that `file` can be an agent file before SQLite sees it: it exists, is a regular file
 * (a directory is `CLI_NOT_A_FILE`, naming the .adf files inside it) and starts like an SQLite
 * database (anything else, however short, is `ADF_NOT_SQLITE`; an empty file is `ADF_TRUNCATED`,
 * as in the runtime; a cut-short SQLite header is left for the runtime to call truncated).
 */
export function checkAdfFile(file: string): void {
  const st = statSync(file, { throwIfNoEntry: false });
  if (!st)
    throw new CliError('CLI_FILE_NOT_FOUND', `${file} does not exist`, {
      hint: 'create one with `trust agent new <file.adf>`',
    });
  if (st.isDirectory()) {
    const inside = readdirSync(file)
      .filter((n) => n.endsWith('.adf'))
      .slice(0, 3);
    throw new CliError('CLI_NOT_A_FILE', `${file} is a directory, not an .adf agent file`, {
      hint:
        inside.length > 0
          ? `pass one of the agent files in it, e.g. ${join(file, inside[0] as string)}`
          : 'pass the path of an .adf file (trust agent new <file.adf> creates one)',
    });
  }
  if (!st.isFile())
    throw new CliError('CLI_NOT_A_FILE', `${file} is not a regular file`, { hint: 'pass the path of an .adf file' });
  const head = Buffer.alloc(SQLITE_MAGIC.length);
  const fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  let n: number;
  try {
    n = readSync(fd, head, 0, head.length, 0);
  } finally {
    closeSync(fd);
  }
  if (n === 0)
    throw new CliError('ADF_TRUNCATED', `${file} is empty (0 bytes), shorter than an SQLite header`, {
      hint: 'the copy is incomplete; copy the file again',
    });
  if (!head.subarray(0, n).equals(SQLITE_MAGIC.subarray(0, n))) {
    throw new CliError(
      'ADF_NOT_SQLITE',
      `${file} is not an SQLite file, so not an .adf agent file ` +
        `(it starts with ${JSON.stringify(head.subarray(0, n).toString('latin1'))})`,
      {
        hint: 'an .adf agent file is an SQLite 3 database; check that you picked the right file',
      },
    );
  }
}

/**
 * Runs `use` on a private copy of an agent file holding exactly what an open of it would load:
 * the runtime's one snapshot function (every side file SQLite would replay, `-wal` and a hot
 * `-journal`, comes along; an unsafe side file is refused). The user's directory is left as it was.
 */
export async function withAdfSnapshot<T>(file: string, use: (copy: string) => T | Promise<T>): Promise<T> {
  checkAdfFile(file);
  const rt = await import('@trust/agent-runtime');
  return rt.withAdfSnapshot(file, use);
}
