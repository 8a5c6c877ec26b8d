// The control token arrives once in the URL fragment (#token=...), which browsers never send to
// the server. It is moved to sessionStorage (this tab only) and removed from the address bar and
// history right away, so it is never in a query string, a Referer, or a bookmark.

const KEY = 'trust.control-token';

/** Takes the token from the fragment (if any), stores it for this tab, and cleans the URL. */
export function takeToken(): string | undefined {
  const hash = window.location.hash.startsWith('#') ? window.location.hash.slice(1) : '';
  const fromHash = new URLSearchParams(hash).get('token');
  if (fromHash !== null) {
    if (fromHash !== '') sessionStorage.setItem(KEY, fromHash);
    window.history.replaceState(null, '', window.location.pathname);
  }
  return sessionStorage.getItem(KEY) ?? undefined;
}

/** Forgets the token (after a 401, or on sign-out). */
export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
