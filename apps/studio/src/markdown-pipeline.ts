import type { DOMPurify } from 'dompurify';
import { Marked } from 'marked';

// Untrusted text (LLM output, inbound messages, tool results) becomes HTML in two steps: marked
// renders the markdown, then DOMPurify removes everything executable. Links keep only http(s) and
// mailto targets and always open in a new, unrelated tab. The server's CSP is the second wall.
// Raw HTML in the text is shown as text, never parsed as HTML: even an inert parse (DOMPurify's)
// makes the browser check it against the CSP and log an error for each handler, style or base.
// Nothing rendered may load anything: images and other media are dropped (an image leaves its alt
// text), because even a same-origin `<img src=x>` makes the browser request `/x`.

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
  // Elements that load a resource by being there.
  'img',
  'picture',
  'source',
  'video',
  'audio',
  'track',
];
export const FORBID_ATTR = ['style', 'srcset', 'action', 'formaction', 'srcdoc', 'ping', 'background', 'poster'];

/** What is left of a dropped image: its alt text, marked as an image, or nothing without one. */
export function imageText(alt: string | null): string {
  const t = (alt ?? '').replace(/\s+/g, ' ').trim();
  return t === '' ? '' : `[image: ${t.slice(0, 200)}]`;
}

/** Text as inert HTML: every markup character escaped. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/**
 * Markdown to HTML, before sanitising (exported for tests; never insert its output as is). Raw
 * HTML blocks and tags in the text come out escaped, as visible text.
 */
export function markdownToHtml(text: string): string {
  const md = new Marked({
    gfm: true,
    async: false,
    renderer: { html: (t) => ('block' in t && t.block ? `<p>${escapeHtml(t.text)}</p>` : escapeHtml(t.text)) },
  });
  return md.parse(text, { async: false });
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
  // An image becomes its alt text (a text node, so it stays inert); DOMPurify then drops the
  // element itself, as it is in FORBID_TAGS.
  purify.addHook('uponSanitizeElement', (node, data) => {
    if (data.tagName !== 'img' || !(node instanceof Element) || node.parentNode === null) return;
    const text = imageText(node.getAttribute('alt'));
    if (text !== '') node.parentNode.insertBefore(node.ownerDocument.createTextNode(text), node);
  });
  purify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A') {
      if (!isSafeHref(node.getAttribute('href') ?? '')) node.removeAttribute('href');
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  });
  return (text) => purify.sanitize(markdownToHtml(text), { USE_PROFILES: { html: true }, FORBID_TAGS, FORBID_ATTR });
}
