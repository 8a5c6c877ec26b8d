/*
 * The staged root, /etc and /dev (see launcher.c, 11), made by the bwrap child in its private
 * namespace (the one it pins in), or ahead of the run by the spawn server (warm.c), so that bwrap
 * binds the whole base of the sandbox with one option. bwrap re-reads the whole mount table for
 * every bind it makes itself, so each mount here saves it a re-read.
 *   root: a tmpfs on the --stage-root DIR, then in order: read-only recursive binds of host paths
 *         (--root-bind SRC DEST), symlinks (--root-symlink TARGET DEST) and empty tmpfs mounts
 *         (--root-tmpfs DEST), each at DIR/DEST, parents made as directories. bwrap --dev-binds DIR
 *         as / (keeping each mount's own flags) and remounts it read-only at the end, as it would
 *         its own root.
 *   /etc: a small tmpfs on the --stage DIR holding a read-only bind of every --stage-file PATH that
 *         exists, under its base name (following a symlink, as a bwrap bind does); then read-only.
 *   /dev: a tmpfs on the --stage-dev DIR as bwrap's --dev makes it: the six usual device nodes
 *         bound from the host (writable, no setuid), the /proc/self/fd links, an empty shm and a
 *         new devpts instance for ptys.
 * The /etc and /dev directories may lie inside the root (they are made there when missing).
 */
#include "launcher.h"

static const char *root_dir, *stage_dir, *dev_dir;
static const char **stage_files;
static int nstage;
static struct root_op { char kind; const char *a, *b; } *root_ops;
static int nroot;

void stage_init(int capacity) {
  stage_files = calloc((size_t)capacity, sizeof *stage_files);
  root_ops = calloc((size_t)capacity, sizeof *root_ops);
  if (!stage_files || !root_ops) die("calloc");
}

/* Takes a root operation after --stage-root: 'b' (bind SRC `a` at DEST `b`), 's' (symlink to `a`
   at `b`), 't' (tmpfs at `a`); every DEST absolute. -1 otherwise. */
static int add_root_op(char kind, const char *a, const char *b) {
  const char *dest = kind == 't' ? a : b;
  if (!root_dir || !dest || dest[0] != '/' || strstr(dest, "/../") || strcmp(strrchr(dest, '/'), "/..") == 0) return -1;
  if (kind == 'b' && a[0] != '/') return -1;
  root_ops[nroot++] = (struct root_op){kind, a, b};
  return 0;
}

/* Takes an absolute PATH after --stage; -1 otherwise. */
static int add_stage_file(const char *path) {
  if (!stage_dir || path[0] != '/' || strrchr(path, '/')[1] == 0) return -1;
  stage_files[nstage++] = path;
  return 0;
}

int staging(void) { return root_dir != NULL || stage_dir != NULL || dev_dir != NULL; }

/* The staging options and how many values each takes. */
static const struct { const char *name; int values; } STAGE_OPTIONS[] = {
  {"--stage-root", 1}, {"--root-bind", 2}, {"--root-symlink", 2}, {"--root-tmpfs", 1},
  {"--stage", 1}, {"--stage-file", 1}, {"--stage-dev", 1},
};

int stage_option_values(const char *arg) {
  for (size_t k = 0; k < sizeof STAGE_OPTIONS / sizeof STAGE_OPTIONS[0]; k++)
    if (strcmp(arg, STAGE_OPTIONS[k].name) == 0) return STAGE_OPTIONS[k].values;
  return 0;
}

int take_stage_option(const char *opt, const char *const *values) {
  if (strcmp(opt, "--stage-root") == 0) root_dir = values[0];
  else if (strcmp(opt, "--stage") == 0) stage_dir = values[0];
  else if (strcmp(opt, "--stage-dev") == 0) dev_dir = values[0];
  else if (strcmp(opt, "--stage-file") == 0) return add_stage_file(values[0]);
  else return add_root_op(opt[7], values[0], values[1]); /* --root-bind, --root-symlink, --root-tmpfs */
  return 0;
}

/* DIR/NAME into `out`, or dies. */
static void join_path(char *out, size_t size, const char *dir, const char *name) {
  if (snprintf(out, size, "%s/%s", dir, name) >= (int)size) {
    errno = ENAMETOOLONG;
    die(dir);
  }
}

/* Makes `path` a symlink to `target` (type 'l'), a directory ('d') or an empty file ('f'). */
static void make_at(const char *path, char type, const char *target) {
  int ok;
  if (type == 'l') {
    ok = symlink(target, path);
  } else if (type == 'd') {
    ok = mkdir(path, 0755);
  } else {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ok = fd < 0 ? -1 : close(fd);
  }
  if (ok < 0) die(path);
}

