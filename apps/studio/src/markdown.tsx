import DOMPurify from 'dompurify';
import { marked } from 'marked';

// Untrusted text (LLM output, inbound messages, tool results) becomes HTML in two steps: marked
// renders the markdown, then DOMPurify removes everything executable. Links keep only http(s) and
// mailto targets and always open in a new, unrelated tab. The server's CSP is the second wall.

const SAFE_LINK = /^(https?:|mailto:)/i;

const purify = DOMPurify();
purify.addHook('afterSanitizeAttributes', (node) => {
  if (node.tagName === 'A') {
    const href = node.getAttribute('href') ?? '';
    if (!SAFE_LINK.test(href.trim())) node.removeAttribute('href');
    node.setAttribute('target', '_blank');
    node.setAttribute('rel', 'noopener noreferrer');
  }
});

/** Markdown to sanitised HTML. Exported for tests. */
export function renderMarkdown(text: string): string {
  const html = marked.parse(text, { async: false, gfm: true });
  return purify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ['style', 'iframe', 'frame', 'object', 'embed', 'form', 'input', 'button', 'textarea', 'select', 'base', 'link', 'meta', 'svg', 'math'],
    FORBID_ATTR: ['style', 'srcset', 'action', 'formaction', 'srcdoc', 'ping'],
  });
}

/** Renders untrusted markdown safely. */
export function Markdown({ text }: { text: string }) {
  return <div className="md" dangerouslySetInnerHTML={{ __html: renderMarkdown(text) }} />;
}
