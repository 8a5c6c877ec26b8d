import DOMPurify from 'dompurify';
import { describe, expect, it } from 'vitest';
import {
  createMarkdownRenderer,
  escapeHtml,
  FORBID_ATTR,
  FORBID_TAGS,
  isSafeHref,
  markdownToHtml,
} from './markdown-pipeline';

// The sanitising itself needs a DOM and is checked in real Chromium with the XSS corpus
// (tests/studio). Here: the parts that need none, and that the pipeline fails closed without one.
describe('markdown pipeline', () => {
  it('fails closed where DOMPurify cannot run: the text is escaped, never passed through as HTML', () => {
    const purify = DOMPurify(); // no window in Node: DOMPurify would return its input unchanged
    expect(purify.isSupported).toBe(false);
    const render = createMarkdownRenderer(purify);
    const html = render(`<img src=x onerror="window.__pwned=1"> [x](javascript:alert(1))`);
    expect(html).not.toContain('<img');
    expect(html).toBe('<pre>&lt;img src=x onerror=&quot;window.__pwned=1&quot;&gt; [x](javascript:alert(1))</pre>');
  });

  it.each([
    ['https://example.org/a', true],
    ['  http://example.org', true],
    ['mailto:me@example.org', true],
    ['javascript:alert(1)', false],
    ['JaVaScRiPt:alert(1)', false],
    [' javascript:alert(1)', false],
    ['data:text/html;base64,AAAA', false],
    ['vbscript:msgbox(1)', false],
    ['/relative', false],
    ['#top', false],
    ['', false],
  ])('link target %j is safe: %s', (href, safe) => {
    expect(isSafeHref(href)).toBe(safe);
  });

  it('forbids every element and attribute that can run code, load content or send a form', () => {
    for (const tag of ['style', 'iframe', 'object', 'embed', 'form', 'base', 'meta', 'svg', 'math', 'link'])
      expect(FORBID_TAGS).toContain(tag);
    for (const attr of ['style', 'srcdoc', 'formaction', 'action', 'ping', 'srcset'])
      expect(FORBID_ATTR).toContain(attr);
  });

  it('renders markdown with raw HTML kept for the sanitiser to judge (it is never inserted unsanitised)', () => {
    expect(markdownToHtml('**bold** [a](https://example.org)')).toBe(
      '<p><strong>bold</strong> <a href="https://example.org">a</a></p>\n',
    );
    expect(markdownToHtml('<script>x</script>')).toContain('<script>');
  });

  it('escapes every markup character', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
