import { describe, expect, it } from 'vitest';
import { explainUrl } from './guard.js';
import { redactUrl } from './redact.js';

describe('attack: a URL fragment or path token shows up in explainUrl steps', () => {
  it.each([
    ['http://127.0.0.1/#frag=SECRET'],
    ['http://127.0.0.1/?q=1#frag=SECRET'],
    ['http://127.0.0.1/api/sk_live_SECRET0123456789abcdef/x'],
    ['http://127.0.0.1/?token=SECRET'],
  ])('%s: no step carries the secret', async (url) => {
    const { steps } = await explainUrl(url, { mode: 'strict' });
    expect(steps.length).toBeGreaterThan(3);
    expect(JSON.stringify(steps)).not.toContain('SECRET');
  });
});

describe('attack: redactUrl keeps secrets in path segments', () => {
  it.each([
    [
      'https://hooks.test/services/T0123/B4567/abcdefGHIJKL0123456789xyz',
      'https://hooks.test/services/T0123/B4567/REDACTED',
    ],
    ['https://api.test/v1/keys/0123456789abcdef0123456789abcdef/info', 'https://api.test/v1/keys/REDACTED/info'],
    ['https://api.test/t/eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.c2lnbmF0dXJl', 'https://api.test/t/REDACTED'],
    ['https://api.test/s/sess_AbCdEfGhIjKlMnOpQrStUv12#frag', 'https://api.test/s/REDACTED'],
    // kept: short ids, long slugs without digits, ordinary file names
    [
      'https://blog.test/2024/how-to-write-a-really-long-article-title',
      'https://blog.test/2024/how-to-write-a-really-long-article-title',
    ],
    ['https://api.test/v1/users/12345/orders', 'https://api.test/v1/users/12345/orders'],
    ['https://cdn.test/assets/app.js', 'https://cdn.test/assets/app.js'],
  ])('%s → %s', (input, out) => {
    expect(redactUrl(input)).toBe(out);
  });

  it('query values are redacted together with path tokens', () => {
    expect(redactUrl('https://api.test/x/AAAAAAAAAAAAAAAAAAAAAAAA1?key=v')).toBe(
      'https://api.test/x/REDACTED?key=REDACTED',
    );
  });
});

describe('redactUrl: the nothing-to-redact shortcut changes nothing else', () => {
  it.each([
    ['http://127.0.0.1:8080/', 'http://127.0.0.1:8080/'],
    ['http://a.test/#', 'http://a.test/'],
    ['http://u:p@a.test/x', 'http://a.test/x'],
    ['http://u@a.test/', 'http://a.test/'],
    ['http://a.test/?', 'http://a.test/?'],
    ['http://a.test/p?k=v#f', 'http://a.test/p?k=REDACTED'],
  ])('%s → %s', (input, out) => {
    expect(redactUrl(input)).toBe(out);
    expect(redactUrl(new URL(input))).toBe(out);
  });

  it('never changes a URL object it is given', () => {
    const url = new URL('https://u:p@api.test/x/AAAAAAAAAAAAAAAAAAAAAAAA1?key=v#frag');
    const before = url.href;
    expect(redactUrl(url)).toBe('https://api.test/x/REDACTED?key=REDACTED');
    expect(url.href).toBe(before);
  });
});
