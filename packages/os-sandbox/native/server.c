#include "launcher.h"
#include "wire.h"

/*
 * --serve: the spawn server (10). One per sandbox, started once by the host process, which then
 * starts each run by writing a request instead of forking itself (a fork of a large Node process
 * costs about a millisecond more, and blocks its event loop). Requests on fd 0 are wire format
 * version 1 (src/launcher-wire.ts writes them, wire.c decodes them: a version byte, a kind, a
 * u32 id and a u32 body length, then a body of length-prefixed fields; any malformed frame, or
 * another version, ends the server: it is not our host):
 *   'R': the launcher's arguments, bwrap's options (written here into bwrap's --args file, a
 *       memfd at fd 3, only after each word was checked to hold no NUL), the seccomp program for
 *       fd 4, and flags (1 stdin, 2 stdout, 4 stderr: a pipe each, else /dev/null); a body that
 *       does not decode is answered "F id EINVAL" and nothing runs;
 *   'A': the host has opened the run's pipes (through /proc/<this pid>/fd), so this process
 *       closes its ends (and stdin can reach EOF);
 *   'K' u8 signal: SIGTERM to the run's supervising launcher, or SIGKILL to its process
 *       group; never to a pid already reaped (and so perhaps reused);
 *   'P', body as for 'R': prepares a run, started as far as bwrap's command,
 *       which is the launcher waiting for its own (--await, await.c) on a pipe whose write end
 *       only this server holds; replied to with "S" as a run;
 *   'G': the command (argv, environment as name/value pairs, working directory), decoded and
 *       checked here before it is forwarded: hands a prepared run its
 *       command, unless the run has ended or gone stale (this server's mount table or a staged
 *       /etc directory changed since it was prepared; or its --nested-git walk, done again now,
 *       finds other nested repositories than it did when the run was prepared). Replied to with
 *       "G id" (handed over) or "N id" (not: the run is ended with SIGTERM, and its "X" follows).
 * Replies on fd 1, one line each: "S id pid in out err" (the pipe ends' descriptor numbers here,
 * -1 for none), "X id code signal" when the run's launcher has exited, "F id errno" when it could
 * not be started. Each run is a fork of this process (the very binary the host verified) that
 * runs the launcher's main path in a new session, with its fd 5 a lifeline: the read end of a
 * pipe whose write end only this server holds. When the host goes (fd 0 closes, even on SIGKILL)
 * the server exits, every lifeline closes, and every run ends as in (6).
 */
#define SERVE_MAX_RUNS 4096
/*
 * A run's slot. fds: the host's ends of its pipes, until the host acknowledges ('A'), also when
 * the run has ended first (ended: reported, pid no longer ours to signal; the slot is freed by
 * the acknowledgement). mntns: its warm mount namespace, held until the run has been reported
 * over (see serve_start).
 */
/*
 * A prepared run also has go, the write end of its command pipe (-1 once used or for a run
 * started with its command); stale, set when a change its mounts may not show was seen; and what
 * its nested walk found when it was prepared (walk: NUL-terminated paths; nested: the options
 * that direct the walk; watched: an inotify instance on the directories walked; see nested_list).
 */
static struct serve_run {
  unsigned id;
  pid_t pid;
  int fds[3];
  int mntns;
  int live, acked, ended;
  int go, stale, watched;
  char *walk, **nested;
  size_t walk_len;
  int nnested;
} *serve_runs;

static void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void reply(const char *fmt, ...) {
  char line[128];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(line, sizeof line, fmt, ap);
  va_end(ap);
  if (write_all(1, (const unsigned char *)line, (size_t)n) < 0) _exit(0); /* the host is gone */
}

static struct serve_run *find_run(unsigned id) {
  for (int k = 0; k < SERVE_MAX_RUNS; k++) if (serve_runs[k].live && serve_runs[k].id == id) return &serve_runs[k];
  return NULL;
}

static void close_host_ends(struct serve_run *r) {
  for (int k = 0; k < 3; k++) if (r->fds[k] >= 0) { close(r->fds[k]); r->fds[k] = -1; }
}

static int memfd_with(const char *name, const unsigned char *data, size_t n) {
#ifndef SYS_memfd_create
#define SYS_memfd_create 319
#endif
  int fd = (int)syscall(SYS_memfd_create, name, 1u /* MFD_CLOEXEC */);
  if (fd < 0) return -1;
  if (write_all(fd, data, n) < 0 || lseek(fd, 0, SEEK_SET) < 0) { close(fd); return -1; }
  return fd;
}

