import type { ServerResponse } from 'node:http';

/**
 * Path of the unauthenticated CSP report sink (browsers send reports without credentials).
 *
 * @example
 * buildCsp(CSP_REPORT_PATH).endsWith('report-uri /csp-report'); // true
 */
export const CSP_REPORT_PATH = '/csp-report';

/**
 * The studio's Content-Security-Policy. Scripts only from the server itself (no inline, no eval),
 * no frames, no plugins, no `<base>`, never framed, fetches only to itself, and every violation
 * reported to {@link CSP_REPORT_PATH}. Styles also only from files, so injected `style`
 * attributes (CSS exfiltration) are blocked and reported.
 *
 * @example
 * res.setHeader('Content-Security-Policy', buildCsp()); // "default-src 'none'; script-src 'self'; …"
 */
export function buildCsp(reportPath: string = CSP_REPORT_PATH): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "manifest-src 'self'",
    "frame-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
    `report-uri ${reportPath}`,
  ].join('; ');
}

/** Headers on every response: no sniffing, no referrer, never cached, never framed. */
export function setCommonHeaders(res: ServerResponse): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'no-referrer');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Cross-Origin-Opener-Policy', 'same-origin');
  res.setHeader('Cross-Origin-Resource-Policy', 'same-origin');
  res.setHeader('Cache-Control', 'no-store');
}
