/*
 * Protected paths pinned read-only before bwrap starts (see launcher.c, 8): in a private user and
 * mount namespace of the bwrap child, with open_tree/mount_setattr/move_mount on O_PATH|O_NOFOLLOW
 * descriptors; or, where that namespace is not available, as bwrap --ro-bind options.
 */
#include "launcher.h"

static struct pin_entry { char kind; const char *path; } *pins;
static int npins, pins_capacity;
static const char *pin_empty_file, *pin_empty_dir;

void pins_init(int capacity) {
  pins_capacity = capacity > 0 ? capacity : 1;
  pins = calloc((size_t)pins_capacity, sizeof *pins);
  if (!pins) die("calloc");
}

void set_pin_empty(const char *file, const char *dir) {
  pin_empty_file = file;
  pin_empty_dir = dir;
}

/* Takes a pin of kind f, d, s, F or D; -1 if the kind is unknown or --pin-empty was not given. */
int add_pin(char kind, const char *path) {
  if (!pin_empty_file || !strchr("fdsFD", kind) || kind == 0) return -1;
  if (npins == pins_capacity) { /* the nested repositories found (nested.c) come on top of argv's */
    struct pin_entry *more = realloc(pins, 2 * (size_t)pins_capacity * sizeof *pins);
    if (!more) die("realloc");
    pins = more;
    pins_capacity *= 2;
  }
  pins[npins].kind = kind;
  pins[npins++].path = path;
  return 0;
}

int pin_count(void) { return npins; }

/* A private user and mount namespace in which this process may mount; -1 if not available here. */
int enter_pin_namespace(void) {
  struct pin_mount_attr probe_attr = {0};
  if (syscall(SYS_mount_setattr, -1, "", 0, &probe_attr, sizeof probe_attr) < 0 && errno == ENOSYS) return -1;
  uid_t uid = getuid();
  gid_t gid = getgid();
  if (unshare(CLONE_NEWUSER | CLONE_NEWNS) < 0) return -1;
  char map[64];
  write_file("/proc/self/setgroups", "deny");
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)uid, (unsigned)uid);
  write_file("/proc/self/uid_map", map);
  snprintf(map, sizeof map, "%u %u 1\n", (unsigned)gid, (unsigned)gid);
  write_file("/proc/self/gid_map", map);
  /* Nothing mounted here may propagate back to the host. */
  if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) die("private mounts");
  return 0;
}

/* F and D: a protected file or directory that existed when the run was planned; if another
   sandbox's sweep removed it since (it was that sandbox's placeholder), it becomes one again. */
static char settle(char kind, int exists) {
  if (kind == 'F' || kind == 'D') return exists ? 's' : kind == 'F' ? 'f' : 'd';
  return kind;
}

static void pin(char kind, const char *path) {
  int fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  kind = settle(kind, fd >= 0);
  if (fd < 0 && errno == ENOENT && kind != 's') {
    /* The placeholder: the mount point bwrap would otherwise create. */
    if (kind == 'f') {
      int c = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (c >= 0) close(c);
    } else {
      mkdir(path, 0755);
    }
    fd = open(path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
  }
  if (fd < 0) die(path);
  struct stat st;
  if (fstat(fd, &st) < 0) die(path);
  if (S_ISLNK(st.st_mode)) {
    errno = ELOOP;
    die(path); /* a mount would land on the link's target, and the link stays replaceable */
  }
  int tree = kind == 's'
      ? (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH | AT_RECURSIVE)
      : (int)syscall(SYS_open_tree, AT_FDCWD, kind == 'f' ? pin_empty_file : pin_empty_dir, OPEN_TREE_CLONE | O_CLOEXEC);
  if (tree < 0) die("open_tree");
  graft(tree, PIN_ATTR, 0, fd, path);
  close(fd);
}

/* argv (bwrap ... -- CMD) with every pin as a bwrap --ro-bind option before the "--". */
char **pins_as_bwrap_options(char **argv) {
  int n = 0, sep = -1;
  while (argv[n]) {
    if (sep < 0 && n > 0 && strcmp(argv[n], "--") == 0) sep = n;
    n++;
  }
  if (sep < 0) sep = n;
  char **out = calloc((size_t)n + 3 * (size_t)npins + 1, sizeof *out);
  if (!out) die("calloc");
  int k = 0;
  for (int j = 0; j < sep; j++) out[k++] = argv[j];
  for (int p = 0; p < npins; p++) {
    out[k++] = "--ro-bind";
    struct stat st;
    char kind = settle(pins[p].kind, lstat(pins[p].path, &st) == 0);
    out[k++] = (char *)(kind == 'f' ? pin_empty_file : kind == 'd' ? pin_empty_dir : pins[p].path);
    out[k++] = (char *)pins[p].path;
  }
  for (int j = sep; j < n; j++) out[k++] = argv[j];
  out[k] = NULL;
  return out;
}

void pin_all(void) {
  for (int p = 0; p < npins; p++) pin(pins[p].kind, pins[p].path);
}
