import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { allow, deny, type Decision } from '@trust/core';
import { controlError } from './control-error.js';

/** Shortest token accepted from the caller: 32 characters (128+ bits when random). */
const MIN_TOKEN_LENGTH = 32;

/**
 * A fresh token: 32 random bytes as base64url (43 characters).
 *
 * @example
 * const token = generateControlToken(); // e.g. "q3Vh…" (43 characters)
 */
export function generateControlToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Returns the token the server will require. `token` wins; else `tokenFile` is read, or created
 * with a fresh token and mode 0600 on first start; else a fresh in-memory token. A token file
 * readable by group or others is refused rather than trusted.
 *
 * @example
 * const token = loadOrCreateToken({ tokenFile: join(workspace, '.trust', 'control-token') });
 */
export function loadOrCreateToken(options: { token?: string; tokenFile?: string }): string {
  if (options.token !== undefined) return assertTokenShape(options.token, 'the token option');
  if (options.tokenFile === undefined) return generateControlToken();
  const file = options.tokenFile;
  let existing: string | undefined;
  try {
    const st = statSync(file);
    if ((st.mode & 0o077) !== 0) {
      throw controlError(
        'CONTROL_BAD_REQUEST',
        `token file ${file} is readable by others (mode ${(st.mode & 0o777).toString(8)})`,
        `run: chmod 600 ${file}`,
      );
    }
    existing = readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  if (existing !== undefined) return assertTokenShape(existing, file);
  const token = generateControlToken();
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  // 'wx' refuses to follow a planted file or symlink; mode 0600 at creation, chmod for odd umasks.
  writeFileSync(file, token + '\n', { mode: 0o600, flag: 'wx' });
  chmodSync(file, 0o600);
  return token;
}

function assertTokenShape(token: string, where: string): string {
  if (token.length < MIN_TOKEN_LENGTH || !/^[A-Za-z0-9._~+/=-]+$/.test(token)) {
    throw controlError(
      'CONTROL_BAD_REQUEST',
      `control token from ${where} is too short or has invalid characters`,
      `use at least ${MIN_TOKEN_LENGTH} URL-safe characters, or omit it to generate one`,
    );
  }
  return token;
}

/**
 * Checks an `Authorization` header against the expected token in constant time (both sides are
 * hashed first, so lengths never leak).
 *
 * @example
 * evaluateBearer('Bearer abc', token); // deny CONTROL_TOKEN_INVALID
 */
export function evaluateBearer(header: string | undefined, expected: string): Decision {
  if (header === undefined || header === '') {
    return deny('CONTROL_TOKEN_MISSING', 'the control API requires a bearer token', {
      rule: 'bearer-token',
      hint: 'send "Authorization: Bearer <token>"; the token is in the token file the server printed',
    });
  }
  const m = /^Bearer ([^\s]+)$/.exec(header);
  const given = createHash('sha256')
    .update(m?.[1] ?? '')
    .digest();
  const want = createHash('sha256').update(expected).digest();
  if (m === null || !timingSafeEqual(given, want)) {
    return deny('CONTROL_TOKEN_INVALID', 'the bearer token is wrong', {
      rule: 'bearer-token',
      hint: 'use the token from the token file of this server',
    });
  }
  return allow('bearer-token');
}
