import { formatRootHelp } from './help.js';
import { COMMANDS } from './registry.js';
import { createStyle } from './style.js';

/**
 * The root help (`trust`, `trust --help`), plain and styled. The build writes both to
 * `dist/root-help.json` for `bin/trust.cjs`, which prints them without loading the ES module CLI.
 *
 * @example
 * rootHelpTexts().plain.startsWith('trust'); // true
 */
export function rootHelpTexts(): { plain: string; color: string } {
  return { plain: formatRootHelp(COMMANDS, createStyle(false)), color: formatRootHelp(COMMANDS, createStyle(true)) };
}
