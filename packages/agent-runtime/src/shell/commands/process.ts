import type { ShellCommand } from '../shell-types.js';
import { ExitSignal } from '../shell-state.js';
import { normalizeShellPath } from '../shell-path.js';
import { noTools } from './text.js';

// These commands run another command; it goes back through the choke point (and is gated there),
// so they declare no tools of their own.

export const env: ShellCommand = {
  name: 'env',
  summary: 'print variables, or run COMMAND with NAME=VALUE added (-i: only those); COMMAND is gated',
  tools: noTools,
  nested(argv) {
    let i = 0;
    while (i < argv.length && (argv[i]!.startsWith('-') || /^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[i]!))) i++;
    return i < argv.length ? { commands: [argv.slice(i)] } : {};
  },
  async run(ctx, argv) {
    let i = 0;
    let clearEnv = false;
    const vars: Record<string, string> = {};
    for (; i < argv.length; i++) {
      const a = argv[i]!;
      if (a === '-i' || a === '-') clearEnv = true;
      else if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(a)) vars[a.slice(0, a.indexOf('='))] = a.slice(a.indexOf('=') + 1);
      else if (a.startsWith('-')) {
        ctx.err.write(`env: option ${a} is not supported\n`);
        return 125;
      } else break;
    }
    if (i >= argv.length) {
      const all = new Map([...(clearEnv ? [] : ctx.env()), ...Object.entries(vars)]);
      ctx.out.write([...all].map(([k, v]) => `${k}=${v}\n`).join(''));
      return 0;
    }
    return ctx.command(argv.slice(i), { env: vars, clearEnv });
  },
};

