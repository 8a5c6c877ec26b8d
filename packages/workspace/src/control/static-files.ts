import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, sep } from 'node:path';
import { controlError } from './control-error.js';
import { evaluateRelativePath } from './safe-path.js';

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Serves one file of the built studio. `/` is `index.html`. The path is checked segment by
 * segment, then the real path (after symlinks) must stay under the real root. Unknown types are
 * refused rather than sniffed.
 */
export async function serveStatic(
  root: string,
  urlPath: string,
  res: ServerResponse,
  headOnly: boolean,
): Promise<void> {
  const rel = urlPath === '/' ? 'index.html' : urlPath.slice(1);
  const d = evaluateRelativePath(rel, root);
  if (!d.allow) throw controlError('CONTROL_PATH_INVALID', d.reason, d.hint);
  const type = TYPES[extname(d.path!).toLowerCase()];
  if (type === undefined) throw controlError('CONTROL_NOT_FOUND', `no studio file ${urlPath}`);
  let real: string;
  try {
    const realRoot = await realpath(root);
    real = await realpath(join(realRoot, d.path!));
    if (!real.startsWith(realRoot + sep))
      throw controlError('CONTROL_PATH_INVALID', `path ${urlPath} leaves the studio folder`);
    if (!(await stat(real)).isFile()) throw controlError('CONTROL_NOT_FOUND', `no studio file ${urlPath}`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw controlError('CONTROL_NOT_FOUND', `no studio file ${urlPath}`);
    throw err;
  }
  res.statusCode = 200;
  res.setHeader('Content-Type', type);
  if (headOnly) {
    res.end();
    return;
  }
  await new Promise<void>((resolveDone, reject) => {
    const stream = createReadStream(real);
    stream.on('error', reject);
    stream.on('end', resolveDone);
    stream.pipe(res);
  });
}
