/* Small helpers every part of the launcher uses. */
#include "launcher.h"

int die_notify_fd = -1;

void die(const char *what) {
  fprintf(stderr, "trust-sandbox-launcher: %s: %s\n", what, strerror(errno));
  if (die_notify_fd >= 0) {
    const unsigned char failed = 1;
    write_all(die_notify_fd, &failed, 1);
  }
  _exit(125);
}

int write_all(int fd, const unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    n -= (size_t)w;
  }
  return 0;
}

/* Closes every descriptor in [low, high]: close_range(2), or a walk of /proc/self/fd on older kernels. */
static void close_span(int low, unsigned high) {
  if (syscall(SYS_close_range, (unsigned)low, high, 0) == 0) return;
  DIR *d = opendir("/proc/self/fd");
  if (!d) die("/proc/self/fd");
  int own = dirfd(d), fds[1024], n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd >= low && (unsigned)fd <= high && fd != own && n < 1024) fds[n++] = fd;
  }
  closedir(d);
  for (int k = 0; k < n; k++) close(fds[k]);
  if (n == 1024) close_span(low, high); /* more left: walk again */
}

/* Closes every descriptor >= low, except a warm namespace set the server handed over (warm.c). */
/* Closes every descriptor >= low but a run's warm set (warm.c) and its command channel (await.c). */
void close_from(int low) {
  int keep[5], n = 0;
  if (warm_ns_fd >= 0) for (int k = 0; k < 3; k++) keep[n++] = warm_ns_fd + k;
  if (await_fd >= 0) for (int k = 0; k < 2; k++) keep[n++] = await_fd + k; /* above the warm set */
  for (int k = 0; k < n; k++) {
    if (keep[k] < low) continue;
    if (keep[k] > low) close_span(low, (unsigned)keep[k] - 1);
    low = keep[k] + 1;
  }
  close_span(low, ~0U);
}

void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return; /* /proc/self/setgroups before Linux 3.19 */
    die(path);
  }
  if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) die(path);
  close(fd);
}

/*
 * Sets `set` and clears `clear` on every mount of the detached tree `tree` (from open_tree with
 * OPEN_TREE_CLONE), moves it onto `path` (or, when to_fd >= 0, onto that descriptor, opened on
 * `path`) and closes it. Every bind made before bwrap starts ends here (pins.c, stage.c).
 */
void graft(int tree, unsigned long long set, unsigned long long clear, int to_fd, const char *path) {
  struct pin_mount_attr attr = {set, clear, 0, 0};
  if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0) die("mount_setattr");
  long moved = to_fd >= 0 ? syscall(SYS_move_mount, tree, "", to_fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH)
                          : syscall(SYS_move_mount, tree, "", AT_FDCWD, path, MOVE_MOUNT_F_EMPTY_PATH);
  if (moved < 0) die(path);
  close(tree);
}

/* A decimal integer in [0, max], the whole of s (no sign, no spaces, no trailing bytes); -1 if not. */
long parse_count(const char *s, long max) {
  if (!s || *s < '0' || *s > '9') return -1;
  long v = 0;
  for (; *s; s++) {
    if (*s < '0' || *s > '9') return -1;
    v = v * 10 + (*s - '0');
    if (v > max) return -1;
  }
  return v;
}

/* As from a fresh exec: every signal at its default disposition. An ignored disposition survives
   exec, and a host process may ignore signals that its own spawn does not reset (libuv resets only
   1-31, so an ignored real-time signal of the host would reach the sandboxed command). The raw
   system call, since the C library refuses to touch the two real-time signals it keeps for itself. */
void default_signals(void) {
  struct { void (*handler)(int); unsigned long flags; void (*restorer)(void); unsigned long mask; } dfl = { SIG_DFL, 0, NULL, 0 };
  for (int sig = 1; sig <= 64; sig++)
    if (sig != SIGKILL && sig != SIGSTOP) syscall(SYS_rt_sigaction, sig, &dfl, NULL, sizeof dfl.mask);
}
