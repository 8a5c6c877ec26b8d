/*
 * --await (launcher.c, 12): the launcher as a prepared run's command. The spawn server starts a
 * run before its command is known ('P'), with everything a run does before the command, bwrap
 * included: bwrap's command is this launcher, in the sandbox, already confined (namespaces,
 * mounts, seccomp, limits, the run's cgroup). It waits here on AWAIT_SANDBOX_FD for the message
 * the server forwards when the host names the command ('G'): u32 length, then that many bytes,
 * the 'G' body of the wire format (src/launcher-wire.ts; decoded by wire.c, here and, before it
 * forwarded it, by the server): argv, the environment as name/value pairs, the working directory,
 * each word length-prefixed and refused if it holds a NUL;
 * closes the pipe, changes to the directory and execs the command with exactly that environment,
 * as bwrap's --chdir, --clearenv and --setenv would have. Nothing else is read: the pipe's only
 * writer is the server. End of file (the run was discarded) ends it quietly.
 */
#include "launcher.h"
#include "wire.h"

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

int await_command(void) {
  unsigned char head[4];
  if (read_full(AWAIT_SANDBOX_FD, head, 4) < 0) _exit(125); /* discarded before its command came */
  unsigned n = head[0] | head[1] << 8 | head[2] << 16 | (unsigned)head[3] << 24;
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
  struct wire_command c;
  if (wire_decode_command(body, n, &c) != 0) {
    errno = EINVAL;
    die("the command message");
  }
  char **argv = c.argv, **env = c.env;
  const char *cwd = c.cwd;
  if (chdir(cwd) < 0) {
    fprintf(stderr, "trust-sandbox-launcher: cannot change to the working directory %s: %s\n", cwd, strerror(errno));
    _exit(125);
  }
  default_signals();
  environ = env; /* execvp looks the command up in this PATH, as bwrap would in --setenv's */
  execvp(argv[0], argv);
  fprintf(stderr, "trust-sandbox-launcher: cannot execute %s: %s\n", argv[0], strerror(errno));
  _exit(127);
}
