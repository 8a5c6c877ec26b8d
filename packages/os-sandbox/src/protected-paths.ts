/**
 * Files and directories that the host (a shell, git, direnv, npm, an editor) later reads or runs
 * on its own. Inside every writable root they are mounted read-only; when missing, a read-only
 * placeholder is mounted so the sandbox cannot create them either.
 */
export const PROTECTED_FILES: readonly string[] = Object.freeze([
  '.bashrc', '.bash_profile', '.bash_login', '.bash_logout', '.profile',
  '.zshrc', '.zprofile', '.zshenv', '.zlogin', '.zlogout',
  '.gitconfig', '.envrc', '.npmrc',
  '.gitmodules', '.gitattributes', '.pre-commit-config.yaml',
]);

/**
 * Protected directories: husky hooks, editor tasks and settings (`.vscode/tasks.json` runs on
 * folder open), CI workflows and the local actions they call (`.github`). Whole directories,
 * since a single protected file inside would leave its siblings (`launch.json`) writable.
 * `.git` itself is protected when missing, and bound read-only as a whole when present.
 */
export const PROTECTED_DIRS: readonly string[] = Object.freeze(['.husky', '.vscode', '.github']);

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
  '/etc/alternatives', '/etc/ca-certificates', '/etc/group', '/etc/hosts', '/etc/ld.so.cache',
  '/etc/localtime', '/etc/nsswitch.conf', '/etc/passwd', '/etc/ssl',
]);

/** Top-level directories that are symlinks into /usr on usrmerge systems. */
export const USRMERGE_DIRS: readonly string[] = Object.freeze(['/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32']);
