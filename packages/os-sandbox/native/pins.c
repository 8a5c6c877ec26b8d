/*
 * Protected paths pinned read-only before bwrap starts (see launcher.c, 8): in a private user and
 * mount namespace of the bwrap child, with open_tree/mount_setattr/move_mount on O_PATH|O_NOFOLLOW
 * descriptors; or, where that namespace is not available, as bwrap --ro-bind options.
 */
#include "launcher.h"
#include <linux/openat2.h>
#include <sys/xattr.h>
#ifndef SYS_openat2
#define SYS_openat2 437
#endif
#ifndef SYS_fsopen
#define SYS_fsopen 430
#define SYS_fsconfig 431
#define SYS_fsmount 432
#endif
#define FSCONFIG_SET_FLAG_ 0
#define FSCONFIG_SET_STRING_ 1
#define FSCONFIG_CMD_CREATE_ 6

static struct pin_entry { char kind; const char *path; } *pins;
static int npins, pins_capacity;
static const char *pin_empty_file, *pin_empty_dir;

/* Writable roots whose missing protected names come from an overlay in this namespace only
   (--pin-overlay ROOT WORK): the root is the upper layer; the lower layer, a tmpfs made for the
   run, holds exactly the pinned names missing from ROOT as empty entries (a name present in both
   would make a merged directory, on which overlayfs records xattrs in the root); WORK is this
   run's overlay work directory (created, then removed by the supervisor), on the root's
   filesystem, outside the user's tree. */
static struct overlay_entry { const char *root; int ro; char work[4096]; } *overlays;
static int noverlays;
/* Read-only grants seen through a read-only overlay (--pin-overlay-ro ROOT: ROOT over the empty
   directory): every socket inode in it is then an overlay inode that no listener is bound to,
   so connect() is refused. Named sockets (--pin-socket PATH) are bound back from the real inode,
   taken before any overlay exists. */
static const char **sockets;
static int nsockets;

void pins_init(int capacity) {
  pins_capacity = capacity > 0 ? capacity : 1;
  pins = calloc((size_t)pins_capacity, sizeof *pins);
  overlays = calloc((size_t)pins_capacity, sizeof *overlays);
  sockets = calloc((size_t)pins_capacity, sizeof *sockets);
  if (!pins || !overlays || !sockets) die("calloc");
}

/* Opens PATH (absolute) with no symlink in any component, the last one included: a run that
   swapped an intermediate directory for a symlink cannot send us elsewhere. */
