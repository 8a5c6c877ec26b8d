/*
 * --await (launcher.c, 12): the launcher as a prepared run's command. The spawn server starts a
 * run before its command is known ('P'), with everything a run does before the command, bwrap
 * included: bwrap's command is this launcher, in the sandbox, already confined (namespaces,
 * mounts, seccomp, limits, the run's cgroup). It waits here on AWAIT_SANDBOX_FD for the message
 * the server forwards when the host names the command ('G'), little-endian:
 *   u32 length, then that many bytes: u32 argc and argc NUL-terminated words, u32 envc and envc
 *   NUL-terminated NAME=VALUE entries, the working directory NUL-terminated;
 * closes the pipe, changes to the directory and execs the command with exactly that environment,
 * as bwrap's --chdir, --clearenv and --setenv would have. Nothing else is read: the pipe's only
 * writer is the server. End of file (the run was discarded) ends it quietly.
 */
#include "launcher.h"

extern char **environ;

int await_fd = -1;

static int read_full(int fd, unsigned char *p, size_t n) {
  while (n > 0) {
    ssize_t r = read(fd, p, n);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return -1;
    p += r;
    n -= (size_t)r;
  }
  return 0;
}

static unsigned le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24; }

/* Points words[0..count) at `count` NUL-terminated strings from *off; NULL-terminates. -1: malformed. */
static int take_words(unsigned char *body, size_t n, size_t *off, char ***words) {
  if (*off + 4 > n) return -1;
  unsigned count = le32(body + *off);
  *off += 4;
  if (count > n - *off) return -1; /* every word takes at least its NUL */
  char **w = calloc((size_t)count + 1, sizeof *w);
  if (!w) return -1;
  for (unsigned k = 0; k < count; k++) {
    unsigned char *end = memchr(body + *off, 0, n - *off);
    if (!end) { free(w); return -1; }
    w[k] = (char *)(body + *off);
    *off = (size_t)(end - body) + 1;
  }
  *words = w;
  return 0;
}

int await_command(void) {
  unsigned char head[4];
  if (read_full(AWAIT_SANDBOX_FD, head, 4) < 0) _exit(125); /* discarded before its command came */
  unsigned n = le32(head);
  unsigned char *body = n <= AWAIT_MAX ? malloc((size_t)n + 1) : NULL;
  if (!body || read_full(AWAIT_SANDBOX_FD, body, n) < 0) die("reading the command");
  close(AWAIT_SANDBOX_FD);
  /* The command inherits only stdio, as from bwrap: this binary's descriptor (AWAIT_SANDBOX_EXE_FD)
     and anything else above 2 close on exec. */
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC 4
#endif
  if (syscall(SYS_close_range, 3u, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
    for (int fd = 3; fd < 1024; fd++) fcntl(fd, F_SETFD, FD_CLOEXEC);
  body[n] = 0;
  size_t off = 0;
  char **argv, **env;
  if (take_words(body, n, &off, &argv) < 0 || !argv[0] || take_words(body, n, &off, &env) < 0 || off >= n) {
    errno = EINVAL;
    die("the command message");
  }
  const char *cwd = (const char *)body + off;
  if (chdir(cwd) < 0) {
    fprintf(stderr, "trust-sandbox-launcher: cannot change to the working directory %s: %s\n", cwd, strerror(errno));
    _exit(125);
  }
  environ = env; /* execvp looks the command up in this PATH, as bwrap would in --setenv's */
  execvp(argv[0], argv);
  fprintf(stderr, "trust-sandbox-launcher: cannot execute %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}
