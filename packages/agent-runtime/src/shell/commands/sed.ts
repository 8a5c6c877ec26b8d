import type { ShellCommand } from '../shell-types.js';
import { fileContent } from '../file-content.js';
import { lines } from './text.js';

/** A basic (BRE) or extended (ERE) POSIX regex as a JavaScript one. */
export function posixRegex(source: string, extended: boolean, flags = ''): RegExp {
  let out = '';
  for (let i = 0; i < source.length; i++) {
    const c = source[i]!;
    if (c === '\\' && i + 1 < source.length) {
      const n = source[++i]!;
      if (!extended && '(){}|+?'.includes(n)) out += n;
      else if (n === 'n') out += '\\n';
      else if (n === 't') out += '\\t';
      else out += `\\${n}`;
      continue;
    }
    if (c === '[') {
      // a bracket expression is copied through, with POSIX classes mapped
      const end = source.indexOf(']', i + (source[i + 1] === '^' ? 3 : 2));
      if (end < 0) {
        out += '\\[';
        continue;
      }
      out += source
        .slice(i, end + 1)
        .replace(/\[:alpha:\]/g, 'A-Za-z')
        .replace(/\[:digit:\]/g, '0-9')
        .replace(/\[:alnum:\]/g, 'A-Za-z0-9')
        .replace(/\[:space:\]/g, ' \\t\\n\\r\\f\\v')
        .replace(/\[:upper:\]/g, 'A-Z')
        .replace(/\[:lower:\]/g, 'a-z')
        .replace(/\[:punct:\]/g, '!-\\/:-@\\[-`{-~')
        .replace(/\\/g, '\\\\');
      i = end;
      continue;
    }
    if (!extended && '(){}|+?'.includes(c)) out += `\\${c}`;
    else out += c;
  }
  return new RegExp(out, flags);
}

type Address = { kind: 'line'; n: number } | { kind: 'last' } | { kind: 're'; re: RegExp };
interface SedCmd {
  a1?: Address;
  a2?: Address;
  negate: boolean;
  op: string;
  re?: RegExp;
  rep?: string;
  global?: boolean;
  print?: boolean;
  nth?: number;
  text?: string;
  from?: string;
  to?: string;
  inRange?: boolean;
}

function parseScript(script: string, extended: boolean): SedCmd[] {
  const cmds: SedCmd[] = [];
  let i = 0;
  const ws = () => {
    while (i < script.length && /[\s;]/.test(script[i]!)) i++;
  };
  const delimited = (d: string): string => {
    let s = '';
    while (i < script.length && script[i] !== d) {
      if (script[i] === '\\' && script[i + 1] === d) {
        s += d;
        i += 2;
        continue;
      }
      if (script[i] === '\\') {
        s += script[i]! + (script[i + 1] ?? '');
        i += 2;
        continue;
      }
      s += script[i++];
    }
    if (script[i] !== d) throw new Error(`unterminated command: ${script}`);
    i++;
    return s;
  };
  const address = (): Address | undefined => {
    const c = script[i];
    if (c === '$') {
      i++;
      return { kind: 'last' };
    }
    if (c !== undefined && /[0-9]/.test(c)) {
      let n = '';
      while (/[0-9]/.test(script[i] ?? '')) n += script[i++];
      return { kind: 'line', n: Number(n) };
    }
    if (c === '/' || c === '\\') {
      if (c === '\\') i++;
      const d = script[i++]!;
      return { kind: 're', re: posixRegex(delimited(d), extended) };
    }
    return undefined;
  };
  for (ws(); i < script.length; ws()) {
    const cmd: SedCmd = { negate: false, op: '' };
    const a1 = address();
    if (a1) {
      cmd.a1 = a1;
      if (script[i] === ',') {
        i++;
        const a2 = address();
        if (!a2) throw new Error('bad address range');
        cmd.a2 = a2;
      }
    }
    while (script[i] === ' ') i++;
    if (script[i] === '!') {
      cmd.negate = true;
      i++;
    }
    while (script[i] === ' ') i++;
    const op = script[i++] ?? '';
    cmd.op = op;
    if (op === 's') {
      const d = script[i++]!;
      const pattern = delimited(d);
      cmd.rep = delimited(d);
      let fl = '';
      while (i < script.length && /[gpiI0-9]/.test(script[i]!)) fl += script[i++];
      cmd.global = fl.includes('g');
      cmd.print = fl.includes('p');
      cmd.nth = Number(fl.replace(/[^0-9]/g, '')) || 1;
      cmd.re = posixRegex(pattern, extended, (cmd.global ? 'g' : '') + (/[iI]/.test(fl) ? 'i' : ''));
    } else if (op === 'y') {
      const d = script[i++]!;
      cmd.from = delimited(d).replace(/\\n/g, '\n');
      cmd.to = delimited(d).replace(/\\n/g, '\n');
      if ([...cmd.from].length !== [...cmd.to].length) throw new Error('y: strings of different lengths');
    } else if (op === 'a' || op === 'i' || op === 'c') {
      if (script[i] === '\\') i++;
      while (script[i] === ' ') i++;
      let t = '';
      while (i < script.length && script[i] !== '\n') t += script[i++];
      cmd.text = t.replace(/\\$/, '');
    } else if (!['d', 'p', 'q', '=', 'n'].includes(op))
      throw new Error(
        `unsupported command ${JSON.stringify(op)} (supported: s y d p q = n a i c, addresses N $ /re/ and ranges)`,
      );
    cmds.push(cmd);
  }
  return cmds;
}

