/**
 * Static `import` declarations at the top of agent code, turned into `require` calls before the code
 * is compiled as a function body (where `import` declarations are not valid syntax). Only the
 * leading block of the file is rewritten, one line for one line (so positions in errors stay right);
 * an `import` anywhere else is left as it is and fails to compile, with QuickJS's own message.
 * `require` then decides, by name, what may be loaded: this is a convenience, not a check.
 */

const SPEC = String.raw`['"]([^'"\n]+)['"]`;
const NAMED = String.raw`\{([^}]*)\}`;
const IDENT = String.raw`[A-Za-z_$][\w$]*`;
const FORMS: ReadonlyArray<{ re: RegExp; to: (m: RegExpExecArray) => string }> = [
  { re: new RegExp(String.raw`^import\s+${SPEC}\s*;?\s*$`), to: (m) => `require(${q(m[1]!)});` },
  {
    re: new RegExp(String.raw`^import\s+\*\s+as\s+(${IDENT})\s+from\s+${SPEC}\s*;?\s*$`),
    to: (m) => `const ${m[1]} = require(${q(m[2]!)});`,
  },
  {
    re: new RegExp(String.raw`^import\s+${NAMED}\s+from\s+${SPEC}\s*;?\s*$`),
    to: (m) => `const { ${named(m[1]!)} } = require(${q(m[2]!)});`,
  },
  {
    re: new RegExp(String.raw`^import\s+(${IDENT})\s*,\s*${NAMED}\s+from\s+${SPEC}\s*;?\s*$`),
    to: (m) => `const ${m[1]} = require(${q(m[3]!)}), { ${named(m[2]!)} } = ${m[1]};`,
  },
  {
    re: new RegExp(String.raw`^import\s+(${IDENT})\s*,\s*\*\s+as\s+(${IDENT})\s+from\s+${SPEC}\s*;?\s*$`),
    to: (m) => `const ${m[2]} = require(${q(m[3]!)}), ${m[1]} = ${m[2]};`,
  },
  {
    re: new RegExp(String.raw`^import\s+(${IDENT})\s+from\s+${SPEC}\s*;?\s*$`),
    to: (m) => `const ${m[1]} = require(${q(m[2]!)});`,
  },
];
const BINDING = new RegExp(String.raw`^(${IDENT})(?:\s+as\s+(${IDENT}))?$`);

const q = (spec: string) => JSON.stringify(spec);
function named(list: string): string {
  return list
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => {
      const m = BINDING.exec(s);
      if (!m) return s; // not a plain binding: left for the compiler to reject
      return m[2] && m[2] !== m[1] ? `${m[1]}: ${m[2]}` : m[1]!;
    })
    .join(', ');
}

/**
 * Rewrites the leading `import` declarations of `code` (blank lines and `//` comments may sit
 * between them) into `require` calls, keeping the line count.
 *
 * @example
 * rewriteImports("import path from 'node:path';\nreturn path.join('a', 'b');");
 * // "const path = require(\"node:path\");\nreturn path.join('a', 'b');"
 */
export function rewriteImports(code: string): string {
  if (!/^\s*(?:\/\/[^\n]*\n\s*)*import[\s{*'"]/.test(code)) return code;
  const lines = code.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('//')) continue;
    if (!line.startsWith('import')) break;
    let done = false;
    for (const f of FORMS) {
      const m = f.re.exec(line);
      if (m) {
        lines[i] = f.to(m);
        done = true;
        break;
      }
    }
    if (!done) break;
  }
  return lines.join('\n');
}