/* The --nested-git and --nested-skip options among a run's arguments, copied; their number in *count. */
static char **nested_options(int argc, char **argv, int *count) {
  char **o = calloc((size_t)argc + 1, sizeof *o);
  if (!o) die("calloc");
  int n = 0;
  for (int k = 0; k + 1 < argc && strcmp(argv[k], "--") != 0; k++) {
    if (strcmp(argv[k], "--nested-git") != 0 && strcmp(argv[k], "--nested-skip") != 0) continue;
    if (!(o[n++] = strdup(argv[k])) || !(o[n++] = strdup(argv[k + 1]))) die("strdup");
    k++;
  }
  *count = n;
  return o;
}

/* Forgets what a prepared run kept: its command pipe, its walk. */
static void forget_prepared(struct serve_run *r) {
  if (r->go >= 0) close(r->go);
  ns_discard(r->watched); /* an inotify instance's close waits for its marks to go */
  r->go = r->watched = -1;
  free(r->walk);
  for (int k = 0; k < r->nnested; k++) free(r->nested[k]);
  free(r->nested);
  r->walk = NULL;
  r->nested = NULL;
  r->walk_len = 0;
  r->nnested = 0;
}

/* Starts one run (prepare: only as far as its command) from a complete request body; returns 0,
   or an errno for "F". */
static int serve_start(unsigned id, const unsigned char *p, size_t n, int life, const sigset_t *old, int prepare) {
  struct serve_run *slot = NULL;
  for (int k = 0; k < SERVE_MAX_RUNS && !slot; k++) if (!serve_runs[k].live) slot = &serve_runs[k];
  if (!slot) return EAGAIN;
  struct wire_request q;
  int bad = wire_decode_request(p, n, &q);
  if (bad) return bad;
  unsigned argc = q.argc;
  char **argv = q.args;
  int blobs[2] = {-1, -1};
  blobs[0] = q.options_len > 0 ? memfd_with("args", (const unsigned char *)q.options_file, q.options_len) : open("/dev/null", O_RDONLY | O_CLOEXEC);
  blobs[1] = q.seccomp_len > 0 ? memfd_with("seccomp", q.seccomp, q.seccomp_len) : open("/dev/null", O_RDONLY | O_CLOEXEC);
  unsigned flags = q.flags;
  int ends[3][2], err = 0, go[2] = {-1, -1}, exe = -1;
  char *walk = NULL, **nested = NULL;
  size_t walk_len = 0;
  int nnested = 0, watched = -1;
  if (prepare) {
    /* Room for the command message, so that handing it over never blocks this server: as much
       as the host allows a pipe (a larger message is refused at 'G'). */
    if (pipe2(go, O_CLOEXEC) < 0 || fcntl(go[1], F_SETFL, O_NONBLOCK) < 0) err = errno;
    else fcntl(go[1], F_SETPIPE_SZ, (int)AWAIT_MAX + 4);
    /* What bwrap runs as the launcher in the sandbox (see AWAIT_SANDBOX_EXE_FD). */
    if (!err && (exe = open("/proc/self/exe", O_RDONLY | O_CLOEXEC)) < 0) err = errno;
    /* Before the run's own walk: whatever changes after this one shows at 'G'. */
    nested = nested_options((int)argc + 1, argv, &nnested);
    if (nnested > 0) walk = nested_list(nnested, nested, &walk_len, &watched);
  }
  for (int k = 0; k < 3; k++) {
    ends[k][0] = ends[k][1] = -1;
    if (flags & (1u << k)) {
      if (pipe2(ends[k], O_CLOEXEC) < 0) err = errno;
    } else {
      ends[k][k == 0 ? 0 : 1] = open("/dev/null", O_RDWR | O_CLOEXEC);
    }
  }
  /* Namespaces made ahead for this run, if a set is ready (warm.c). */
  int warm[3] = {-1, -1, -1}, staged = 0;
  if (!err && blobs[0] >= 0 && blobs[1] >= 0) warm_take((int)argc + 1, argv, warm, &staged);
  pid_t pid = err || blobs[0] < 0 || blobs[1] < 0 ? -1 : fork();
  if (pid == 0) {
    /* As from a fresh exec: every signal at its default disposition (ignored ones survive exec,
       into the command), nothing blocked. */
    default_signals();
    sigprocmask(SIG_SETMASK, old, NULL);
    setsid();
    /* The child's ends: stdin reads, stdout and stderr write. Moved high first, so that no dup2
       below overwrites a descriptor still to be moved. */
    int want[11] = {ends[0][0], ends[1][1], ends[2][1], blobs[0], blobs[1], life, warm[0], warm[1], warm[2], go[0], exe};
    for (int k = 0; k < 11; k++) {
      if (k >= 6 && want[k] < 0) continue; /* no warm set, or not a prepared run */
      if ((want[k] = fcntl(want[k], F_DUPFD_CLOEXEC, 64)) < 0) _exit(125);
    }
    for (int k = 0; k < 11; k++) if (want[k] >= 0 && dup3(want[k], k, k < 6 ? 0 : O_CLOEXEC) < 0) _exit(125);
    /* The warm set stays at WARM_FD..+2 and the command pipe at AWAIT_FD (close-on-exec) through
       every close_from. */
    if (warm[0] >= 0) warm_ns_fd = WARM_FD;
    if (go[0] >= 0) await_fd = AWAIT_FD;
    warm_staged = staged;
    close_from(6);
    /* This process is already the launcher the host verified: run it, no exec needed. Its
       environment is the server's (PATH only, as the host started it). */
    _exit(launcher_main((int)argc + 1, argv));
  }
  if (pid < 0 && !err) err = errno ? errno : EINVAL;
  wire_request_free(&q);
  close(blobs[0]);
  close(blobs[1]);
  if (go[0] >= 0) close(go[0]);
  if (exe >= 0) close(exe);
  /* The mount namespace is kept until the run has ended: whoever drops the last reference to it
     unmounts all of it and waits for an RCU grace period, which would otherwise fall to the run's
     last process (a relay) while the host still waits for the run to end. Then it goes to the
     discarder (warm.c), so that neither does this process wait. */
  for (int k = 0; k < 3; k++) if (warm[k] >= 0 && (k != 1 || pid < 0)) ns_discard(warm[k]);
  /* Keep the host's ends (stdin's write end, the others' read ends) until the host acknowledges. */
  for (int k = 0; k < 3; k++) {
    int child_end = ends[k][k == 0 ? 0 : 1], host_end = ends[k][k == 0 ? 1 : 0];
    if (child_end >= 0) close(child_end);
    slot->fds[k] = host_end;
    if (err && host_end >= 0) { close(host_end); slot->fds[k] = -1; }
  }
  if (err) {
    if (go[1] >= 0) close(go[1]);
    if (watched >= 0) close(watched);
    free(walk);
    for (int k = 0; k < nnested; k++) free(nested[k]);
    free(nested);
    return err;
  }
  slot->go = go[1];
  slot->watched = watched;
  slot->stale = 0;
  slot->walk = walk;
  slot->walk_len = walk_len;
  slot->nested = nested;
  slot->nnested = nnested;
  slot->id = id;
  slot->pid = pid;
  slot->mntns = warm[1];
  slot->live = 1;
  slot->acked = slot->ended = 0;
  reply("S %u %d %d %d %d\n", id, (int)pid, slot->fds[0], slot->fds[1], slot->fds[2]);
  return 0;
}

