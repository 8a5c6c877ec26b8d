import { TrustError } from '@trust/core';
import type { Interp } from './shell-interp.js';
import { ExitSignal, LoopSignal, ReturnSignal } from './shell-state.js';
import type { ExpandScope, Io, RunState } from './shell-state.js';
import { splitIfs } from './shell-ifs.js';

/** Builtins that change the shell itself; they use no tools. Summaries feed `help`. */
export const BUILTIN_SUMMARIES: Readonly<Record<string, string>> = {
  export: 'set variables (export NAME=VALUE); the virtual shell has one environment',
  local: 'set variables (functions share the shell scope)',
  declare: 'set variables (declare NAME=VALUE; -a for an indexed array)',
  readonly: 'set variables (not enforced read-only)',
  unset: 'remove variables, arrays or functions',
  shift: 'drop the first N positional parameters',
  exit: 'end the shell (or subshell) with a status',
  return: 'end a function with a status',
  set: 'options: -e (errexit), -u (nounset), -o pipefail, +X to clear; set -- ARGS sets $1…',
  break: 'leave N enclosing loops',
  continue: 'next iteration of the Nth enclosing loop',
  read: 'read a line of stdin into variables (-r raw, -a ARRAY, -p ignored); status 1 at end of input',
};

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Runs a builtin; `undefined` when argv is not one. */
export async function execBuiltin(
  ip: Interp,
  argv: readonly string[],
  io: Io,
  scope: ExpandScope,
  st: RunState,
): Promise<number | undefined> {
  const [name = '', ...args] = argv;
  if (!(name in BUILTIN_SUMMARIES))
    return name === 'printf' && args[0] === '-v' ? printfVar(ip, args, io, scope, st) : undefined;
  if (args[0] === '--help') {
    io.out.write(`${name}: ${BUILTIN_SUMMARIES[name]}\n`);
    return 0;
  }
  st.commands += 1;
  st.trace.push({ command: name, tools: [], outcome: 'ran' });
  switch (name) {
    case 'export':
    case 'local':
    case 'declare':
    case 'readonly': {
      const array = args.includes('-a');
      for (const a of args) {
        if (a.startsWith('-')) continue;
        const i = a.indexOf('=');
        const key = i > 0 ? a.slice(0, i) : a;
        if (!NAME.test(key)) {
          io.err.write(`adf_shell: ${name}: \`${a}': not a valid identifier\n`);
          return 1;
        }
        if (array && !scope.arrays.has(key)) {
          scope.vars.delete(key);
          scope.arrays.set(key, []);
        }
        if (i > 0) {
          if (scope.arrays.has(key)) scope.arrays.get(key)![0] = a.slice(i + 1);
          else scope.vars.set(key, a.slice(i + 1));
        } else if (!scope.vars.has(key) && !scope.arrays.has(key) && name !== 'export') scope.vars.set(key, '');
      }
      return 0;
    }
    case 'unset': {
      const fn = args.includes('-f');
      for (const a of args) {
        if (a.startsWith('-')) continue;
        if (fn) st.functions.delete(a);
        else {
          scope.vars.delete(a);
          scope.arrays.delete(a);
        }
      }
      return 0;
    }
    case 'shift': {
      const n = args[0] === undefined ? 1 : Number(args[0]);
      if (!Number.isInteger(n) || n < 0 || n > scope.positional.length) return 1;
      scope.positional = scope.positional.slice(n);
      return 0;
    }
    case 'exit':
      throw new ExitSignal(statusArg(args[0], scope));
    case 'return':
      throw new ReturnSignal(statusArg(args[0], scope));
    case 'break':
    case 'continue':
      throw new LoopSignal(name, Math.max(1, Number(args[0] ?? 1) || 1));
    case 'set':
      return setOptions(args, io, scope);
    case 'read':
      return read(args, io, scope);
    default:
      return undefined;
  }
}

function statusArg(a: string | undefined, scope: ExpandScope): number {
  if (a === undefined) return scope.lastStatus;
  if (!/^-?[0-9]+$/.test(a)) throw new TrustError('SHELL_USAGE', `adf_shell: ${a}: numeric argument required`);
  return ((Number(a) % 256) + 256) % 256;
}