function replacement(rep: string): (m: string, ...groups: unknown[]) => string {
  return (m, ...groups) =>
    rep.replace(/\\([0-9n&\\])|&/g, (tok, g: string | undefined) => {
      if (tok === '&') return m;
      if (g === 'n') return '\n';
      if (g === '&' || g === '\\') return g;
      return String(groups[Number(g) - 1] ?? '');
    });
}

/** Runs a sed script over text; returns the output. */
export function runSed(script: string, text: string, options: { quiet: boolean; extended: boolean }): string {
  const cmds = parseScript(script, options.extended);
  const input = lines(text);
  let out = '';
  const matches = (a: Address, line: string, n: number) =>
    a.kind === 'line' ? n === a.n : a.kind === 'last' ? n === input.length : a.re.test(line);
  for (let n = 1; n <= input.length; n++) {
    let line = input[n - 1]!;
    let deleted = false;
    let quit = false;
    const after: string[] = [];
    for (const c of cmds) {
      let hit = true;
      if (c.a1 && !c.a2) hit = matches(c.a1, line, n);
      else if (c.a1 && c.a2) {
        if (!c.inRange && matches(c.a1, line, n)) {
          c.inRange = !(c.a2.kind === 'line' && c.a2.n <= n);
          hit = true;
        } else if (c.inRange) {
          hit = true;
          if (matches(c.a2, line, n)) c.inRange = false;
        } else hit = false;
      }
      if (c.negate) hit = !hit;
      if (!hit) continue;
      if (c.op === 's' && c.re) {
        c.re.lastIndex = 0;
        if (!c.re.test(line)) continue;
        c.re.lastIndex = 0;
        let k = 0;
        const rep = replacement(c.rep ?? '');
        line =
          c.global && c.nth === 1
            ? line.replace(c.re, rep)
            : line.replace(new RegExp(c.re.source, c.re.flags.includes('i') ? 'gi' : 'g'), (m, ...g) =>
                ++k === c.nth ? rep(m, ...g) : m,
              );
        if (c.print) out += `${line}\n`;
      } else if (c.op === 'y')
        line = [...line]
          .map((ch) => {
            const x = [...c.from!].indexOf(ch);
            return x < 0 ? ch : [...c.to!][x]!;
          })
          .join('');
      else if (c.op === 'd') {
        deleted = true;
        break;
      } else if (c.op === 'p') out += `${line}\n`;
      else if (c.op === '=') out += `${n}\n`;
      else if (c.op === 'q') {
        quit = true;
        break;
      } else if (c.op === 'a') after.push(c.text ?? '');
      else if (c.op === 'i') out += `${c.text ?? ''}\n`;
      else if (c.op === 'c') {
        out += `${c.text ?? ''}\n`;
        deleted = true;
        break;
      } else if (c.op === 'n') {
        if (!options.quiet) out += `${line}\n`;
        if (n >= input.length) {
          deleted = true;
          break;
        }
        n++;
        line = input[n - 1]!;
      }
    }
    if (!deleted && !options.quiet) out += `${line}\n`;
    for (const a of after) out += `${a}\n`;
    if (quit) break;
  }
  return out;
}

function parseSedArgs(argv: readonly string[]) {
  const scripts: string[] = [];
  const files: string[] = [];
  let quiet = false;
  let extended = false;
  let inPlace = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '-e' || a === '--expression') scripts.push(argv[++i] ?? '');
    else if (a === '-n' || a === '--quiet') quiet = true;
    else if (a === '-E' || a === '-r') extended = true;
    else if (a === '-i' || a.startsWith('-i')) inPlace = true;
    else if (/^-[nEri]+$/.test(a)) {
      quiet ||= a.includes('n');
      extended ||= /[Er]/.test(a);
      inPlace ||= a.includes('i');
    } else if (a.startsWith('-') && a !== '-') return { error: `sed: option ${a} is not supported` };
    else if (scripts.length === 0 && !argv.slice(0, i).some((x) => x === '-e')) scripts.push(a);
    else files.push(a);
  }
  return { scripts, files, quiet, extended, inPlace };
}

export const sed: ShellCommand = {
  name: 'sed',
  summary:
    'stream editor: s///g, y, d, p, q, =, a/i/c, addresses and ranges, -n -E -e; -i edits files (→ fs_read, ' +
    '-i → fs_write)',
  tools: (argv) => {
    const p = parseSedArgs(argv);
    if ('error' in p) return [];
    return p.files.length === 0 ? [] : p.inPlace ? ['fs_read', 'fs_write'] : ['fs_read'];
  },
  async run(ctx, argv) {
    const p = parseSedArgs(argv);
    if ('error' in p) {
      ctx.err.write(`${p.error}\n`);
      return 1;
    }
    if (p.scripts.length === 0) {
      ctx.err.write('usage: sed [-n] [-E] [-i] SCRIPT [FILE...]\n');
      return 1;
    }
    const script = p.scripts.join('\n');
    try {
      if (p.inPlace) {
        if (p.files.length === 0) {
          ctx.err.write('sed: -i needs a file\n');
          return 1;
        }
        for (const f of p.files) {
          const text = fileContent(await ctx.tool('fs_read', { path: f }));
          await ctx.tool('fs_write', { path: f, content: runSed(script, text, p), mode: 'write' });
        }
        return 0;
      }
      let text = '';
      for (const f of p.files) text += f === '-' ? ctx.stdin : fileContent(await ctx.tool('fs_read', { path: f }));
      ctx.out.write(runSed(script, p.files.length ? text : ctx.stdin, p));
      return 0;
    } catch (e) {
      if ((e as { code?: string }).code) throw e;
      ctx.err.write(`sed: ${(e as Error).message}\n`);
      return 1;
    }
  },
};