/** `timeout` durations: N, Ns, Nm, Nh, Nd (fractions allowed). */
function durationMs(s: string): number | undefined {
  const m = /^([0-9]*\.?[0-9]+)([smhd]?)$/.exec(s);
  if (!m) return undefined;
  return (
    Number(m[1]) *
    ({ '': 1000, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as Record<string, number>)[m[2] ?? '']!
  );
}

export const timeout: ShellCommand = {
  name: 'timeout',
  summary:
    'run COMMAND; once DURATION (N[smhd]) has passed it ends at its next command with 124 (a single slow ' +
    'tool call is not interrupted); COMMAND is gated',
  tools: noTools,
  nested(argv) {
    let i = 0;
    while (argv[i]?.startsWith('-')) i += argv[i] === '-s' || argv[i] === '-k' ? 2 : 1;
    return argv.length > i + 1 ? { commands: [argv.slice(i + 1)] } : {};
  },
  async run(ctx, argv) {
    let i = 0;
    while (argv[i]?.startsWith('-')) i += argv[i] === '-s' || argv[i] === '-k' ? 2 : 1;
    const ms = durationMs(argv[i] ?? '');
    if (ms === undefined || argv.length <= i + 1) {
      ctx.err.write('usage: timeout DURATION COMMAND [ARG...]\n');
      return 125;
    }
    return ctx.command(argv.slice(i + 1), { timeoutMs: ms });
  },
};

export const nohup: ShellCommand = {
  name: 'nohup',
  summary: 'run COMMAND (there are no hangups in the virtual shell); COMMAND is gated',
  tools: noTools,
  nested: (argv) => (argv.length > 0 ? { commands: [argv] } : {}),
  async run(ctx, argv) {
    if (argv.length === 0) {
      ctx.err.write('nohup: missing operand\n');
      return 125;
    }
    return ctx.command(argv);
  },
};

export const exec: ShellCommand = {
  name: 'exec',
  summary: 'run COMMAND, then end the shell with its status; COMMAND is gated',
  tools: noTools,
  nested: (argv) => (argv.length > 0 ? { commands: [argv] } : {}),
  async run(ctx, argv) {
    if (argv.length === 0) return 0;
    throw new ExitSignal(await ctx.command(argv));
  },
};

export const command: ShellCommand = {
  name: 'command',
  summary: 'command -v NAME: say whether NAME exists; command CMD ARGS: run CMD (gated), skipping functions',
  tools: noTools,
  nested(argv) {
    if (argv[0] === '-v' || argv[0] === '-V') return {};
    const args = argv[0] === '-p' || argv[0] === '--' ? argv.slice(1) : argv;
    return args.length > 0 ? { commands: [args] } : {};
  },
  async run(ctx, argv) {
    if (argv[0] === '-v' || argv[0] === '-V') {
      let status = 0;
      for (const n of argv.slice(1)) {
        if (ctx.has(n)) ctx.out.write(`${n}\n`);
        else status = 1;
      }
      return status;
    }
    const args = argv[0] === '-p' || argv[0] === '--' ? argv.slice(1) : argv;
    if (args.length === 0) return 0;
    return ctx.command(args, { skipFunctions: true });
  },
};

export const realpath: ShellCommand = {
  name: 'realpath',
  summary: 'a path normalised within the virtual file store (no symlinks, no working directory)',
  tools: noTools,
  async run(ctx, argv) {
    const paths = argv.filter((a) => !a.startsWith('-'));
    if (paths.length === 0) {
      ctx.err.write('realpath: missing operand\n');
      return 1;
    }
    for (const p of paths)
      ctx.out.write(`/${normalizeShellPath(p).replace(/^\/+/, '')}\n`.replace(/\/\n$/, '\n').replace(/^\n$/, '/\n'));
    return 0;
  },
};

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const FULL_DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const FULL_MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** strftime over UTC: %Y %m %d %e %H %M %S %s %j %a %A %b %B %y %F %T %D %R %Z %z %u %w %N %n %t %%. */
export function strftimeUtc(d: Date, format: string): string {
  const p = (n: number, w = 2) => String(n).padStart(w, '0');
  const start = Date.UTC(d.getUTCFullYear(), 0, 1);
  return format.replace(/%([a-zA-Z%])/g, (m, c: string) => {
    switch (c) {
      case 'Y':
        return String(d.getUTCFullYear());
      case 'm':
        return p(d.getUTCMonth() + 1);
      case 'd':
        return p(d.getUTCDate());
      case 'e':
        return String(d.getUTCDate()).padStart(2, ' ');
      case 'H':
        return p(d.getUTCHours());
      case 'M':
        return p(d.getUTCMinutes());
      case 'S':
        return p(d.getUTCSeconds());
      case 's':
        return String(Math.floor(d.getTime() / 1000));
      case 'N':
        return p(d.getUTCMilliseconds(), 3) + '000000';
      case 'j':
        return p(Math.floor((d.getTime() - start) / 86_400_000) + 1, 3);
      case 'a':
        return DAYS[d.getUTCDay()]!;
      case 'A':
        return FULL_DAYS[d.getUTCDay()]!;
      case 'b':
      case 'h':
        return MONTHS[d.getUTCMonth()]!;
      case 'B':
        return FULL_MONTHS[d.getUTCMonth()]!;
      case 'y':
        return p(d.getUTCFullYear() % 100);
      case 'u':
        return String(d.getUTCDay() || 7);
      case 'w':
        return String(d.getUTCDay());
      case 'F':
        return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}`;
      case 'T':
        return `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;
      case 'R':
        return `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
      case 'D':
        return `${p(d.getUTCMonth() + 1)}/${p(d.getUTCDate())}/${p(d.getUTCFullYear() % 100)}`;
      case 'Z':
        return 'UTC';
      case 'z':
        return '+0000';
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case '%':
        return '%';
      default:
        return m;
    }
  });
}

export const date: ShellCommand = {
  name: 'date',
  summary: 'the time in UTC: date [-u] [-d @EPOCH|ISO] [-I] [+FORMAT] (%Y %m %d %H %M %S %s %F %T …)',
  tools: noTools,
  async run(ctx, argv) {
    let when = new Date();
    let format = '%a %b %e %H:%M:%S %Z %Y';
    for (let i = 0; i < argv.length; i++) {
      const a = argv[i]!;
      if (a === '-u' || a === '--utc') continue;
      if (a === '-d' || a === '--date') {
        const v = argv[++i] ?? '';
        when = v.startsWith('@') ? new Date(Number(v.slice(1)) * 1000) : new Date(v);
        if (Number.isNaN(when.getTime())) {
          ctx.err.write(`date: invalid date '${v}'\n`);
          return 1;
        }
      } else if (a === '-I' || a === '--iso-8601') format = '%F';
      else if (a.startsWith('+')) format = a.slice(1);
      else {
        ctx.err.write(`date: option ${a} is not supported\n`);
        return 1;
      }
    }
    ctx.out.write(`${strftimeUtc(when, format)}\n`);
    return 0;
  },
};
