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
 *
 * The staged base (11: the root, /etc, /dev) is the same for every run of a sandbox, so once a run
 * has named it the holder stages it too, and a run whose staging options are exactly those skips
 * that part of its mount helper. A set staged before a file was created, removed or renamed in
 * the directory of a staged /etc file (inotify; a bind shows the file it was made of) is
 * discarded.
 */
#include "launcher.h"

static pid_t holder = -1;    /* making the next set; -1: none, or already reaped */
static int holder_sock = -1; /* the server's end of the holder's socket pair; -1: no holder */
static int ready[3] = {-1, -1, -1};
static int available = 1;    /* 0 once a holder found no namespace here: runs make their own */

/*
 * The staging options of the last run that came (see stage.c; as one key of NUL-terminated
 * words, empty for none), and those the holder being made and the ready set were staged with.
 */
static char *stage_key, *holder_key, *ready_key;
static size_t stage_key_len, holder_key_len, ready_key_len;
static int stage_watch = -1; /* inotify on the directories of the staged files */

/* Run side: the set handed over is already staged with this run's options. */
int warm_staged;

/* The staging options in argv (a run request's) as a key, each NUL-terminated; its length in *len. */
static char *key_of(int argc, char **argv, size_t *len) {
  for (int k = 0; k < argc; k++) if (strcmp(argv[k], "--") == 0) argc = k; /* the command's own words follow */
  size_t cap = 1;
  for (int k = 0; k < argc; k++) cap += strlen(argv[k]) + 1;
  char *key = malloc(cap), *o = key;
  if (!key) die("malloc");
  for (int k = 0; k < argc; k++) {
    int values = stage_option_values(argv[k]);
    if (values == 0 || k + values >= argc) continue;
    for (int j = 0; j <= values; j++) o = stpcpy(o, argv[k + j]) + 1;
    k += values;
  }
  *len = (size_t)(o - key);
  return key;
}

/* Calls fn(option, values) for each option of a key. */
static void each_option(const char *key, size_t len, void (*fn)(const char *opt, const char *const *values)) {
  for (size_t off = 0; off < len;) {
    const char *opt = key + off, *values[2] = {NULL, NULL};
    off += strlen(opt) + 1;
    for (int j = 0; j < stage_option_values(opt) && off < len; j++) {
      values[j] = key + off;
      off += strlen(values[j]) + 1;
    }
    fn(opt, values);
  }
}

static int same_key(const char *a, size_t al, const char *b, size_t bl) {
  return a && b && al == bl && memcmp(a, b, al) == 0;
}

/* Watches the directory of a staged file for entries made, removed or renamed. */
static void watch_dir_of(const char *opt, const char *const *values) {
  const char *slash = values[0] ? strrchr(values[0], '/') : NULL;
  if (strcmp(opt, "--stage-file") != 0 || !slash || stage_watch < 0) return;
  char dir[4096];
  size_t l = slash == values[0] ? 1 : (size_t)(slash - values[0]);
  if (l >= sizeof dir) return;
  memcpy(dir, values[0], l);
  dir[l] = 0;
  /* Unwatchable: no set is staged ahead (see warm_refill), so no run can see a stale one. */
  if (inotify_add_watch(stage_watch, dir, IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE_SELF | IN_MOVE_SELF) < 0) {
    close(stage_watch);
    stage_watch = -1;
  }
}

static void watch_staged(void) {
  if (stage_watch >= 0) close(stage_watch);
  stage_watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  each_option(stage_key, stage_key_len, watch_dir_of);
}

/* In the holder: takes one staging option, as the run's own launcher would. */
static void take_option(const char *opt, const char *const *values) {
  if (take_stage_option(opt, values) < 0) _exit(125);
}

/* In the holder: stages what the key names, as the run's own helper would (stage.c). */
static void stage_ahead(const char *key, size_t len) {
  stage_init((int)len + 1);
  each_option(key, len, take_option);
  if (staging()) stage_all();
}

/*
 * In a helper the server has just forked (the holder, the discarder): dies with the server, and
 * keeps nothing of the server's open (its request and reply pipes, the runs' pipe ends) but its
 * own socket `sock`, which it finds at fd 3.
 */
static void leave_server(int sock) {
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0) _exit(125);
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(devnull, 1) < 0 || dup2(sock, 3) < 0) _exit(125);
  close_from(4);
}

/* In the holder: makes the namespaces, says so, and waits until the server has opened them. */
static void hold_namespaces(int sock) {
  leave_server(sock);
  sock = 3;
  if (enter_pin_namespace() < 0 || unshare(CLONE_NEWNET) < 0) {
    write_all(sock, (const unsigned char *)"n", 1);
    _exit(0);
  }
  loopback_up();
  if (holder_key_len > 0) stage_ahead(holder_key, holder_key_len);
  if (write_all(sock, (const unsigned char *)"r", 1) < 0) _exit(0);
  char b;
  while (read(sock, &b, 1) < 0 && errno == EINTR) {}
  _exit(0);
}