int open_nofollow(const char *path, int flags) {
  struct open_how how = {(unsigned long long)(flags | O_NOFOLLOW | O_CLOEXEC), 0, RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
  return (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
}

/* The directory holding PATH's last component, opened as above, and that component. */
static int open_parent(const char *path, const char **name) {
  const char *slash = strrchr(path, '/');
  if (!slash || slash[1] == 0) { errno = EINVAL; return -1; }
  *name = slash + 1;
  char dir[4096];
  size_t n = slash == path ? 1 : (size_t)(slash - path);
  if (n >= sizeof dir) { errno = ENAMETOOLONG; return -1; }
  memcpy(dir, path, n);
  dir[n] = 0;
  return open_nofollow(dir, O_PATH | O_DIRECTORY);
}

int add_pin_overlay(const char *root, const char *work_base) {
  if (noverlays == pins_capacity || root[0] != '/' || work_base[0] != '/') return -1;
  struct overlay_entry *o = &overlays[noverlays];
  /* Named after this process (the supervisor), which removes it when the run is over. */
  if (snprintf(o->work, sizeof o->work, "%s/ovl.%d.%d", work_base, (int)getpid(), noverlays) >= (int)sizeof o->work) return -1;
  o->root = root;
  noverlays++;
  return 0;
}

int add_pin_overlay_ro(const char *root) {
  if (noverlays == pins_capacity || root[0] != '/') return -1;
  overlays[noverlays].root = root;
  overlays[noverlays++].ro = 1;
  return 0;
}

int add_pin_socket(const char *path) {
  if (nsockets == pins_capacity || path[0] != '/') return -1;
  sockets[nsockets++] = path;
  return 0;
}

static void overlay_config(int fs, unsigned cmd, const char *key, const char *value, int required) {
  if (syscall(SYS_fsconfig, fs, cmd, key, value, 0) < 0 && required) die(key);
}

/* A detached tmpfs holding, as empty entries, the f/d/F/D pins directly below ROOT that do not
   exist in it (looked up relative to UPPER, its descriptor); -1 if there are none. */
static int missing_names_layer(const char *root, int upper) {
  size_t rl = strlen(root);
  int mnt = -1;
  for (int p = 0; p < npins; p++) {
    const char *path = pins[p].path, *name = path + rl + 1;
    char kind = pins[p].kind;
    if (kind == 's' || strncmp(path, root, rl) != 0 || path[rl] != '/' || !*name || strchr(name, '/')) continue;
    struct stat st;
    if (fstatat(upper, name, &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT) continue;
    if (mnt < 0) {
      int fs = (int)syscall(SYS_fsopen, "tmpfs", 1 /* FSOPEN_CLOEXEC */);
      if (fs < 0) die("tmpfs (fsopen)");
      overlay_config(fs, FSCONFIG_SET_STRING_, "size", "64k", 0);
      overlay_config(fs, FSCONFIG_CMD_CREATE_, NULL, NULL, 1);
      mnt = (int)syscall(SYS_fsmount, fs, 1 /* FSMOUNT_CLOEXEC */, 0);
      if (mnt < 0) die("tmpfs (fsmount)");
      close(fs);
    }
    if (kind == 'f' || kind == 'F') {
      int c = openat(mnt, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0444);
      if (c < 0 && errno != EEXIST) die(name);
      if (c >= 0) close(c);
    } else if (mkdirat(mnt, name, 0555) < 0 && errno != EEXIST) {
      die(name);
    }
  }
  return mnt;
}

/* Removes an overlay work directory (and the two directories overlayfs makes in it), e.g. one
   left by a run whose supervisor was killed and whose pid is now this one's. */
static int remove_work(const char *work) {
  char sub[4200];
  snprintf(sub, sizeof sub, "%s/work", work);
  rmdir(sub);
  snprintf(sub, sizeof sub, "%s/index", work);
  rmdir(sub);
  return rmdir(work);
}

/* Mounts every overlay, parents first (the caller orders them so): each upper is the root
   opened before any overlay exists, each target the root as seen through its parents'. */
static void mount_overlays(void) {
  int uppers[noverlays > 0 ? noverlays : 1], socks[nsockets > 0 ? nsockets : 1];
  for (int k = 0; k < nsockets; k++) {
    int fd = open_nofollow(sockets[k], O_PATH);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) die(sockets[k]);
    if (!S_ISSOCK(st.st_mode)) {
      errno = ENOTSOCK;
      die(sockets[k]);
    }
    socks[k] = (int)syscall(SYS_open_tree, fd, "", OPEN_TREE_CLONE | O_CLOEXEC | AT_EMPTY_PATH);
    if (socks[k] < 0) die("open_tree");
    close(fd);
  }
  for (int k = 0; k < noverlays; k++) {
    uppers[k] = open_nofollow(overlays[k].root, O_PATH | O_DIRECTORY);
    if (uppers[k] < 0) die(overlays[k].root);
  }
  for (int k = 0; k < noverlays; k++) {
    struct overlay_entry *o = &overlays[k];
    char upper[64], lower[4200];
    int lfd = -1;
    snprintf(upper, sizeof upper, "/proc/self/fd/%d", uppers[k]);
    int fs = (int)syscall(SYS_fsopen, "overlay", 1 /* FSOPEN_CLOEXEC */);
    if (fs < 0) die("overlay (fsopen)");
    if (o->ro) {
      /* Two lower layers (one is not enough without an upper): the root over the empty one. */
      if (snprintf(lower, sizeof lower, "%s:%s", upper, pin_empty_dir) >= (int)sizeof lower) die("overlay (lowerdir)");
      overlay_config(fs, FSCONFIG_SET_STRING_, "lowerdir", lower, 1);
    } else {
      lfd = missing_names_layer(o->root, uppers[k]);
      if (lfd < 0) { /* nothing missing: no overlay needed */
        close(fs);
        continue;
      }
      if (mkdir(o->work, 0700) < 0 && !(errno == EEXIST && remove_work(o->work) == 0 && mkdir(o->work, 0700) == 0)) die(o->work);
      snprintf(lower, sizeof lower, "/proc/self/fd/%d", lfd);
      overlay_config(fs, FSCONFIG_SET_STRING_, "lowerdir", lower, 1);
      overlay_config(fs, FSCONFIG_SET_STRING_, "upperdir", upper, 1);
      overlay_config(fs, FSCONFIG_SET_STRING_, "workdir", o->work, 1);
    }
    /* user.* xattrs (trusted.* needs the initial namespace; with them overlayfs neither
       creates nor follows redirects); no uuid xattr on the user's root, no index. */
    overlay_config(fs, FSCONFIG_SET_FLAG_, "userxattr", NULL, 1);
    overlay_config(fs, FSCONFIG_SET_STRING_, "uuid", "off", 0);
    overlay_config(fs, FSCONFIG_SET_STRING_, "index", "off", 0);
    overlay_config(fs, FSCONFIG_SET_STRING_, "xino", "off", 0);
    overlay_config(fs, FSCONFIG_CMD_CREATE_, NULL, NULL, 1);
    if (lfd >= 0) close(lfd);
    int mnt = (int)syscall(SYS_fsmount, fs, 1 /* FSMOUNT_CLOEXEC */, 0);
    if (mnt < 0) die("overlay (fsmount)");
    close(fs);
    int target = open_nofollow(o->root, O_PATH | O_DIRECTORY);
    if (target < 0) die(o->root);
    graft(mnt, o->ro ? PIN_ATTR : 0, 0, target, o->root);
    close(target);
  }
  for (int k = 0; k < noverlays; k++) close(uppers[k]);
  /* The named sockets over whatever now covers their paths (an overlay's own inode). */
  for (int k = 0; k < nsockets; k++) {
    int target = open_nofollow(sockets[k], O_PATH);
    if (target < 0) die(sockets[k]);
    graft(socks[k], PIN_ATTR, 0, target, sockets[k]);
    close(target);
  }
}

/* The xattrs overlayfs left in ROOT itself: a directory renamed into the top level of a root
   (a merged directory) is marked opaque, and the root may be marked impure. Neither means
   anything here (the lower layer holds only the protected names, which are pinned), so they go,
   relative to a descriptor of ROOT and of each top-level directory (no symlink followed). */
static void strip_overlay_xattrs(const char *root) {
  int fd = open_nofollow(root, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return;
  fremovexattr(fd, "user.overlay.impure");
  fremovexattr(fd, "user.overlay.opaque");
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  for (struct dirent *e; (e = readdir(d));) {
    if (e->d_type != DT_DIR && e->d_type != DT_UNKNOWN) continue;
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    int sub = openat(dirfd(d), e->d_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (sub < 0) continue;
    fremovexattr(sub, "user.overlay.opaque");
    fremovexattr(sub, "user.overlay.origin");
    close(sub);
  }
  closedir(d);
}

/* After the run (in the supervisor): the overlays' work directories, empty by then, and the
   xattrs the overlays left in their roots. */
void overlay_cleanup(void) {
  for (int k = 0; k < noverlays; k++) {
    if (overlays[k].ro) continue;
    strip_overlay_xattrs(overlays[k].root);
    remove_work(overlays[k].work);
  }
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

/* Pins, overlays and named sockets: everything made in the private namespace by pin_all(). */
int pin_count(void) { return npins + noverlays + nsockets; }

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
  int fd = open_nofollow(path, O_PATH);
  kind = settle(kind, fd >= 0);
  if (fd < 0 && errno == ENOENT && kind != 's') {
    /* A root without an overlay: the placeholder, the mount point bwrap would otherwise create,
       made in the directory opened without following any symlink. */
    const char *name;
    int dir = open_parent(path, &name);
    if (dir < 0) die(path);
    if (kind == 'f') {
      int c = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
      if (c >= 0) close(c);
    } else {
      mkdirat(dir, name, 0755);
    }
    fd = openat(dir, name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    close(dir);
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
  /* The missing names of an overlaid root exist only in the overlay; bwrap would create them. */
  if (noverlays > 0) {
    errno = EOPNOTSUPP;
    die("--pin-overlay without a private mount namespace");
  }
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
  mount_overlays();
  for (int p = 0; p < npins; p++) pin(pins[p].kind, pins[p].path);
}
