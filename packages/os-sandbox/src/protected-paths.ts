/** One protected name inside every writable root: a file or a whole directory, and why. */
export interface ProtectedEntry {
  /** A single path component (`.bashrc`, `.claude`). */
  readonly name: string;
  /** What a placeholder for it is when it does not exist: an empty file or an empty directory. */
  readonly type: 'file' | 'dir';
  readonly why: string;
}

const entry = (name: string, type: 'file' | 'dir', why: string): ProtectedEntry => Object.freeze({ name, type, why });

/**
 * THE protected list: files and directories that the host (a shell, git, direnv, npm, an editor,
 * an AI coding tool) later reads or runs on its own. Inside every writable root each is mounted
 * read-only when it exists and made unreachable for writing when it does not. It covers the
 * mandatory-deny list of sandbox-runtime (`.bashrc .bash_profile .zshrc .zprofile .profile
 * .gitconfig .gitmodules .ripgreprc .mcp.json`, `.vscode/ .idea/ .claude/commands/
 * .claude/agents/ .git/hooks/ .git/config`) and more. Directories are protected whole, since a
 * protected file inside would leave its siblings writable (`.vscode/launch.json` next to
 * `tasks.json`, `.claude/settings.json` next to `commands/`). `.git` is handled apart (see
 * `PROTECTED_GIT`): bound read-only whole when it exists, a placeholder directory when it does not.
 * A policy adds names with `protectedPaths`.
 */
export const PROTECTED_ENTRIES: readonly ProtectedEntry[] = Object.freeze([
  ...[
    '.bashrc',
    '.bash_profile',
    '.bash_login',
    '.bash_logout',
    '.profile',
    '.zshrc',
    '.zprofile',
    '.zshenv',
    '.zlogin',
    '.zlogout',
  ].map((n) => entry(n, 'file', 'a shell sources it at start')),
  entry('.gitconfig', 'file', 'git configuration (aliases, hooksPath, fsmonitor run programs)'),
  entry('.gitmodules', 'file', 'submodule URLs and update commands'),
  entry('.gitattributes', 'file', 'git filter and diff drivers run programs'),
  entry('.envrc', 'file', 'direnv runs it on cd'),
  entry('.npmrc', 'file', 'npm registry, tokens and script settings'),
  entry('.pre-commit-config.yaml', 'file', 'pre-commit runs the hooks it names'),
  entry('.ripgreprc', 'file', 'ripgrep options (--pre runs a program on every file)'),
  entry('.mcp.json', 'file', 'AI tools start the MCP servers it names'),
  entry('.husky', 'dir', 'git hooks run by husky'),
  entry('.vscode', 'dir', 'editor tasks run on folder open, settings name programs'),
  entry('.idea', 'dir', 'IDE run configurations and settings name programs'),
  entry('.github', 'dir', 'CI workflows and the local actions they call'),
  entry('.claude', 'dir', 'AI tool commands, agents, hooks and settings'),
  entry('.cursor', 'dir', 'AI editor rules and MCP configuration'),
]);

/** The protected file names of `PROTECTED_ENTRIES` (derived; kept for callers that list them). */
export const PROTECTED_FILES: readonly string[] = Object.freeze(
  PROTECTED_ENTRIES.filter((e) => e.type === 'file').map((e) => e.name),
);

/** The protected directory names of `PROTECTED_ENTRIES` (derived). */
export const PROTECTED_DIRS: readonly string[] = Object.freeze(
  PROTECTED_ENTRIES.filter((e) => e.type === 'dir').map((e) => e.name),
);

/**
 * The protected entries of a policy: the built-in list, then the policy's `protectedPaths`
 * (`name` is a file, `name/` a directory; already validated by the policy schema), duplicates
 * dropped (the first wins).
 *
 * @example
 * protectedEntriesOf({ protectedPaths: ['.tool-versions', '.continue/'] }).map((e) => e.name);
 * // [..., '.tool-versions', '.continue']
 */
export function protectedEntriesOf(policy: { readonly protectedPaths: readonly string[] }): readonly ProtectedEntry[] {
  const out = new Map<string, ProtectedEntry>(PROTECTED_ENTRIES.map((e) => [e.name, e]));
  for (const p of policy.protectedPaths) {
    const name = p.endsWith('/') ? p.slice(0, -1) : p;
    if (!out.has(name) && name !== '.git')
      out.set(name, entry(name, p.endsWith('/') ? 'dir' : 'file', 'named by the policy'));
  }
  return [...out.values()];
}

/**
 * Paths inside `.git` that make the host run code or read config from elsewhere (hooks, config,
 * `commondir`/`worktrees` redirects, `info`, submodule repositories under `modules`). On Linux the
 * whole existing `.git` is bound read-only, which covers these and anything else; macOS denies
 * writes to these paths.
 */
export const PROTECTED_GIT: readonly { readonly path: string; readonly type: 'file' | 'dir' }[] = Object.freeze([
  { path: '.git/hooks', type: 'dir' },
  { path: '.git/config', type: 'file' },
  { path: '.git/commondir', type: 'file' },
  { path: '.git/info', type: 'dir' },
  { path: '.git/modules', type: 'dir' },
  { path: '.git/worktrees', type: 'dir' },
]);

/** Host paths hidden by default (besides the host user's $HOME), unless a grant names them or a path inside. */
export const SENSITIVE_ROOTS: readonly string[] = Object.freeze(['/root', '/home', '/run', '/var/run']);

/** Files of /etc a typical program needs (no /etc/shadow, no host credentials). */
export const ETC_FILES: readonly string[] = Object.freeze([
  '/etc/alternatives',
  '/etc/ca-certificates',
  '/etc/group',
  '/etc/hosts',
  '/etc/ld.so.cache',
  '/etc/localtime',
  '/etc/nsswitch.conf',
  '/etc/passwd',
  '/etc/ssl',
]);

/** Top-level directories that are symlinks into /usr on usrmerge systems. */
export const USRMERGE_DIRS: readonly string[] = Object.freeze(['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32']);