/*
 * Whoever drops a mount namespace's last reference unmounts all of it and waits for an RCU grace
 * period (up to a millisecond here). The server must not be the one waiting: the host's next
 * request, written right after a run's end is reported, would wait with it. So it hands such
 * descriptors to a helper of its own, which closes each one only once the server has said that it
 * closed its own copy (an empty message after it), so that the helper's is the last reference.
 */
static int discarder = -1; /* the server's end of the helper's socket; -1: close in place */

static void discard_loop(int sock) {
  int held = -1;
  for (;;) {
    char byte, ctl[CMSG_SPACE(sizeof(int))];
    struct iovec v = {&byte, 1};
    struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof ctl};
    ssize_t n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) _exit(0); /* the server is gone */
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    if (held >= 0) close(held);
    held = -1;
    if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) memcpy(&held, CMSG_DATA(c), sizeof held);
  }
}

void ns_discarder_start(void) {
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) return;
  pid_t pid = fork();
  if (pid == 0) {
    leave_server(sv[1]);
    prctl(PR_SET_NAME, "trust-discard", 0, 0, 0); /* tells it from the holder, in /proc/<pid>/comm */
    discard_loop(3);
  }
  close(sv[1]);
  if (pid < 0) close(sv[0]);
  else discarder = sv[0];
}

/* Sends one message to the helper, with `fd` attached when >= 0; never blocks. */
static int discard_send(int fd) {
  char byte = 0, ctl[CMSG_SPACE(sizeof(int))];
  memset(ctl, 0, sizeof ctl);
  struct iovec v = {&byte, 1};
  struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1};
  if (fd >= 0) {
    m.msg_control = ctl;
    m.msg_controllen = sizeof ctl;
    struct cmsghdr *c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof fd);
  }
  return (int)sendmsg(discarder, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
}

void ns_discard(int fd) {
  if (fd < 0) return;
  /* A helper that is gone or behind leaves this close (and its wait) to this process. */
  int sent = discarder >= 0 && discard_send(fd) >= 0;
  close(fd);
  if (sent && discard_send(-1) < 0) sent = 0;
  if (!sent && discarder >= 0) {
    close(discarder);
    discarder = -1;
  }
}

static void discard_ready(void) {
  for (int k = 0; k < 3; k++) if (ready[k] >= 0) { ns_discard(ready[k]); ready[k] = -1; }
  free(ready_key);
  ready_key = NULL;
  ready_key_len = 0;
}

static void stop_holder(void) {
  if (holder > 0) kill(holder, SIGKILL); /* reaped by the server's SIGCHLD loop */
  if (holder_sock >= 0) close(holder_sock);
  holder = -1;
  holder_sock = -1;
  free(holder_key);
  holder_key = NULL;
  holder_key_len = 0;
}

/* Starts making the next set, unless one is ready or being made. */
void warm_refill(void) {
  if (!available || holder_sock >= 0 || ready[0] >= 0) return;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) return;
  /* Staged ahead only while a change to the staged files would be seen. */
  holder_key_len = stage_watch >= 0 ? stage_key_len : 0;
  holder_key = malloc(holder_key_len + 1);
  if (!holder_key) die("malloc");
  if (holder_key_len > 0) memcpy(holder_key, stage_key, holder_key_len);
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
    if (ready[0] >= 0) {
      ready_key = holder_key;
      ready_key_len = holder_key_len;
      holder_key = NULL;
      holder_key_len = 0;
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

/* The descriptor to poll for changes to the staged files; -1 when none are watched. */
int warm_watch_fd(void) { return stage_watch; }

/* A staged file's directory changed: a set staged before would show what was there. Returns
   whether the set (or the holder) was dropped. */
int warm_staged_changed(void) {
  if (ready_key_len == 0 && holder_key_len == 0) return 0;
  warm_invalidate();
  return 1;
}

/* Whether a staged file's directory has changed since the last call (reads the events). */
int warm_staged_event(void) {
  char buf[4096];
  int any = 0;
  while (read(stage_watch, buf, sizeof buf) > 0) any = 1;
  return any;
}

/* No set is made any more (the server cannot see changes of its mount table). */
void warm_off(void) {
  available = 0;
  discard_ready();
  stop_holder();
}

/*
 * For the run request `argv`: moves a ready set (user, mnt, net) to `fds` and returns 1, with
 * *staged set when it is staged with exactly the run's options; 0 when none is ready. A set
 * staged with other options is dropped; the next is staged with this run's.
 */
int warm_take(int argc, char **argv, int fds[3], int *staged) {
  size_t len;
  char *key = key_of(argc, argv, &len);
  if (!same_key(key, len, stage_key, stage_key_len)) {
    free(stage_key);
    stage_key = key;
    stage_key_len = len;
    watch_staged();
  } else {
    free(key);
  }
  *staged = 0;
  if (ready[0] < 0) return 0;
  if (ready_key_len > 0 && !same_key(ready_key, ready_key_len, stage_key, stage_key_len)) {
    discard_ready();
    return 0;
  }
  *staged = ready_key_len > 0;
  for (int k = 0; k < 3; k++) { fds[k] = ready[k]; ready[k] = -1; }
  discard_ready(); /* its key; the descriptors are the run's now */
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
