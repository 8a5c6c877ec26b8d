import type { ShellCommand } from '../shell-types.js';
import { BUILTIN_SUMMARIES } from '../shell-builtins.js';

/**
 * `help` entries for the shell's builtins. The interpreter runs them itself (they change the
 * shell); these are reached only when another command runs one (`xargs read`, `env export`).
 */
export function builtinCommands(): ShellCommand[] {
  return Object.entries(BUILTIN_SUMMARIES).map(([name, summary]) => ({
    name,
    summary: `${summary} (builtin)`,
    tools: () => [],
    async run(ctx) {
      ctx.err.write(`${name}: a shell builtin; run it directly, not through another command\n`);
      return 2;
    },
  }));
}
