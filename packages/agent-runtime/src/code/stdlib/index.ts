import { NODE_ASSERT_SOURCE } from './node-assert.js';
import { NODE_BUFFER_SOURCE, NODE_STRING_DECODER_SOURCE } from './node-buffer.js';
import { NODE_CRYPTO_SOURCE } from './node-crypto.js';
import { NODE_EVENTS_SOURCE } from './node-events.js';
import { NODE_PATH_SOURCE } from './node-path.js';
import { NODE_PUNYCODE_SOURCE } from './node-punycode.js';
import { NODE_QUERYSTRING_SOURCE, NODE_URL_SOURCE } from './node-url.js';
import { NODE_UTIL_SOURCE } from './node-util.js';
import { WEB_CLONE_SOURCE } from './web-clone.js';
import { WEB_CRYPTO_SOURCE } from './web-crypto.js';
import { WEB_ENCODING_SOURCE } from './web-encoding.js';
import { WEB_TIMERS_SOURCE } from './web-timers.js';
import { WEB_URL_SOURCE } from './web-url.js';

// The guest's built-in modules. Each source is a function expression `(lib) => exports` that the
// host compiles into the isolate the first time a run uses it (so cold start pays for none of them).
const SOURCES: Readonly<Record<string, string>> = Object.freeze({
  'web:encoding': WEB_ENCODING_SOURCE,
  'web:url': WEB_URL_SOURCE,
  'web:crypto': WEB_CRYPTO_SOURCE,
  'web:clone': WEB_CLONE_SOURCE,
  'web:timers': WEB_TIMERS_SOURCE,
  'node:assert': NODE_ASSERT_SOURCE,
  'node:buffer': NODE_BUFFER_SOURCE,
  'node:crypto': NODE_CRYPTO_SOURCE,
  'node:events': NODE_EVENTS_SOURCE,
  'node:path': NODE_PATH_SOURCE,
  'node:punycode': NODE_PUNYCODE_SOURCE,
  'node:querystring': NODE_QUERYSTRING_SOURCE,
  'node:string_decoder': NODE_STRING_DECODER_SOURCE,
  'node:url': NODE_URL_SOURCE,
  'node:util': NODE_UTIL_SOURCE,
});

/**
 * The modules agent code may `require` (or `import`), without the `node:` prefix; see the package
 * README for what each one offers in the sandbox.
 */
export const GUEST_NODE_MODULES: readonly string[] = Object.freeze(
  Object.keys(SOURCES)
    .filter((k) => k.startsWith('node:'))
    .map((k) => k.slice(5)),
);

/**
 * Modules on ADF's allowlist that cannot run in the isolate: `require` refuses them with
 * `CODE_MODULE_UNSUPPORTED` (any other name: `CODE_MODULE_DENIED`).
 */
export const GUEST_UNSUPPORTED_MODULES: readonly string[] = Object.freeze(['stream', 'zlib']);

/** The source of a built-in guest module, or `undefined`. */
export function guestModuleSource(name: string): string | undefined {
  return Object.hasOwn(SOURCES, name) ? SOURCES[name] : undefined;
}
