// Hostile markdown/HTML as a model, a peer or a file might deliver it. Every payload tries to set
// the canary `window.__pwned`, leave the page, or leak data to 127.0.0.1:9 (a closed loopback port).

export const XSS_CORPUS: readonly { name: string; payload: string }[] = [
  { name: 'img onerror', payload: `<img src=x onerror="window.__pwned='img'">` },
  { name: 'raw javascript: anchor', payload: `<a href="javascript:window.__pwned='a'">raw anchor</a>` },
  { name: 'markdown javascript: link', payload: `[click me](javascript:window.__pwned='md-link')` },
  { name: 'mixed-case scheme', payload: `[case](JaVaScRiPt:window.__pwned='case')` },
  { name: 'entity-encoded scheme', payload: `[entity](&#106;avascript:window.__pwned='entity')` },
  { name: 'reference-style link', payload: `[ref link][r]\n\n[r]: javascript:window.__pwned='ref'` },
  { name: 'autolink scheme', payload: `<javascript:window.__pwned='autolink'>` },
  { name: 'data: link', payload: `[data](data:text/html;base64,PHNjcmlwdD5wYXJlbnQuX19wd25lZD0nZGF0YSc8L3NjcmlwdD4=)` },
  { name: 'vbscript: link', payload: `[vb](vbscript:msgbox(1))` },
  {
    name: 'svg with script',
    payload: `<svg><script>window.__pwned='svg'</script></svg><svg onload="window.__pwned='svg-onload'"></svg>`,
  },
  { name: 'iframe srcdoc', payload: `<iframe srcdoc="<script>parent.__pwned='srcdoc'</script>"></iframe>` },
  { name: 'css exfiltration (style tag)', payload: `<style>body{background:url(http://127.0.0.1:9/css-leak)}</style>` },
  {
    name: 'css exfiltration (style attribute)',
    payload: `<div style="background:url(http://127.0.0.1:9/style-leak)">styled</div>`,
  },
  { name: 'image exfiltration', payload: `![leak](http://127.0.0.1:9/img-leak.png)` },
  {
    name: 'details ontoggle',
    payload: `<details open ontoggle="window.__pwned='details'"><summary>s</summary></details>`,
  },
  { name: 'form action', payload: `<form action="javascript:window.__pwned='form'"><button>go</button></form>` },
  { name: 'meta refresh', payload: `<meta http-equiv="refresh" content="0;url=javascript:window.__pwned='meta'">` },
  { name: 'base href', payload: `<base href="http://127.0.0.1:9/">` },
  {
    name: 'object and embed',
    payload:
      `<object data="javascript:window.__pwned='object'"></object><embed ` + `src="javascript:window.__pwned='embed'">`,
  },
  { name: 'inline script', payload: `<script>window.__pwned='script'</script>` },
  // Last: its unclosed elements swallow whatever follows.
  { name: 'mutation xss', payload: `<math><mtext><table><mglyph><style><img src=x onerror="window.__pwned='mxss'">` },
];

/** The whole corpus as one markdown document. */
export const XSS_DOCUMENT = XSS_CORPUS.map((c) => `### ${c.name}\n\n${c.payload}\n`).join('\n');