static void make_entry(const char *dir, const char *name, char type, const char *target) {
  char path[4096];
  join_path(path, sizeof path, dir, name);
  make_at(path, type, target);
}

/* Makes every missing parent directory of `path` below `top` (which exists). */
static void make_parents(const char *top, char *path) {
  for (char *slash = path + strlen(top) + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
    *slash = 0;
    int ok = mkdir(path, 0755) == 0 || errno == EEXIST;
    *slash = '/';
    if (!ok) die(path);
  }
}

/*
 * Binds the host path `src` (a symlink followed) on DIR/NAME, created to match it, with the mount
 * attributes `set` and `clear`. Returns 0, or -1 when `src` does not exist.
 */
static int bind_at(const char *src, const char *target, unsigned long long set, unsigned long long clear) {
  struct stat st;
  if (stat(src, &st) < 0) {
    if (errno == ENOENT) return -1;
    die(src);
  }
  make_at(target, S_ISDIR(st.st_mode) ? 'd' : 'f', NULL);
  int tree = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE);
  if (tree < 0) die(src);
  graft(tree, set, clear, -1, target);
  return 0;
}

static int bind_into(const char *src, const char *dir, const char *name, unsigned long long set, unsigned long long clear) {
  char target[4096];
  join_path(target, sizeof target, dir, name);
  return bind_at(src, target, set, clear);
}

static void stage_root(void) {
  if (mount("tmpfs", root_dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) die(root_dir);
  for (int k = 0; k < nroot; k++) {
    const struct root_op *op = &root_ops[k];
    char path[4096];
    join_path(path, sizeof path, root_dir, (op->kind == 't' ? op->a : op->b) + 1);
    make_parents(root_dir, path);
    if (op->kind == 'b') {
      bind_at(op->a, path, PIN_ATTR, 0); /* what the host lacks, the sandbox lacks */
    } else if (op->kind == 's') {
      make_at(path, 'l', op->a);
    } else {
      make_at(path, 'd', NULL);
      if (mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) die(path);
    }
  }
}

/* The directory of a staged /etc or /dev, made when it lies inside the staged root (nothing is
   ever made on the host's file system: elsewhere it must exist). */
static void stage_point(const char *dir) {
  size_t n = root_dir ? strlen(root_dir) : 0;
  if (n == 0 || strncmp(dir, root_dir, n) != 0 || dir[n] != '/') return;
  if (mkdir(dir, 0755) < 0 && errno != EEXIST) die(dir);
}

static void stage_etc(void) {
  stage_point(stage_dir);
  if (mount("tmpfs", stage_dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") < 0) die(stage_dir);
  /* What the host lacks, the sandbox lacks (as --ro-bind-try). */
  for (int k = 0; k < nstage; k++) bind_into(stage_files[k], stage_dir, strrchr(stage_files[k], '/') + 1, PIN_ATTR, 0);
  if (mount(NULL, stage_dir, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0) die(stage_dir);
}

static void stage_dev(void) {
  static const char *nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
  static const char *links[][2] = {{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
                                   {"stderr", "/proc/self/fd/2"}, {"ptmx", "pts/ptmx"}, {"core", "/proc/kcore"}};
  stage_point(dev_dir);
  if (mount("tmpfs", dev_dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") < 0) die(dev_dir);
  for (size_t k = 0; k < sizeof nodes / sizeof nodes[0]; k++) {
    char host[32];
    snprintf(host, sizeof host, "/dev/%s", nodes[k]);
    bind_into(host, dev_dir, nodes[k], 0x2ULL /* NOSUID */, 0x1ULL | 0x4ULL /* RDONLY, NODEV */);
  }
  for (size_t k = 0; k < sizeof links / sizeof links[0]; k++) make_entry(dev_dir, links[k][0], 'l', links[k][1]);
  make_entry(dev_dir, "shm", 'd', NULL);
  make_entry(dev_dir, "pts", 'd', NULL);
  char pts[4096];
  join_path(pts, sizeof pts, dev_dir, "pts");
  if (mount("devpts", pts, "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") < 0) die("devpts");
}

/* Everything named: the root first, then /etc and /dev (which may lie inside it). */
void stage_all(void) {
  if (root_dir) stage_root();
  if (stage_dir) stage_etc();
  if (dev_dir) stage_dev();
}
