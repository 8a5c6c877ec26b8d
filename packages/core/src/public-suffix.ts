/**
 * A small built-in list of common multi-label public suffixes: domains under which unrelated
 * parties register names. A wildcard host rule over one of these (`*.co.uk`, `*.github.io`)
 * would match strangers, so it is rejected. This is not the full Public Suffix List; single-label
 * suffixes (`*.com`) are rejected by a separate rule.
 *
 * @example
 * COMMON_PUBLIC_SUFFIXES.includes('co.uk'); // true, so '*.co.uk' is rejected
 */
export const COMMON_PUBLIC_SUFFIXES: readonly string[] = Object.freeze([
  'co.uk', 'org.uk', 'ac.uk', 'gov.uk', 'me.uk', 'ltd.uk', 'plc.uk', 'net.uk', 'sch.uk',
  'com.au', 'net.au', 'org.au', 'edu.au', 'gov.au', 'co.nz', 'org.nz', 'net.nz',
  'co.jp', 'ne.jp', 'or.jp', 'ac.jp', 'go.jp', 'co.kr', 'or.kr', 'com.cn', 'net.cn', 'org.cn',
  'com.hk', 'com.tw', 'com.sg', 'com.my', 'co.in', 'net.in', 'org.in', 'co.id', 'co.th',
  'com.br', 'net.br', 'org.br', 'com.mx', 'com.ar', 'com.co', 'com.pe', 'co.za', 'org.za',
  'com.tr', 'com.ua', 'co.il', 'com.eg', 'com.sa', 'com.pl', 'co.at', 'or.at', 'com.es',
  'github.io', 'githubusercontent.com', 'gitlab.io', 'herokuapp.com', 'appspot.com',
  'blogspot.com', 'cloudfront.net', 'azurewebsites.net', 'cloudapp.net', 'vercel.app',
  'netlify.app', 'pages.dev', 'workers.dev', 'fly.dev', 'web.app', 'firebaseapp.com',
  'ngrok.io', 'ngrok-free.app', 'onrender.com', 'glitch.me', 'repl.co', 'amazonaws.com',
  's3.amazonaws.com', 'elasticbeanstalk.com', 'azureedge.net', 'trafficmanager.net',
  'dyndns.org', 'no-ip.org', 'duckdns.org', 'readthedocs.io', 'surge.sh', 'now.sh',
]);

const SUFFIXES: ReadonlySet<string> = new Set(COMMON_PUBLIC_SUFFIXES);

/** True when `name` (lowercase, no trailing dot) is one of `COMMON_PUBLIC_SUFFIXES`. */
export function isCommonPublicSuffix(name: string): boolean {
  return SUFFIXES.has(name);
}
