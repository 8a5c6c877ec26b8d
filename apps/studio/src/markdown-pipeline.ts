import type { DOMPurify } from 'dompurify';
import { marked } from 'marked';

// Untrusted text (LLM output, inbound messages, tool results) becomes HTML in two steps: marked
// renders the markdown, then DOMPurify removes everything executable. Links keep only http(s) and
// mailto targets and always open in a new, unrelated tab. The server's CSP is the second wall.

const SAFE_LINK = /^(https?:|mailto:)/i;

/** Whether a link target may stay on a rendered link (http, https, mailto; nothing else). */
export function isSafeHref(href: string): boolean {
  return SAFE_LINK.test(href.trim());
}

export const FORBID_TAGS = [
  'style',
  'iframe',
  'frame',
  'object',
  'embed',
  'form',
  'input',
  'button',
  'textarea',
  'select',
  'base',
  'link',
  'meta',
  'svg',
  'math',
];
export const FORBID_ATTR = ['style', 'srcset', 'action', 'formaction', 'srcdoc', 'ping'];

/** Text as inert HTML: every markup character escaped. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Markdown to HTML, before sanitising (exported for tests; never insert its output as is). */
export function markdownToHtml(text: string): string {
  return marked.parse(text, { async: false, gfm: true });
}

/**
 * A markdown renderer over one DOMPurify instance. Fails closed: where DOMPurify cannot work
 * (no usable DOM), DOMPurify would hand the input back unchanged, so the text is shown escaped
 * instead, never as HTML.
 *
 * @example
 * const render = createMarkdownRenderer(DOMPurify(window));
 * element.innerHTML = render('**hi** <img src=x onerror=alert(1)>');
 */
export function createMarkdownRenderer(purify: DOMPurify): (text: string) => string {
  if (!purify.isSupported) return (text) => `<pre>${escapeHtml(text)}</pre>`;
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      if (!isSafeHref(node.getAttribute('href') ?? '')) node.removeAttribute('href');
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  return (text) => purify.sanitize(markdownToHtml(text), { USE_PROFILES: { html: true }, FORBID_TAGS, FORBID_ATTR });
}
