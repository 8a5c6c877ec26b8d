/*
 * Warm namespaces for the spawn server (10): the private user and mount namespace a run's bwrap
 * child would make (see enter_pin_namespace) and a network namespace in it with loopback up,
 * made ahead of the run by a short-lived holder process while the server waits for requests. The
 * server keeps them as three descriptors and hands them to exactly one run, whose bwrap child
 * joins them with setns(2) instead of making them (about 0.7 ms of namespace set-up off the
 * spawn path here); then it makes the next set. Nothing is shared between runs: every set is new,
 * used once, and its mount namespace is discarded (and made again) as soon as the server's own
 * mount table changes, so a warm namespace never shows an older mount table than a run-time copy
 * would.
 */
#include "launcher.h"

static pid_t holder = -1;    /* making the next set; -1: none, or already reaped */
static int holder_sock = -1; /* the server's end of the holder's socket pair; -1: no holder */
static int ready[3] = {-1, -1, -1};
static int available = 1;    /* 0 once a holder found no namespace here: runs make their own */

/* In the holder: makes the namespaces, says so, and waits until the server has opened them. */
static void hold_namespaces(int sock) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) _exit(125);
  /* Nothing of the server's (its request and reply pipes, the runs' pipe ends) stays open here. */
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(sock, 3) < 0) _exit(125);
  sock = 3;
  close_from(4);
  if (enter_pin_namespace() < 0 || unshare(CLONE_NEWNET) < 0) {
    write_all(sock, (const unsigned char *)"n", 1);
    _exit(0);
  }
  loopback_up();
  if (write_all(sock, (const unsigned char *)"r", 1) < 0) _exit(0);
  char b;
  while (read(sock, &b, 1) < 0 && errno == EINTR) {}
  _exit(0);
}

static void discard_ready(void) {
  for (int k = 0; k < 3; k++) if (ready[k] >= 0) { close(ready[k]); ready[k] = -1; }
}

static void stop_holder(void) {
  if (holder > 0) kill(holder, SIGKILL); /* reaped by the server's SIGCHLD loop */
  if (holder_sock >= 0) close(holder_sock);
  holder = -1;
  holder_sock = -1;
}

/* Starts making the next set, unless one is ready or being made. */
void warm_refill(void) {
  if (!available || holder_sock >= 0 || ready[0] >= 0) return;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]);
    signal(SIGPIPE, SIG_DFL);
    hold_namespaces(sv[1]);
  }
  close(sv[1]);
  if (pid < 0) { close(sv[0]); return; }
  holder = pid;
  holder_sock = sv[0];
}

/* When to start making the next set: warm_later(ms) asks for it; warm_due() is the poll timeout. */
static long long due = -1; /* CLOCK_MONOTONIC ns; -1: not asked for */

static long long now_ns(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1000000000LL + t.tv_nsec;
}

void warm_later(int ms) {
  long long at = now_ns() + ms * 1000000LL;
  if (due < 0 || at < due) due = at;
}

int warm_due(void) {
  if (due < 0) return -1;
  long long left = due - now_ns();
  if (left > 0) return (int)((left + 999999) / 1000000);
  due = -1;
  warm_refill();
  return -1;
}

/* The descriptor to poll for the holder's word; -1 when none is being made. */
int warm_fd(void) { return holder_sock; }

/* The server reaped `pid`: if it was the holder, it is not to be signalled any more. */
void warm_reaped(pid_t pid) {
  if (pid == holder) holder = -1;
}

/* The holder has spoken (or died): keep its namespaces, or learn that there are none here. */
void warm_collect(void) {
  char b = 0;
  ssize_t n = read(holder_sock, &b, 1);
  if (n == 1 && b == 'r') {
    static const char *const kinds[3] = {"user", "mnt", "net"};
    for (int k = 0; k < 3; k++) {
      char path[64];
      snprintf(path, sizeof path, "/proc/%d/ns/%s", (int)holder, kinds[k]);
      ready[k] = open(path, O_RDONLY | O_CLOEXEC);
      if (ready[k] < 0) { discard_ready(); break; }
    }
  } else {
    available = 0; /* no namespace here (or the holder failed): every run makes its own */
  }
  stop_holder();
}

/* The server's mount table changed: a set made before the change would show the old one. */
void warm_invalidate(void) {
  discard_ready();
  stop_holder();
  warm_refill();
}

/* Moves a ready set (user, mnt, net) to `fds` for one run; 0 when none is ready. */
int warm_take(int fds[3]) {
  if (ready[0] < 0) return 0;
  for (int k = 0; k < 3; k++) { fds[k] = ready[k]; ready[k] = -1; }
  return 1;
}

/* Run side: the descriptors the server handed over (WARM_FD, +1, +2), or -1. */
int warm_ns_fd = -1;

/*
 * In a run's bwrap child: joins the warm user and mount namespace (and, with `net`, the network
 * namespace) instead of making them. Returns 0, or -1 with nothing changed when no set was handed
 * over or the user namespace cannot be joined (the caller then makes its own).
 */
int join_warm_namespace(int net) {
  if (warm_ns_fd < 0) return -1;
  int fd = warm_ns_fd;
  warm_ns_fd = -1;
  int ok = setns(fd, CLONE_NEWUSER) == 0;
  if (ok && setns(fd + 1, CLONE_NEWNS) < 0) die("joining the warm mount namespace");
  if (ok && net && setns(fd + 2, CLONE_NEWNET) < 0) die("joining the warm network namespace");
  for (int k = 0; k < 3; k++) close(fd + k);
  return ok ? 0 : -1;
}
