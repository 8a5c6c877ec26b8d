import type { CliIo } from './io.js';
import type { CommandEntry } from './registry.js';
import { COMMANDS, groupsOf } from './registry.js';
import { createStyle, shouldColor } from './style.js';
import { CliError, notAvailableError, usageError } from './cli-error.js';
import { didYouMean, didYouMeanFlag } from './did-you-mean.js';
import { createOutput, printError } from './output.js';
import { CLI_VERSION } from './version.js';
import { EXIT_CODES } from './exit-code.js';
import { parseCommandArgs } from './args.js';
import { formatCommandHelp, formatGroupHelp, formatRootHelp, formatUnavailableHelp } from './help.js';

const LEADING_GLOBALS = ['--help', '-h', '--version', '-V', '--json', '--no-color'];

interface Resolved {
  readonly entry: CommandEntry;
  readonly args: readonly string[];
}

/**
 * Finds the command named by the first one or two words of `argv`. Returns a group name when
 * `argv` names only a group (`trust egress`), or throws a usage error with a did-you-mean hint.
 */
function resolve(
  words: readonly string[],
  entries: readonly CommandEntry[],
): Resolved | { group: string; args: readonly string[] } {
  const [first = '', second] = words;
  const groups = groupsOf(entries);
  const members = groups.get(first);
  if (members) {
    if (second === undefined || second.startsWith('-')) return { group: first, args: words.slice(1) };
    const entry = members.find((e) => e.name === `${first} ${second}`);
    if (entry) return { entry, args: words.slice(2) };
    const subs = members.map((e) => e.name.slice(first.length + 1));
    const s = didYouMean(second, subs);
    throw usageError(
      'CLI_USAGE_UNKNOWN_COMMAND',
      `unknown command 'trust ${first} ${second}'`,
      s ? `did you mean 'trust ${first} ${s}'?` : `the subcommands are: ${subs.join(', ')}`,
    );
  }
  const entry = entries.find((e) => e.name === first);
  if (entry) return { entry, args: words.slice(1) };
  const tops = [...new Set(entries.map((e) => e.name.split(' ')[0] as string))];
  const s = didYouMean(first, tops);
  throw usageError(
    'CLI_USAGE_UNKNOWN_COMMAND',
    `unknown command '${first}'`,
    s ? `did you mean 'trust ${s}'?` : 'run `trust --help` to see every command',
  );
}

/**
 * Runs the `trust` command line and returns the exit code. Nothing is imported beyond the
 * command table until a command is chosen, so `trust --help` stays fast.
 *
 * @example
 * process.exitCode = await main(process.argv.slice(2), createProcessIo());
 */
export async function main(
  argv: readonly string[],
  io: CliIo,
  entries: readonly CommandEntry[] = COMMANDS,
): Promise<number> {
  const leading: string[] = [];
  let i = 0;
  while (i < argv.length && (argv[i] as string).startsWith('-')) leading.push(argv[i++] as string);
  const json = leading.includes('--json') || argv.includes('--json');
  const color = leading.includes('--no-color') ? false : undefined;
  const style = createStyle(
    shouldColor({
      env: io.env,
      isTTY: io.stdout.isTTY === true,
      flag: color ?? (argv.includes('--no-color') ? false : undefined),
    }),
  );
  let commandName = '';
  try {
    const unknown = leading.find((f) => !LEADING_GLOBALS.includes(f.split('=')[0] as string));
    if (unknown !== undefined) {
      const s = didYouMeanFlag(unknown.split('=')[0] as string, LEADING_GLOBALS);
      throw usageError(
        'CLI_USAGE_UNKNOWN_OPTION',
        `unknown option '${unknown}'`,
        s ? `did you mean '${s}'?` : 'run `trust --help`',
      );
    }
    if (leading.includes('--version') || leading.includes('-V')) {
      const result = { version: CLI_VERSION, node: process.version };
      io.stdout.write(
        json ? `${JSON.stringify({ v: 1, ok: true, command: 'version', result })}\n` : `trust ${CLI_VERSION}\n`,
      );
      return EXIT_CODES.ok;
    }
    if (i >= argv.length) {
      io.stdout.write(formatRootHelp(entries, style));
      return EXIT_CODES.ok;
    }
    const resolved = resolve(argv.slice(i), entries);
    const globals = leading.filter((f) => f === '--json' || f === '--no-color' || f === '--help' || f === '-h');
    if ('group' in resolved) {
      commandName = resolved.group;
      const members = groupsOf(entries).get(resolved.group) ?? [];
      if (
        globals.includes('--help') ||
        globals.includes('-h') ||
        resolved.args.includes('--help') ||
        resolved.args.includes('-h')
      ) {
        io.stdout.write(formatGroupHelp(resolved.group, members, style));
        return EXIT_CODES.ok;
      }
      throw usageError(
        'CLI_USAGE_MISSING_COMMAND',
        `trust ${resolved.group} needs a subcommand`,
        `one of: ${members.map((e) => e.name.slice(resolved.group.length + 1)).join(', ')}`,
      );
    }
    const { entry } = resolved;
    commandName = entry.name;
    const args = [...globals, ...resolved.args];
    if (!entry.load) {
      if (args.includes('--help') || args.includes('-h')) {
        io.stdout.write(formatUnavailableHelp(entry, style));
        return EXIT_CODES.ok;
      }
      throw notAvailableError(entry.name, entry.unavailable ?? 'not built yet');
    }
    const { command } = await entry.load();
    const parsed = parseCommandArgs(command, args);
    if (parsed.help) {
      io.stdout.write(formatCommandHelp(command, style));
      return EXIT_CODES.ok;
    }
    const out = createOutput(io, { json: parsed.json, command: command.name, color: parsed.color });
    const code = await command.run({
      io,
      out,
      values: parsed.values,
      positionals: parsed.positionals,
      rest: parsed.rest,
    });
    return code ?? EXIT_CODES.ok;
  } catch (error) {
    const shown =
      error instanceof CliError || (typeof error === 'object' && error !== null && 'code' in error)
        ? error
        : wrapInternal(error);
    return printError(io, shown, { json, command: commandName, color });
  }
}

function wrapInternal(error: unknown): CliError {
  const message = error instanceof Error ? error.message : String(error);
  return new CliError('CLI_INTERNAL', `unexpected error: ${message}`, {
    hint: 'this is a bug in trust; set TRUST_DEBUG=1 to see the stack and report it',
    cause: error,
  });
}