/* Hands prepared run `id` its command message (p, n), or ends it; replies "G" or "N". */
static void serve_go(unsigned id, const unsigned char *p, size_t n) {
  struct serve_run *r = find_run(id);
  int prepared = r && r->go >= 0; /* else not ours to end: a run started with its command, or one handed its command already */
  /* Decoded and checked here (no NUL in any word, plain names, an absolute directory), and again
     by the run (await.c), which reads only what passed. */
  struct wire_command c;
  int valid = wire_decode_command(p, n, &c) == 0;
  if (valid) wire_command_free(&c);
  int ok = prepared && valid && !r->ended && !r->stale && n <= AWAIT_MAX;
  /* The walk again, unless no directory it looked into has changed since (no inotify event). */
  char event[sizeof(struct inotify_event) + NAME_MAX + 1];
  int unchanged = ok && r->watched >= 0 && read(r->watched, event, sizeof event) < 0 && errno == EAGAIN;
  if (ok && r->nnested > 0 && !unchanged) {
    size_t len;
    char *now = nested_list(r->nnested, r->nested, &len, NULL);
    ok = len == r->walk_len && (len == 0 || memcmp(now, r->walk, len) == 0);
    free(now);
  }
  if (ok && (size_t)fcntl(r->go, F_GETPIPE_SZ) < n + 4) ok = 0; /* it would not fit at once */
  if (ok) {
    unsigned char head[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16), (unsigned char)(n >> 24)};
    struct iovec v[2] = {{head, 4}, {(void *)p, n}};
    ok = writev(r->go, v, 2) == (ssize_t)n + 4;
  }
  if (!prepared) {
    reply("N %u\n", id);
    return;
  }
  forget_prepared(r);
  if (!ok && !r->ended) kill(r->pid, SIGTERM);
  reply(ok ? "G %u\n" : "N %u\n", id);
}

/* A change that a prepared run's mounts may not show: none of them gets its command. */
static void prepared_stale(void) {
  for (int k = 0; k < SERVE_MAX_RUNS; k++) {
    struct serve_run *r = &serve_runs[k];
    if (!r->live || r->go < 0 || r->ended || r->stale) continue;
    r->stale = 1;
    kill(r->pid, SIGTERM);
  }
}

