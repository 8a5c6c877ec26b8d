/*
 * --nested-git ROOT and --nested-skip PATH (launcher.c, 8): the `.git` entries (directories or
 * gitfiles) of repositories nested below the writable roots, found where the pins are made and
 * pinned read-only with them (kind s), so that a run cannot plant hooks or config in a nested
 * repository. The walk is the host scanner's (src/nested-git.ts) without its cache: at most
 * NESTED_MAX_DEPTH levels below each root and NESTED_MAX_DIRS directories in all; node_modules,
 * .git and every skipped path are not entered, nor is a symlink; a root's own .git is a protected
 * path already. Done here, it runs while bwrap starts (in the mount helper) instead of before the
 * host sends the run, and in C. Each directory entered is opened relative to its parent with
 * O_NOFOLLOW, so a component swapped for a symlink meanwhile is not entered; the lookup of `.git`
 * in a last-level directory goes by name, as the pin itself does (pins.c refuses a final symlink).
 */
#include "launcher.h"
#include <limits.h>

#define NESTED_MAX_DEPTH 3
#define NESTED_MAX_DIRS 2000

static const char **roots, **skips;
static int nroots, nskips, budget;
/* With nested_list: an inotify instance watching every directory the walk looked into (-1: none,
   or one could not be watched), so that "nothing changed since" can be known without a walk. */
static int watch = -1;
#define WATCH_MASK (IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

/* Watches the directory open at `fd` (by its /proc/self/fd link, followed), or at `path` (not
   followed); a failure ends the watching. */
static void watch_dir(int fd, const char *path) {
  if (watch < 0) return;
  char self[64];
  if (fd >= 0) snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
  if (inotify_add_watch(watch, fd >= 0 ? self : path, fd >= 0 ? WATCH_MASK : WATCH_MASK | IN_DONT_FOLLOW) < 0) {
    close(watch);
    watch = -1;
  }
}

static void pin_found(const char *path);
/* What the walk does with each `.git` it finds: pins it, or lists it (nested_list). */
static void (*found)(const char *path) = pin_found;

void nested_init(int capacity) {
  roots = calloc((size_t)capacity, sizeof *roots);
  skips = calloc((size_t)capacity, sizeof *skips);
  if (!roots || !skips) die("calloc");
}

void add_nested_root(const char *path) { roots[nroots++] = path; }
void add_nested_skip(const char *path) { skips[nskips++] = path; }
int nested_root_count(void) { return nroots; }

static int skipped(const char *path) {
  for (int k = 0; k < nskips; k++) if (strcmp(skips[k], path) == 0) return 1;
  return 0;
}

