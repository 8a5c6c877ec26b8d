import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { forgetToken, takeToken } from './token';

// A minimal browser: location, history and this tab's sessionStorage.
function browser(url: string) {
  const store = new Map<string, string>();
  const location = new URL(url);
  const replaced: string[] = [];
  vi.stubGlobal('sessionStorage', {
    getItem: (k: string) => store.get(k) ?? null,
    setItem: (k: string, v: string) => void store.set(k, v),
    removeItem: (k: string) => void store.delete(k),
  });
  vi.stubGlobal('window', {
    location,
    history: {
      replaceState: (_s: unknown, _t: string, to: string) => {
        replaced.push(to);
        location.hash = '';
      },
    },
  });
  return { store, replaced, location };
}

beforeEach(() => vi.unstubAllGlobals());
afterEach(() => vi.unstubAllGlobals());

describe('token handling', () => {
  it('takes the token from the fragment into this tab, and removes it from the address bar', () => {
    const b = browser('http://127.0.0.1:7385/#token=abc123');
    expect(takeToken()).toBe('abc123');
    expect(b.store.get('trust.control-token')).toBe('abc123');
    expect(b.replaced).toEqual(['/']);
    expect(b.location.href).not.toContain('abc123');
  });

  it('keeps the stored token on a reload without a fragment, and never writes the URL then', () => {
    const b = browser('http://127.0.0.1:7385/');
    b.store.set('trust.control-token', 'kept');
    expect(takeToken()).toBe('kept');
    expect(b.replaced).toEqual([]);
  });

  it('an empty #token= is not stored but is still removed from the address bar', () => {
    const b = browser('http://127.0.0.1:7385/#token=');
    expect(takeToken()).toBeUndefined();
    expect(b.store.size).toBe(0);
    expect(b.replaced).toEqual(['/']);
  });

  it('a token in the query string is never read (only the fragment is)', () => {
    const b = browser('http://127.0.0.1:7385/?token=leaked');
    expect(takeToken()).toBeUndefined();
    expect(b.store.size).toBe(0);
  });

  it('forgetToken removes it (after a 401)', () => {
    const b = browser('http://127.0.0.1:7385/#token=t');
    takeToken();
    forgetToken();
    expect(b.store.size).toBe(0);
  });
});
