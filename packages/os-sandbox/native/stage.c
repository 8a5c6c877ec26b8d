/*
 * The staged /etc and /dev (see launcher.c, 11), made by the bwrap child in its private namespace
 * (the one it pins in) so that bwrap binds each with one option. bwrap re-reads the whole mount
 * table for every bind it makes itself, so the nine /etc binds and the six device binds of --dev
 * cost it several times what they cost here.
 *   /etc: a small tmpfs on the --stage DIR holding a read-only bind of every --stage-file PATH that
 *         exists, under its base name (following a symlink, as a bwrap bind does); then read-only.
 *   /dev: a tmpfs on the --stage-dev DIR as bwrap's --dev makes it: the six usual device nodes
 *         bound from the host (writable, no setuid), the /proc/self/fd links, an empty shm and a
 *         new devpts instance for ptys.
 */
#include "launcher.h"

static const char *stage_dir, *dev_dir;
static const char **stage_files;
static int nstage;

void stage_init(int capacity) {
  stage_files = calloc((size_t)capacity, sizeof *stage_files);
  if (!stage_files) die("calloc");
}

void set_stage_dir(const char *dir) { stage_dir = dir; }

void set_stage_dev(const char *dir) { dev_dir = dir; }

/* Takes an absolute PATH after --stage; -1 otherwise. */
int add_stage_file(const char *path) {
  if (!stage_dir || path[0] != '/' || strrchr(path, '/')[1] == 0) return -1;
  stage_files[nstage++] = path;
  return 0;
}

int staging(void) { return stage_dir != NULL; }

int staging_dev(void) { return dev_dir != NULL; }

/* DIR/NAME into `out`, or dies. */
static void join_path(char *out, size_t size, const char *dir, const char *name) {
  if (snprintf(out, size, "%s/%s", dir, name) >= (int)size) {
    errno = ENAMETOOLONG;
    die(dir);
  }
}

/* Makes DIR/NAME a symlink to `target` (type 'l'), a directory ('d') or an empty file ('f'). */
static void make_entry(const char *dir, const char *name, char type, const char *target) {
  char path[4096];
  join_path(path, sizeof path, dir, name);
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

/*
 * Binds the host path `src` (a symlink followed) on DIR/NAME, created to match it, with the mount
 * attributes `set` and `clear`. Returns 0, or -1 when `src` does not exist.
 */
static int bind_into(const char *src, const char *dir, const char *name, unsigned long long set, unsigned long long clear) {
  struct stat st;
  if (stat(src, &st) < 0) {
    if (errno == ENOENT) return -1;
    die(src);
  }
  make_entry(dir, name, S_ISDIR(st.st_mode) ? 'd' : 'f', NULL);
  int tree = (int)syscall(SYS_open_tree, AT_FDCWD, src, OPEN_TREE_CLONE | O_CLOEXEC | AT_RECURSIVE);
  if (tree < 0) die(src);
  char target[4096];
  join_path(target, sizeof target, dir, name);
  graft(tree, set, clear, -1, target);
  return 0;
}

void stage_all(void) {
  if (mount("tmpfs", stage_dir, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755,size=64k") < 0) die(stage_dir);
  /* What the host lacks, the sandbox lacks (as --ro-bind-try). */
  for (int k = 0; k < nstage; k++) bind_into(stage_files[k], stage_dir, strrchr(stage_files[k], '/') + 1, PIN_ATTR, 0);
  if (mount(NULL, stage_dir, NULL, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0) die(stage_dir);
}

void stage_dev(void) {
  static const char *nodes[] = {"null", "zero", "full", "random", "urandom", "tty"};
  static const char *links[][2] = {{"fd", "/proc/self/fd"}, {"stdin", "/proc/self/fd/0"}, {"stdout", "/proc/self/fd/1"},
                                   {"stderr", "/proc/self/fd/2"}, {"ptmx", "pts/ptmx"}, {"core", "/proc/kcore"}};
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
