/**
 * README examples that the consumer test runs as written. A fenced block is an example when its
 * info string is `ts example`, `js example` or `sh example`; any other block is documentation only.
 */
export type ExampleLang = 'ts' | 'js' | 'sh';

export interface ReadmeExample {
  lang: ExampleLang;
  code: string;
  /** 1-based line of the opening fence, to name the example in failures. */
  line: number;
}

const FENCE = /^(\s*)(`{3,}|~{3,})\s*(.*)$/;
const MARKER = /^(ts|js|sh)\s+example$/;

/** Extracts the marked examples from a README, in order. An unterminated marked block throws. */
export function extractExamples(markdown: string): ReadmeExample[] {
  const lines = markdown.split('\n');
  const out: ReadmeExample[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i]!);
    if (!open) continue;
    const fence = open[2]!;
    const info = open[3]!.trim();
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = FENCE.exec(lines[j]!);
      if (close && close[2]!.startsWith(fence) && close[3]!.trim() === '') break;
      body.push(lines[j]!);
    }
    const marker = MARKER.exec(info);
    if (marker) {
      if (j === lines.length) throw new Error(`README example at line ${i + 1} has no closing fence`);
      out.push({ lang: marker[1] as ExampleLang, code: body.join('\n') + '\n', line: i + 1 });
    }
    i = j;
  }
  return out;
}
