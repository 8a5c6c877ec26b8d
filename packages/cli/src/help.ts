import type { CommandSpec, OptionSpec } from './command.js';
import type { CommandEntry } from './registry.js';
import { GLOBAL_OPTIONS } from './args.js';
import type { Style } from './style.js';
import { CLI_VERSION } from './version.js';

const EXIT_CODE_LINES = [
  '0    ok',
  '1    failure: a file is missing or invalid, a chain is broken, a plugin traps (also NOT_IMPLEMENTED)',
  '2    usage error: the command line itself is wrong: an unknown command or flag, a missing or extra',
  '     argument, or a value that does not parse (a URL, number, port, CIDR, capability, or export',
  '     arguments that do not fit its signature). Decided before anything is judged or run.',
  '126  denied: a policy answered no to a well-formed request (never used for bad input)',
  '130  rejected by a person (an approval answered no)',
];

/** The usage rule in one line, for every command's help. */
const USAGE_LINE =
  '2 usage error: an unknown flag, a missing or extra argument, or a value that does not parse (nothing ran)';

function pad(text: string, width: number): string {
  return text.length >= width ? `${text}  ` : text.padEnd(width);
}

function optionLabel(name: string, o: OptionSpec): string {
  const value = o.type === 'string' ? ` <${o.valueName ?? 'value'}>` : '';
  const repeat = o.multiple ? '…' : '';
  return `${o.short ? `-${o.short}, ` : '    '}--${name}${value}${repeat}`;
}

/** The help for `trust --help`: every command, marked when it is not available yet. */
export function formatRootHelp(entries: readonly CommandEntry[], style: Style): string {
  const width = Math.max(...entries.map((e) => e.name.length)) + 4;
  const lines = [
    `${style.bold('trust')} ${CLI_VERSION}: run code you do not trust (WebAssembly plugins, OS processes, AI agents)`,
    'under one capability language and one egress policy, and record every decision.',
    '',
    style.bold('Usage'),
    '  trust <command> [arguments] [options]',
    '',
    style.bold('Commands'),
  ];
  for (const e of entries) {
    const mark = e.unavailable ? ` ${style.yellow('(not available yet)')}` : '';
    lines.push(`  ${pad(e.name, width)}${e.summary}${mark}`);
  }
  lines.push(
    '',
    style.bold('Global options'),
    '  --json        print one JSON document on stdout ({ v, ok, command, result | error })',
    '  --no-color    never colour output (colour is used only on a TTY; NO_COLOR is respected)',
    '  -h, --help    show help; `trust <command> --help` has examples',
    '  -V, --version print the version',
    '',
    style.bold('Exit codes'),
    ...EXIT_CODE_LINES.map((l) => `  ${l}`),
    '',
    'Start with `trust doctor`, then `trust <command> --help`.',
  );
  return `${lines.join('\n')}\n`;
}

/** The help for a group such as `trust egress`. */
export function formatGroupHelp(group: string, entries: readonly CommandEntry[], style: Style): string {
  const width = Math.max(...entries.map((e) => e.name.length)) + 4;
  const lines = [
    style.bold('Usage'),
    `  trust ${group} <subcommand> [arguments] [options]`,
    '',
    style.bold('Subcommands'),
  ];
  for (const e of entries) {
    const mark = e.unavailable ? ` ${style.yellow('(not available yet)')}` : '';
    lines.push(`  ${pad(e.name, width)}${e.summary}${mark}`);
  }
  lines.push('', `Run \`trust ${group} <subcommand> --help\` for examples.`);
  return `${lines.join('\n')}\n`;
}

/** The help for an unavailable command: what it will do and why it cannot run yet. */
export function formatUnavailableHelp(entry: CommandEntry, style: Style): string {
  return (
    `${style.bold(`trust ${entry.name}`)}: ${entry.summary}\n\n` +
    `${style.yellow('not available yet')}: ${entry.unavailable}.\n` +
    'Running it exits 1 with code NOT_IMPLEMENTED.\n'
  );
}

/** The help for one command, teaching by example. */
export function formatCommandHelp(spec: CommandSpec, style: Style): string {
  const args = spec.positionals.map((p) => {
    const core = `<${p.name}>${p.variadic ? '…' : ''}`;
    return p.required === false ? `[${core}]` : core;
  });
  if (spec.passthrough) args.push(`-- <${spec.passthrough.name}>…`);
  const lines = [`${style.bold(`trust ${spec.name}`)}: ${spec.summary}`];
  if (spec.description) lines.push('', spec.description);
  lines.push('', style.bold('Usage'), `  trust ${spec.name} ${[...args, '[options]'].join(' ')}`);
  if (spec.positionals.length > 0 || spec.passthrough) {
    lines.push('', style.bold('Arguments'));
    const items: (readonly [string, string])[] = spec.positionals.map((p) => [`<${p.name}>`, p.description] as const);
    if (spec.passthrough) items.push([`<${spec.passthrough.name}>…`, spec.passthrough.description]);
    const w = Math.max(...items.map(([l]) => l.length)) + 4;
    for (const [l, d] of items) lines.push(`  ${pad(l, w)}${d}`);
  }
  const opts = Object.entries({ ...spec.options, ...GLOBAL_OPTIONS }).map(
    ([n, o]) => [optionLabel(n, o), o.description] as const,
  );
  const w = Math.max(...opts.map(([l]) => l.length)) + 4;
  lines.push('', style.bold('Options'), ...opts.map(([l, d]) => `  ${pad(l, w)}${d}`));
  lines.push('', style.bold('Examples'));
  for (const ex of spec.examples) lines.push(`  ${style.dim(`# ${ex.explain}`)}`, `  ${ex.command}`, '');
  lines.push(
    style.bold('JSON output (--json)'),
    `  { "v": 1, "ok": true, "command": "${spec.name}", "result": ${spec.jsonShape} }`,
  );
  lines.push(
    '  on failure: { "v": 1, "ok": false, "command": …, "error": { "code", "message", "hint"?, "exitCode" } }',
  );
  lines.push('', style.bold('Exit codes'), '  0 ok, 1 failure', `  ${USAGE_LINE}`);
  for (const c of spec.exitCodes ?? []) lines.push(`  ${c}`);
  return `${lines.join('\n')}\n`;
}
