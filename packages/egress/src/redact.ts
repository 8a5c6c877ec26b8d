/** Header names whose values are secrets whether or not a policy injected them. */
export const SENSITIVE_HEADERS: readonly string[] = Object.freeze(['authorization', 'cookie', 'proxy-authorization']);

/**
 * A path segment that looks like a token rather than a name: at least 24 characters of
 * `[A-Za-z0-9._~-]` with both a letter and a digit (API keys, hex digests, JWTs, session ids).
 * Long slugs without digits (`how-to-write-a-long-article`) are kept.
 */
const OPAQUE_SEGMENT = /^(?=[^/]*[0-9])(?=[^/]*[A-Za-z])[A-Za-z0-9._~-]{24,}$/;

/**
 * The URL as it may appear in audit events, errors, logs and explanations: no userinfo, no
 * fragment, every query value replaced by `REDACTED` (names stay, so the event still says what
 * was asked), and every opaque path segment (see `OPAQUE_SEGMENT`: 24+ token characters with
 * letters and digits) replaced by `REDACTED`.
 *
 * @example
 * redactUrl('https://u:p@api.test/v1?key=s3cr3t&q=cats#x'); // 'https://api.test/v1?key=REDACTED&q=REDACTED'
 * redactUrl('https://hooks.test/T0123/B4567/abcdefGHIJKL0123456789xyz'); // 'https://hooks.test/T0123/B4567/REDACTED'
 */
export function redactUrl(input: string | URL): string {
  let url: URL;
  if (typeof input === 'string') {
    try {
      url = new URL(input);
    } catch {
      return '(unparsable URL)';
    }
  } else {
    url = input;
  }
  // Nothing to redact (the common case for a plain request): no userinfo, no fragment (not even
  // an empty `#`), no query, and a path too short to hold an opaque segment.
  const href = url.href;
  if (
    url.username === '' &&
    url.password === '' &&
    url.search === '' &&
    url.pathname.length <= 24 &&
    !href.includes('#')
  )
    return href;
  if (url === input) url = new URL(href); // never change the caller's URL
  url.username = '';
  url.password = '';
  url.hash = '';
  if (url.pathname.length > 24) {
    url.pathname = url.pathname
      .split('/')
      .map((segment) => (OPAQUE_SEGMENT.test(segment) ? 'REDACTED' : segment))
      .join('/');
  }
  if (url.search !== '') {
    const names = [...url.searchParams.keys()];
    url.search = names.map((n) => `${encodeURIComponent(n)}=REDACTED`).join('&');
  }
  return url.href;
}

/** Replaces every occurrence of a secret value in `text`. */
export function scrubSecrets(text: string, secrets: Iterable<string>): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('[secret]');
  return out;
}
