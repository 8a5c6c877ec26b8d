/**
 * Maps what a Node fs call throws to a `wasi:filesystem` `error-code` (the WIT enum's string).
 * Strings we throw ourselves (`'not-permitted'`, `'read-only'`) pass through. Anything unknown
 * becomes `io` rather than escaping as a JS exception: an exception out of a host import traps
 * and kills the plugin, an error code is the guest's to handle.
 */
const CODES: Readonly<Record<string, string>> = {
  EACCES: 'access',
  EAGAIN: 'would-block',
  EWOULDBLOCK: 'would-block',
  EALREADY: 'already',
  EBADF: 'bad-descriptor',
  EBUSY: 'busy',
  EDEADLK: 'deadlock',
  EDQUOT: 'quota',
  EEXIST: 'exist',
  EFBIG: 'file-too-large',
  EILSEQ: 'illegal-byte-sequence',
  EINPROGRESS: 'in-progress',
  EINTR: 'interrupted',
  EINVAL: 'invalid',
  EIO: 'io',
  EISDIR: 'is-directory',
  ELOOP: 'loop',
  EMLINK: 'too-many-links',
  EMSGSIZE: 'message-size',
  ENAMETOOLONG: 'name-too-long',
  ENODEV: 'no-device',
  ENOENT: 'no-entry',
  ENOLCK: 'no-lock',
  ENOMEM: 'insufficient-memory',
  ENOSPC: 'insufficient-space',
  ENOTDIR: 'not-directory',
  ENOTEMPTY: 'not-empty',
  ENOTRECOVERABLE: 'not-recoverable',
  ENOTSUP: 'unsupported',
  EOPNOTSUPP: 'unsupported',
  ENOTTY: 'no-tty',
  ENXIO: 'no-such-device',
  EOVERFLOW: 'overflow',
  EPERM: 'not-permitted',
  EPIPE: 'pipe',
  EROFS: 'read-only',
  ESPIPE: 'invalid-seek',
  ETXTBSY: 'text-file-busy',
  EXDEV: 'cross-device',
  ERR_INVALID_ARG_VALUE: 'invalid',
  ERR_INVALID_ARG_TYPE: 'invalid',
  ERR_OUT_OF_RANGE: 'invalid',
};

/** The `error-code` for a thrown value (see the file comment). */
export function toErrorCode(e: unknown): string {
  if (typeof e === 'string') return e;
  const code = (e as { code?: unknown } | null)?.code;
  return (typeof code === 'string' && CODES[code]) || 'io';
}

/** Runs `fn`, rethrowing any failure as an `error-code` string. */
export function fsCall<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw toErrorCode(e);
  }
}