const LONG_OPTIONS: Readonly<Record<string, 'errexit' | 'nounset' | 'pipefail'>> = {
  errexit: 'errexit',
  nounset: 'nounset',
  pipefail: 'pipefail',
};
const SHORT_OPTIONS: Readonly<Record<string, 'errexit' | 'nounset'>> = { e: 'errexit', u: 'nounset' };

function setOptions(args: readonly string[], io: Io, scope: ExpandScope): number {
  if (args.length === 0) {
    for (const [k, v] of [...scope.vars].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) io.out.write(`${k}=${v}\n`);
    return 0;
  }
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--' || a === '-') {
      scope.positional = args.slice(i + 1);
      return 0;
    }
    if (!/^[-+]/.test(a)) {
      scope.positional = args.slice(i);
      return 0;
    }
    const on = a[0] === '-';
    for (const letter of a.slice(1)) {
      if (letter === 'o') {
        const long = args[++i] ?? '';
        const opt = LONG_OPTIONS[long];
        if (!opt)
          throw new TrustError(
            'SHELL_UNSUPPORTED',
            `adf_shell: set: unsupported option -o ${long || '(none)'}; supported: errexit, nounset, pipefail`,
          );
        scope.opts[opt] = on;
        continue;
      }
      const opt = SHORT_OPTIONS[letter];
      if (!opt)
        throw new TrustError(
          'SHELL_UNSUPPORTED',
          `adf_shell: set: unsupported option ${a[0]}${letter}; supported: -e, -u, -o pipefail`,
        );
      scope.opts[opt] = on;
    }
  }
  return 0;
}

/** `read`: one line of the shared input, split on blanks into the named variables. */
function read(args: readonly string[], io: Io, scope: ExpandScope): number {
  let raw = false;
  let arrayName: string | undefined;
  const names: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '-r') raw = true;
    else if (a === '-p' || a === '-t') i++;
    else if (a === '-a') arrayName = args[++i];
    else if (a.startsWith('-'))
      throw new TrustError('SHELL_UNSUPPORTED', `adf_shell: read: unsupported option ${a}; supported: -r, -a, -p`);
    else names.push(a);
  }
  const rest = io.stdin.slice(io.cursor.pos);
  if (rest === '') {
    for (const n of names) scope.vars.set(n, '');
    return 1;
  }
  let line = '';
  let i = 0;
  for (; i < rest.length; i++) {
    const c = rest[i]!;
    if (c === '\n') break;
    if (c === '\\' && !raw) {
      i++;
      if (rest[i] !== '\n' && i < rest.length) line += rest[i];
      continue;
    }
    line += c;
  }
  const complete = i < rest.length;
  io.cursor.pos += complete ? i + 1 : i;
  const ifs = scope.vars.get('IFS') ?? ' \t\n';
  if (arrayName) {
    scope.vars.delete(arrayName);
    scope.arrays.set(arrayName, splitIfs(line, ifs, Infinity));
    return complete ? 0 : 1;
  }
  if (names.length === 0) {
    scope.vars.set('REPLY', line);
    return complete ? 0 : 1;
  }
  const fields = splitIfs(line, ifs, names.length);
  names.forEach((n, k) => {
    scope.vars.delete(n);
    scope.arrays.delete(n);
    scope.vars.set(n, fields[k] ?? '');
  });
  return complete ? 0 : 1;
}

/** `printf -v NAME FORMAT ARGS`: printf's output into a variable; printf itself passes the choke point. */
async function printfVar(
  ip: Interp,
  args: readonly string[],
  io: Io,
  scope: ExpandScope,
  st: RunState,
): Promise<number> {
  const name = args[1] ?? '';
  if (!NAME.test(name)) {
    io.err.write(`adf_shell: printf: \`${name}': not a valid identifier\n`);
    return 2;
  }
  const buf = ip.bufferSink();
  const status = await ip.dispatch(['printf', ...args.slice(2)], [], { ...io, out: buf }, scope, st);
  scope.arrays.delete(name);
  scope.vars.set(name, buf.text());
  return status;
}
