import DOMPurify from 'dompurify';
import { describe, expect, it } from 'vitest';
import {
  createMarkdownRenderer,
  escapeHtml,
  FORBID_ATTR,
  FORBID_TAGS,
  imageText,
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

  it('forbids every element and attribute that loads a resource by being there (no request to /x)', () => {
    for (const tag of ['img', 'picture', 'source', 'video', 'audio', 'track']) expect(FORBID_TAGS).toContain(tag);
    for (const attr of ['srcset', 'background', 'poster']) expect(FORBID_ATTR).toContain(attr);
  });

  it.each([
    ['leak', '[image: leak]'],
    ['  a\n  chart ', '[image: a chart]'],
    ['', ''],
    [null, ''],
    ['<b>x</b>', '[image: <b>x</b>]'], // inserted as a text node, never parsed
    ['x'.repeat(300), `[image: ${'x'.repeat(200)}]`],
  ])('a dropped image with alt %j leaves %j', (alt, text) => {
    expect(imageText(alt)).toBe(text);
  });

  it.each([
    ['**bold** [a](https://example.org)', '<p><strong>bold</strong> <a href="https://example.org">a</a></p>\n'],
    ['<script>x</script>', '<p>&lt;script&gt;x&lt;/script&gt;</p>'],
    ['a <img src=x onerror="y"> b', '<p>a &lt;img src=x onerror=&quot;y&quot;&gt; b</p>\n'],
    ['<base href="http://127.0.0.1:9/">', '<p>&lt;base href=&quot;http://127.0.0.1:9/&quot;&gt;</p>'],
    ['x <b style="color:red">y</b>', '<p>x &lt;b style=&quot;color:red&quot;&gt;y&lt;/b&gt;</p>\n'],
    ['`<i>code</i>`', '<p><code>&lt;i&gt;code&lt;/i&gt;</code></p>\n'],
  ])('renders markdown %j; raw HTML only as text: %j', (md, html) => {
    expect(markdownToHtml(md)).toBe(html);
  });

  it('escapes every markup character', () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });
});