int spawn_server(void) {
  serve_runs = calloc(SERVE_MAX_RUNS, sizeof *serve_runs);
  if (!serve_runs) die("calloc");
  for (int k = 0; k < SERVE_MAX_RUNS; k++) serve_runs[k].go = serve_runs[k].watched = -1;
  int life[2];
  if (pipe2(life, O_CLOEXEC) < 0) die("pipe");
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  if (sigprocmask(SIG_BLOCK, &chld, &old) < 0) die("sigprocmask");
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) die("signalfd");
  signal(SIGPIPE, SIG_IGN);
  size_t cap = 1 << 16, have = 0;
  unsigned char *buf = malloc(cap);
  if (!buf) die("malloc");
  /* Polled for changes of this process's mount table, which make a warm set stale (warm.c). */
  int mounts = open("/proc/self/mountinfo", O_RDONLY | O_CLOEXEC);
  if (mounts < 0) warm_off();
  ns_discarder_start();
  warm_refill();
  struct pollfd p[5] = {{0, POLLIN, 0}, {sfd, POLLIN, 0}, {mounts, POLLPRI, 0}, {-1, POLLIN, 0}, {-1, POLLIN, 0}};
  for (;;) {
    int timeout = warm_due(); /* may start a holder: before its descriptor is taken */
    p[3].fd = warm_fd();
    p[4].fd = warm_watch_fd();
    if (poll(p, 5, timeout) < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    /* A dropped holder's word is not read: its descriptor may already be the next holder's. */
    int changed = p[4].fd >= 0 && (p[4].revents & POLLIN) && warm_staged_event();
    int dropped = changed && warm_staged_changed();
    if (p[2].revents & (POLLPRI | POLLERR)) {
      warm_invalidate();
      dropped = changed = 1;
    }
    if (changed) prepared_stale();
    if (!dropped && p[3].fd >= 0 && (p[3].revents & (POLLIN | POLLHUP | POLLERR))) warm_collect();
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {}
      int st;
      pid_t w;
      while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
        warm_reaped(w);
        for (int k = 0; k < SERVE_MAX_RUNS; k++) {
          struct serve_run *r = &serve_runs[k];
          if (!r->live || r->pid != w) continue;
          reply("X %u %d %d\n", r->id, WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
          ns_discard(r->mntns);
          r->mntns = -1;
          forget_prepared(r);
          /* A run may end before the host has opened its pipes: their ends stay until it has. */
          r->pid = -1;
          r->ended = 1;
          r->live = !r->acked;
        }
      }
      warm_later(0);
    }
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    if (have == cap) {
      if (cap >= WIRE_MAX_BODY + WIRE_HEADER_BYTES) _exit(125); /* a request larger than any plan: not our host */
      unsigned char *bigger = realloc(buf, cap * 2);
      if (!bigger) die("realloc");
      buf = bigger;
      cap *= 2;
    }
    ssize_t got = read(0, buf + have, cap - have);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) _exit(0); /* the host is gone: the lifelines close with us */
    have += (size_t)got;
    size_t off = 0;
    for (;;) {
      struct wire_header h;
      int whole = wire_header(buf + off, have - off, &h);
      if (whole < 0) _exit(125); /* not our protocol (or not its version) */
      if (whole == 0 || have - off - WIRE_HEADER_BYTES < h.length) break;
      const unsigned char *body = buf + off + WIRE_HEADER_BYTES;
      off += WIRE_HEADER_BYTES + h.length;
      if (h.kind == 'A' || h.kind == 'K') {
        if (h.length != (h.kind == 'A' ? 0u : 1u)) _exit(125);
        struct serve_run *r = find_run(h.id);
        if (r && h.kind == 'A') {
          close_host_ends(r);
          r->acked = 1;
          r->live = !r->ended;
        }
        if (r && h.kind == 'K' && !r->ended) {
          if (body[0] == SIGKILL) kill(-r->pid, SIGKILL);
          kill(r->pid, body[0] == SIGKILL ? SIGKILL : SIGTERM);
        }
      } else if (h.kind == 'G') {
        serve_go(h.id, body, h.length);
      } else {
        int e = serve_start(h.id, body, h.length, life[0], &old, h.kind == 'P');
        /* The next set is made once this run is past its start, not while it starts: the
           holder's kernel work would hold up the run's own processes (warm.c). */
        warm_later(WARM_DELAY_MS);
        if (e) reply("F %u %d\n", h.id, e);
      }
    }
    memmove(buf, buf + off, have - off);
    have -= off;
  }
}