/* The entry's type without following it: d_type, or fstatat where the filesystem gives none. */
static unsigned char type_of(int dir, const struct dirent *e) {
  if (e->d_type != DT_UNKNOWN) return e->d_type;
  struct stat st;
  if (fstatat(dir, e->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0) return DT_UNKNOWN;
  return S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
}

/* Pins `path` (a `.git` found), kind s. */
static void pin_found(const char *path) {
  char *copy = strdup(path);
  if (!copy || add_pin('s', copy) < 0) die("pinning a nested repository");
}

/* Whether `name/.git` below the directory open at `fd` is a directory or a file, not followed. */
static int has_git(int fd, const char *name) {
  char rel[NAME_MAX + 8];
  struct stat st;
  snprintf(rel, sizeof rel, "%s/.git", name);
  return fstatat(fd, rel, &st, AT_SYMLINK_NOFOLLOW) == 0 && (S_ISDIR(st.st_mode) || S_ISREG(st.st_mode));
}

/*
 * Walks the directory open at `fd`, at `depth` below its root, whose path fills `path` up to
 * `len` (a PATH_MAX buffer). A directory at the last level is not listed: only its `.git` is
 * looked up (one stat instead of an open, a listing and a close).
 */
static void walk(int fd, char *path, size_t len, int depth) {
  watch_dir(fd, NULL); /* before it is listed: a change after the listing shows as an event */
  DIR *d = fdopendir(fd);
  if (!d) {
    close(fd);
    return;
  }
  size_t base = len == 1 && path[0] == '/' ? 0 : len; /* the root "/" joins as "/name" */
  struct dirent *e;
  while ((e = readdir(d))) {
    const char *n = e->d_name;
    if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0) continue;
    unsigned char type = type_of(dirfd(d), e);
    size_t nl = strlen(n);
    if (base + 1 + nl + 5 >= PATH_MAX) continue;
    path[base] = '/';
    memcpy(path + base + 1, n, nl + 1);
    if (strcmp(n, ".git") == 0) {
      if (depth > 0 && (type == DT_DIR || type == DT_REG)) found(path);
    } else if (type == DT_DIR && strcmp(n, "node_modules") != 0 && !skipped(path) && budget-- > 0) {
      if (depth + 1 == NESTED_MAX_DEPTH) {
        watch_dir(-1, path);
        if (has_git(dirfd(d), n)) {
          memcpy(path + base + 1 + nl, "/.git", 6);
          found(path);
        }
      } else {
        int child = openat(dirfd(d), n, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (child >= 0) walk(child, path, base + 1 + nl, depth + 1);
      }
    }
    path[len] = 0;
  }
  closedir(d);
}

static void walk_roots(void) {
  static char path[PATH_MAX];
  budget = NESTED_MAX_DIRS;
  for (int r = 0; r < nroots && budget-- > 0; r++) {
    size_t len = strlen(roots[r]);
    if (len == 0 || len >= PATH_MAX) continue;
    int fd = open_nofollow(roots[r], O_RDONLY | O_DIRECTORY); /* no symlink in any component */
    if (fd < 0) continue; /* missing, or not a directory: bwrap reports the grant */
    memcpy(path, roots[r], len + 1);
    walk(fd, path, len, 0);
  }
}

/* Adds a pin (kind s) for every nested `.git` below the roots; once, before the pins are made. */
void nested_scan(void) {
  walk_roots();
  nroots = 0; /* scanned: a second call adds nothing */
}

static char *list;
static size_t list_len, list_cap;

static void list_found(const char *path) {
  size_t n = strlen(path) + 1;
  if (list_len + n > list_cap) {
    size_t cap = list_cap ? list_cap * 2 : 4096;
    while (cap < list_len + n) cap *= 2;
    char *bigger = realloc(list, cap);
    if (!bigger) die("realloc");
    list = bigger;
    list_cap = cap;
  }
  memcpy(list + list_len, path, n);
  list_len += n;
}

/*
 * The spawn server's view of what a run with these launcher arguments would pin: every nested
 * `.git` the walk finds now for their --nested-git and --nested-skip options, as NUL-terminated
 * paths in walk order (malloc'd; its length in *len, 0 for none). Compared in full, not as a
 * digest, so that no chosen name can make two different findings look alike. With `watched`,
 * *watched is an inotify descriptor on every directory the walk looked into (entries made,
 * removed or renamed there, or the directory itself moved or removed, are events on it), or -1
 * where that could not be had (the inotify limits of the host).
 */
char *nested_list(int argc, char **argv, size_t *len, int *watched) {
  const char **r = calloc((size_t)argc + 1, sizeof *r), **s = calloc((size_t)argc + 1, sizeof *s);
  if (!r || !s) die("calloc");
  int nr = 0, ns = 0;
  for (int k = 0; k + 1 < argc && strcmp(argv[k], "--") != 0; k++) {
    if (strcmp(argv[k], "--nested-git") == 0) r[nr++] = argv[++k];
    else if (strcmp(argv[k], "--nested-skip") == 0) s[ns++] = argv[++k];
  }
  const char **saved_roots = roots, **saved_skips = skips;
  int saved_nroots = nroots, saved_nskips = nskips;
  roots = r, nroots = nr, skips = s, nskips = ns, found = list_found;
  list = NULL, list_len = list_cap = 0;
  watch = watched ? inotify_init1(IN_NONBLOCK | IN_CLOEXEC) : -1;
  for (int k = 0; k < nr && watch >= 0; k++) watch_dir(-1, r[k]);
  walk_roots();
  if (watched) *watched = watch;
  watch = -1;
  roots = saved_roots, nroots = saved_nroots, skips = saved_skips, nskips = saved_nskips, found = pin_found;
  free(r);
  free(s);
  *len = list_len;
  return list;
}
