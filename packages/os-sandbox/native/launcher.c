/*
 * trust-sandbox-launcher (this file: options, the supervisor, root locks, limits, the probe;
 * bridge.c, pins.c, stage.c, server.c and warm.c: the bridges, the pins, the staged base, the
 * spawn server and its namespaces made ahead; util.c: helpers).
 *
 * It runs INSIDE the bubblewrap sandbox, with no more authority than the
 * command it starts. It does three small things before exec, so that no shell and no Node
 * process is needed per spawn:
 *
 *   1. --bridge PORT SOCKET: listens on 127.0.0.1:PORT in the sandbox's own network namespace
 *      and relays every accepted connection to the unix socket SOCKET (the run's egress proxy,
 *      bind-mounted in). The listener is bound before the command starts, so no readiness poll
 *      is needed. The relay process is double-forked, so the command never sees it as a child
 *      (a wait() loop in the command cannot hang on it); the PID namespace ends it with the run.
 *      (On the host side, with --netns, the bridges run outside the sandbox instead: see 9.)
 *   1b. --udp-bridge PORT SOCKET: binds UDP 127.0.0.1:PORT and carries every datagram, framed,
 *      over one stream connection to SOCKET (the proxy's datagram channel: a first byte 0x00,
 *      then frames "u16 length | u16 port | SOCKS5 UDP datagram" both ways; port is the sender's
 *      UDP port on the way in and the reply's destination port on the way out). The proxy judges
 *      each destination; this relay only moves bytes. Started before exec, like --bridge.
 *   2. --rlimit NAME=VALUE: setrlimit(2) for as, nofile, nproc, fsize, core, cpu.
 *   2b. --block-unix: once the bridges are up, a seccomp filter of its own refuses socket(AF_UNIX)
 *      (EPERM) to everything it starts (the filter bwrap loaded allows it, since the bridge needs
 *      it; see seccomp.ts). socketpair stays allowed.
 *   3. exec of the command argv (execvp semantics: PATH lookup with the sandbox's PATH).
 *
 * On the host side, before bubblewrap starts, it has one more job:
 *   4. --cgroup FILE: writes its own pid to FILE (a cgroup.procs file), so that bwrap and every
 *      sandboxed process start inside the run's cgroup with no race.
 *   5. --close-from N: closes every file descriptor >= N before exec (close_range(2), or a walk of
 *      /proc/self/fd on older kernels), so descriptors the host process inherited without
 *      close-on-exec never reach bubblewrap or the sandbox.
 *   6. --lifeline FD: instead of exec'ing bubblewrap it forks it and stays as a child subreaper
 *      that watches FD, the sandbox end of a socket pair whose other end only the host process
 *      holds. When that end closes (the host died, even by SIGKILL) it kills every process left
 *      below it, including a sandbox init that bubblewrap orphaned while still setting up (the
 *      window in which bwrap's own --die-with-parent is not armed yet). It exits as bubblewrap
 *      did: the same code, or the same signal. SIGTERM (the host's kill()) ends the run the same
 *      way, so that the launcher still gets to sweep (7) before it exits.
 *   7. --hold DIR, each followed by --sweep f|d PATH...: with --lifeline, takes a shared flock(2)
 *      on the writable root DIR for the whole run, and when the run is over removes the read-only
 *      placeholders it names (PATH, inside DIR, still an empty file or directory), but only if an
 *      exclusive lock on DIR can be had at once. Any other live run over DIR, from this or another
 *      process, holds a shared lock, and unlinking a mount point on the host would silently
 *      detach that run's read-only mount: its placeholders stay until the last run has ended.
 *      --sweep-now (and no command) does only that, for placeholders kept between runs; with
 *      --sweep-wait MS it waits up to MS milliseconds for the other runs to end.
 *   8. --pin-empty FILE DIR, then --pin f|d|s|F|D PATH...: with --lifeline, pins protected paths
 *      read-only before bubblewrap starts, in a private user and mount namespace of the bwrap
 *      child: f and d bind the empty FILE or DIR over PATH (creating it as an empty file or
 *      directory when missing, the placeholder --sweep removes later), s binds PATH over itself,
 *      F and D do as s, or as f and d if PATH has gone since the run was planned.
 *      Each bind is made with open_tree/mount_setattr/move_mount on an O_PATH|O_NOFOLLOW
 *      descriptor (a symlink is refused). bwrap's recursive bind of the writable root carries
 *      them into the sandbox, where the kernel locks them (they come from a more privileged
 *      namespace): they cannot be unmounted, made writable, renamed or removed. This costs about
 *      10 microseconds a path; a bwrap --ro-bind re-reads /proc/self/mountinfo each time and costs
 *      about 200. Where the private namespace or the new mount API is not available (an AppArmor
 *      userns restriction that only bwrap's own profile lifts, a kernel before 5.12), the same
 *      paths are handed to bwrap as --ro-bind options instead (--pin-via-bwrap forces that).
 *   8a. --pin-overlay ROOT WORK: with 8, before any pin, mounts over ROOT (in the same private
 *      namespace) an overlay whose upper layer is ROOT and whose lower layer, a tmpfs of the run,
 *      holds the pinned names missing from ROOT as empty entries, so the pins find their mount points there
 *      and no placeholder is created in ROOT; the overlay's work directory is made below WORK
 *      (ROOT's filesystem, outside ROOT) and removed after the run (pins.c). --pin-overlay-ro
 *      ROOT: a read-only overlay of ROOT alone, so that no socket inode in it can be connected
 *      to; --pin-socket PATH binds the real socket back over its overlay inode (unixSockets).
 *   8b. --nested-git ROOT and --nested-skip PATH: with 8, also finds the .git entries of
 *      repositories nested below each ROOT (not entering PATH; see nested.c) and pins them as s.
 *   9. --netns: with --lifeline, the bwrap child enters the same private user namespace as for
 *      --pin and makes the run's network namespace in it (loopback up), binds the --bridge and
 *      --udp-bridge sockets there and forks their relays, then execs bwrap, which is told to
 *      --share-net that namespace. The relays stay outside the sandbox (SOCKET is the host
 *      path; nothing is bound into the sandbox), moving bytes only, each chrooted into SOCKET's
 *      directory with every capability dropped (bridge.c); they die with bwrap
 *      (PR_SET_PDEATHSIG), which outlives every sandboxed process. This saves the sandbox two
 *      binds and an exec per run.
 *  10. --serve: the spawn server, one per sandbox (server.c): the host process
 *      asks it for each run instead of forking itself, and it is every run's lifeline holder.
 *      It also makes the private user, mount and network namespace of 8, 9 and 11 ahead of each
 *      run (warm.c); the run's bwrap child joins them instead of making them.
 *  11. --stage-root DIR with --root-bind SRC DEST, --root-symlink TARGET DEST, --root-tmpfs DEST
 *      (in order), --stage DIR with --stage-file PATH..., --stage-dev DIR: with --lifeline, the
 *      bwrap child stages the base of the sandbox in the same private namespace (stage.c): a tmpfs
 *      root holding /usr, the usrmerge links, the empty /tmp, /var/tmp, home and /run, a short /etc
 *      (a read-only bind of each PATH) and /dev as bwrap's --dev would make it, which bwrap binds
 *      as its root with one option instead of some twenty.
 *      The mounts of 8 and 11 are made while bwrap starts when its options arrive as a small
 *      regular file (the spawn server's memfd): see mount_while_bwrap_starts(); the spawn server
 *      makes those of 11 ahead of the run (warm.c).
 *  12. --await (in the sandbox, as bwrap's command, in place of `-- CMD`): the spawn server can
 *      start a run before its command is known ('P'); its bwrap runs this launcher (as
 *      /proc/self/fd/6, a descriptor of this binary, so nothing is bound into the sandbox for
 *      it), which waits on fd 5 for the command, its environment and working directory and execs
 *      it (await.c).
 * And one diagnostic mode: --probe prints {"landlock":ABI,"seccomp":0|1,"pins":0|1,"netns":0|1}
 * for probeSandbox().
 *
 * Usage: trust-sandbox-launcher --serve | --probe
 *        trust-sandbox-launcher --hold DIR [--sweep f|d PATH]... --sweep-now
 *        trust-sandbox-launcher [--close-from N] [--cgroup FILE]... [--lifeline FD [--hold DIR [--sweep f|d PATH]...]... [--pin-empty FILE DIR --pin f|d|s|F|D PATH... [--pin-overlay ROOT WORK | --pin-overlay-ro ROOT | --pin-socket PATH]... [--nested-git ROOT]... [--nested-skip PATH]...] [--stage-root DIR [--root-bind SRC DEST | --root-symlink TARGET DEST | --root-tmpfs DEST]...] [--stage DIR --stage-file PATH...] [--stage-dev DIR] [--netns]] [--bridge PORT SOCKET]... [--udp-bridge PORT SOCKET] [--rlimit NAME=VALUE]... [--block-unix] (-- CMD [ARGS...] | --await --)
 * Exit codes: 127 command not found / exec failed, 125 launcher usage or setup error.
 */
#include "launcher.h"
#include <stddef.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

/* Writable roots held with a shared lock for the run, and the placeholders to remove after it. */
/* Sized from argc in main(): each entry takes at least two arguments. */
static int *holds, nholds;
static struct sweep_entry { int hold; char type; const char *path; } *sweeps;
static int nsweeps;
static int own_net;       /* --netns: the bwrap child makes the run's network namespace (see 9) */
static int pin_via_bwrap; /* --pin-via-bwrap: take the fallback even where the namespace is available */

struct limit_name { const char *name; int resource; };
static const struct limit_name LIMITS[] = {
  {"as", RLIMIT_AS}, {"nofile", RLIMIT_NOFILE}, {"nproc", RLIMIT_NPROC},
  {"fsize", RLIMIT_FSIZE}, {"core", RLIMIT_CORE}, {"cpu", RLIMIT_CPU},
};

static void apply_limit(const char *spec) {
  const char *eq = strchr(spec, '=');
  if (!eq) { errno = EINVAL; die(spec); }
  char *end = NULL;
  errno = 0;
  unsigned long long v = strtoull(eq + 1, &end, 10);
  if (errno || !end || *end) { errno = EINVAL; die(spec); }
  for (size_t i = 0; i < sizeof LIMITS / sizeof LIMITS[0]; i++) {
    if (strlen(LIMITS[i].name) == (size_t)(eq - spec) && strncmp(LIMITS[i].name, spec, (size_t)(eq - spec)) == 0) {
      struct rlimit r = {(rlim_t)v, (rlim_t)v};
      if (setrlimit(LIMITS[i].resource, &r) < 0) die(spec);
      return;
    }
  }
  errno = EINVAL;
  die(spec);
}


/* --block-unix: socket(AF_UNIX, ...) answers EPERM from here on (filters only ever add up). */
static void block_unix(void) {
#if defined(__x86_64__)
  const unsigned int arch = 0xc000003e, nr_socket = 41;
#elif defined(__aarch64__)
  const unsigned int arch = 0xc00000b7, nr_socket = 198;
#else
#error "no seccomp table for this architecture"
#endif
  struct sock_filter prog[] = {
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, arch, 1, 0),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW), /* foreign: the outer filter answers ENOSYS */
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr_socket, 0, 3),
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 0, 1),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog fprog = {(unsigned short)(sizeof prog / sizeof prog[0]), prog};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) < 0) die("seccomp (--block-unix)");
}

static void join_cgroup(const char *file) {
  int fd = open(file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) die(file);
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%d\n", (int)getpid());
  if (write(fd, buf, (size_t)n) != n) die(file);
  close(fd);
}


/* SIGKILLs every direct child of this process (orphans reparent here: we are a subreaper). */
static int kill_children(void) {
  char path[64], buf[4096];
  int killed = 0;
  snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  for (char *t = strtok(buf, " \n"); t; t = strtok(NULL, " \n")) {
    if (kill((pid_t)atoi(t), SIGKILL) == 0) killed++;
  }
  return killed;
}


static const char **hold_paths;
static void hold(const char *dir) {
  /* No symlink in any component: the lock and the sweep act on this very directory. */
  int fd = open_nofollow(dir, O_RDONLY | O_DIRECTORY);
  hold_paths[nholds] = dir;
  /* A root that is missing or not a directory has no placeholders; bwrap reports the grant. */
  if (fd < 0 && errno != ENOENT && errno != ENOTDIR) die(dir);
  while (fd >= 0 && flock(fd, LOCK_SH) < 0) if (errno != EINTR) die("flock");
  holds[nholds++] = fd;
}


static int held(int fd) {
  for (int h = 0; h < nholds; h++) if (holds[h] == fd) return 1;
  return 0;
}


/* With --sweep-now: how long to wait for a root's other runs to end (--sweep-wait MS), else 0. */
static long sweep_wait_ms;

/* The exclusive lock on a held root: at once, or within sweep_wait_ms. */
static int lock_alone(int fd) {
  for (long waited = 0;; waited += 5) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) return 0;
    if (errno != EWOULDBLOCK && errno != EINTR) return -1;
    if (waited >= sweep_wait_ms) return -1;
    struct timespec step = {0, 5000000};
    nanosleep(&step, NULL);
  }
}

/* Removes this run's placeholders under every root no other run holds (see --hold). */
static void sweep(void) {
  for (int h = 0; h < nholds; h++) {
    if (holds[h] < 0 || lock_alone(holds[h]) < 0) continue;
    for (int k = 0; k < nsweeps; k++) {
      /* Relative to the held descriptor, never by the path again: a placeholder is a direct
         child of its root, and a run that swapped something for a symlink meanwhile cannot
         redirect this unlink. */
      size_t rl = strlen(hold_paths[h]);
      const char *name = sweeps[k].path + rl + 1;
      struct stat st;
      if (sweeps[k].hold != h || strncmp(sweeps[k].path, hold_paths[h], rl) != 0 || sweeps[k].path[rl] != '/' || strchr(name, '/') || !*name) continue;
      if (fstatat(holds[h], name, &st, AT_SYMLINK_NOFOLLOW) < 0) continue;
      if (sweeps[k].type == 'f' && S_ISREG(st.st_mode) && st.st_size == 0) unlinkat(holds[h], name, 0);
      else if (sweeps[k].type == 'd' && S_ISDIR(st.st_mode)) unlinkat(holds[h], name, AT_REMOVEDIR); /* fails unless empty */
    }
    flock(holds[h], LOCK_UN);
  }
}


static void exit_like(int status) {
  if (WIFSIGNALED(status)) {
    signal(WTERMSIG(status), SIG_DFL);
    sigset_t all;
    sigemptyset(&all);
    sigaddset(&all, WTERMSIG(status));
    sigprocmask(SIG_UNBLOCK, &all, NULL);
    kill(getpid(), WTERMSIG(status));
  }
  _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 125);
}


/* The mounts made before bwrap starts: the staged base, and the pins (unless they went to bwrap
   as options). */
static int pins_in_namespace;
static int staged_ahead; /* the warm set came staged (warm.c) */
static void make_mounts(void) {
  if (staging() && !staged_ahead) stage_all();
  if (pins_in_namespace) {
    nested_scan();
    pin_all();
  }
}

/*
 * In the bwrap child, with the mounts to make: lets bwrap start (its exec and dynamic loading
 * take about as long as the mounts) while a helper in the same namespaces makes them. bwrap reads
 * its options from fd 3 before it does anything else; the helper hands them over only once every
 * mount is in place, in one write no larger than PIPE_BUF, which the kernel makes atomic. A
 * helper that fails (or is killed) hands over nothing: bwrap then finds no options and an empty
 * root where no command exists, and `failed` tells the supervisor, which exits 125 as the
 * launcher would have. Returns 0 once fd 3 is the helper's pipe; -1 (nothing done) when the
 * options are not a regular file (a memfd) of at most PIPE_BUF bytes: make the mounts inline.
 */
static int mount_while_bwrap_starts(int failed) {
  struct stat st;
  if (fstat(3, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > PIPE_BUF) return -1;
  int handoff[2];
  if (pipe2(handoff, O_CLOEXEC) < 0) return -1;
  pid_t parent = getpid();
  pid_t helper = fork();
  if (helper < 0) {
    close(handoff[0]);
    close(handoff[1]);
    return -1;
  }
  if (helper == 0) {
    die_notify_fd = failed;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent) _exit(125);
    make_mounts();
    unsigned char options[PIPE_BUF];
    ssize_t n = pread(3, options, sizeof options, 0);
    if (n < 0 || n != st.st_size) die("bwrap options");
    if (write(handoff[1], options, (size_t)n) != n) die("handing bwrap its options");
    _exit(0);
  }
  if (dup2(handoff[0], 3) < 0) die("dup2");
  close(handoff[0]);
  close(handoff[1]);
  return 0;
}

/* Forks argv (bubblewrap) and supervises it; never returns. */
static void supervise(int lifeline, char **argv) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) die("PR_SET_CHILD_SUBREAPER");
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigaddset(&chld, SIGTERM); /* the host's kill(): end the run, then sweep and exit as it did */
  if (sigprocmask(SIG_BLOCK, &chld, &old) < 0) die("sigprocmask");
  /* A byte here: the mount helper failed (see mount_while_bwrap_starts). Only runs with mounts
     to make have one. */
  int failed[2] = {-1, -1};
  if ((staging() || pin_count() > 0 || nested_root_count() > 0) && pipe2(failed, O_CLOEXEC | O_NONBLOCK) < 0) die("pipe");
  /* Above the descriptors the loop below closes (0-4). */
  for (int k = 0; k < 2; k++) {
    if (failed[k] < 0 || failed[k] > 4) continue;
    int high = fcntl(failed[k], F_DUPFD_CLOEXEC, 10);
    if (high < 0) die("fcntl");
    close(failed[k]);
    failed[k] = high;
  }
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(lifeline);
    close(failed[0]);
    int npins = pin_count() + nested_root_count(); /* pins, or roots to find some in */
    int stage = staging();
    int want_ns = own_net || stage || (npins > 0 && !pin_via_bwrap);
    /* The spawn server may have made these namespaces ahead of the run (warm.c). */
    int warm = want_ns && join_warm_namespace(own_net) == 0;
    int ns = warm ? 0 : want_ns ? enter_pin_namespace() : -1;
    staged_ahead = warm && warm_staged;
    /* Planned only where the probe found the namespace: no bwrap fallback to hand it to. */
    if (stage && ns < 0) die("staging the base needs a private mount namespace");
    if (npins > 0 && (pin_via_bwrap || ns < 0)) {
      nested_scan();
      argv = pins_as_bwrap_options(argv);
    } else {
      pins_in_namespace = npins > 0;
    }
    /* The mount helper first: it works while the network is set up and bwrap starts. */
    int inline_mounts = ((stage && !staged_ahead) || pins_in_namespace) && mount_while_bwrap_starts(failed[1]) < 0;
    if (own_net) {
      /* The run's network namespace, owned by our user namespace: bwrap shares it (--share-net)
         and the command, with no capabilities there, cannot reconfigure it. */
      if (ns < 0 || (!warm && unshare(CLONE_NEWNET) < 0)) die("network namespace");
      if (!warm) loopback_up();
      start_bridges(1);
    }
    if (inline_mounts) make_mounts();
    /* A prepared run: bwrap runs this binary (--await) and hands it the command channel. */
    if (await_fd >= 0 && (dup2(await_fd, AWAIT_SANDBOX_FD) < 0 || dup2(await_fd + 1, AWAIT_SANDBOX_EXE_FD) < 0)) die("dup2");
    execv(argv[0], argv);
    fprintf(stderr, "trust-sandbox-launcher: cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(127);
  }
  close(failed[1]);
  if (await_fd >= 0) { /* the bwrap child's */
    close(await_fd);
    close(await_fd + 1);
  }
  if (warm_ns_fd >= 0) { /* the bwrap child's */
    for (int k = 0; k < 3; k++) close(warm_ns_fd + k);
    warm_ns_fd = -1;
  }
  /* Hold no copy of the run's pipes: stdio, --args and the seccomp program belong to bwrap. */
  int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
  for (int fd = 0; fd <= 4; fd++) {
    if (fd == lifeline || held(fd)) continue; /* a free 3 or 4 may have gone to a --hold lock */
    if (fd <= 2 && devnull >= 0) dup2(devnull, fd); else close(fd);
  }
  /* Only now, so it cannot take a number the loop above closes. SIGCHLD has been blocked since
     before the fork, so an early exit of bwrap stays pending and is read here. */
  int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
  if (sfd < 0) die("signalfd");
  int status = 0, done = 0, orphaned = 0, ending = 0;
  struct pollfd p[2] = {{sfd, POLLIN, 0}, {lifeline, POLLIN, 0}};
  for (;;) {
    if (poll(p, orphaned ? 1 : 2, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    if (p[0].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {
        if (si.ssi_signo == SIGTERM) ending = 1;
      }
    }
    if (!orphaned && (p[1].revents & (POLLIN | POLLHUP | POLLERR | POLLNVAL))) {
      char b;
      ssize_t n = (p[1].revents & POLLIN) ? read(lifeline, &b, 1) : 0;
      if (n <= 0) {
        /* The host end closed: nobody will wait for this run. End all of it. */
        orphaned = 1;
        close(lifeline);
        kill_children();
      }
    }
    for (;;) {
      int st;
      pid_t w = waitpid(-1, &st, WNOHANG);
      if (w <= 0) break;
      if (w == child) { status = st; done = 1; }
    }
    if (orphaned || ending) kill_children();
    if (!done) continue;
    /* bwrap has ended. What is left below us (the relays, an orphaned sandbox init, processes
       reparented here as its namespace ended) is killed, and keeps us until it is gone: reaped
       here as each one exits, without a turn of the loop per child. */
    for (;;) {
      kill_children();
      if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD) break;
    }
    sweep();
    overlay_cleanup();
    unsigned char b;
    if (read(failed[0], &b, 1) == 1) _exit(125); /* the mount helper failed: bwrap never ran the command */
    exit_like(status);
  }
}


static int probe(void) {
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1UL /* LANDLOCK_CREATE_RULESET_VERSION */);
  int seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  /* Can --pin and --stage work here: a user namespace of our own in which we may mount (an
     AppArmor userns restriction lets the unshare succeed but denies the mount), and the new mount
     API? Tried in a child, since a namespace once entered cannot be left. */
  int can_pin = 0;
  pid_t c = fork();
  if (c == 0) {
    /* Clone a bind of a file by its path, as a pin does: this binary ("/" has locked children,
       and /proc/self/exe names a mount of the namespace left behind). */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) self[n] = 0;
    int ok = n > 0 && enter_pin_namespace() == 0 && syscall(SYS_open_tree, AT_FDCWD, self, OPEN_TREE_CLONE | O_CLOEXEC) >= 0;
    /* And the staging mounts (--stage, --stage-dev): a tmpfs, and a devpts instance in it (on
       /tmp, in this throwaway namespace only). */
    ok = ok && mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=16k") == 0 && mkdir("/tmp/pts", 0755) == 0 &&
         mount("devpts", "/tmp/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=620") == 0;
    if (!ok) _exit(1);
    /* And --netns: a network namespace of that user namespace, with loopback up (die() exits 125). */
    if (unshare(CLONE_NEWNET) < 0) _exit(2);
    loopback_up();
    _exit(0);
  }
  int st, netns = 0;
  if (c > 0 && waitpid(c, &st, 0) == c && WIFEXITED(st)) {
    can_pin = WEXITSTATUS(st) != 1;
    netns = WEXITSTATUS(st) == 0;
  }
  printf("{\"landlock\":%ld,\"seccomp\":%d,\"pins\":%d,\"netns\":%d}\n", abi < 0 ? 0L : abi, seccomp, can_pin, netns);
  return 0;
}


int main(int argc, char **argv) {
  if (argc == 2 && strcmp(argv[1], "--probe") == 0) return probe();
  if (argc == 2 && strcmp(argv[1], "--serve") == 0) return spawn_server();
  return launcher_main(argc, argv);
}

/* One run (or --sweep-now): what main() does for every other argument list; also the spawn
   server's forked child, which calls it instead of exec'ing this binary again. */
int launcher_main(int argc, char **argv) {
  int i = 1;
  const char *limits[16];
  int nlimits = 0, lifeline = -1, sweep_now = 0, awaiting = 0, values, unix_blocked = 0;
  holds = calloc((size_t)argc, sizeof *holds);
  hold_paths = calloc((size_t)argc, sizeof *hold_paths);
  sweeps = calloc((size_t)argc, sizeof *sweeps);
  if (!holds || !hold_paths || !sweeps) die("calloc");
  pins_init(argc);
  nested_init(argc);
  stage_init(argc);
  for (; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) { i++; break; }
    if ((strcmp(argv[i], "--bridge") == 0 || strcmp(argv[i], "--udp-bridge") == 0) && i + 2 < argc &&
        parse_count(argv[i + 1], 65535) > 0 && add_bridge(argv[i][2] == 'u', (int)parse_count(argv[i + 1], 65535), argv[i + 2]) == 0) {
      i += 2;
    } else if (strcmp(argv[i], "--block-unix") == 0) {
      unix_blocked = 1;
    } else if (strcmp(argv[i], "--netns") == 0) {
      own_net = 1;
    } else if (strcmp(argv[i], "--lifeline") == 0 && i + 1 < argc && parse_count(argv[i + 1], 1023) >= 3) {
      lifeline = (int)parse_count(argv[++i], 1023);
    } else if (strcmp(argv[i], "--hold") == 0 && i + 1 < argc) {
      hold(argv[++i]);
    } else if (strcmp(argv[i], "--sweep") == 0 && i + 2 < argc && nholds > 0 &&
               (strcmp(argv[i + 1], "f") == 0 || strcmp(argv[i + 1], "d") == 0)) {
      sweeps[nsweeps].hold = nholds - 1;
      sweeps[nsweeps].type = argv[i + 1][0];
      sweeps[nsweeps++].path = argv[i + 2];
      i += 2;
    } else if (strcmp(argv[i], "--await") == 0) {
      awaiting = 1;
    } else if (strcmp(argv[i], "--sweep-now") == 0) {
      sweep_now = 1;
    } else if (strcmp(argv[i], "--sweep-wait") == 0 && i + 1 < argc && parse_count(argv[i + 1], 3600000) >= 0) {
      sweep_wait_ms = parse_count(argv[++i], 3600000);
    } else if (strcmp(argv[i], "--pin-via-bwrap") == 0) {
      pin_via_bwrap = 1;
    } else if (strcmp(argv[i], "--pin-empty") == 0 && i + 2 < argc) {
      set_pin_empty(argv[i + 1], argv[i + 2]);
      i += 2;
    } else if (strcmp(argv[i], "--pin-overlay") == 0 && i + 2 < argc && add_pin_overlay(argv[i + 1], argv[i + 2]) == 0) {
      i += 2;
    } else if (strcmp(argv[i], "--pin-overlay-ro") == 0 && i + 1 < argc && add_pin_overlay_ro(argv[i + 1]) == 0) {
      i += 1;
    } else if (strcmp(argv[i], "--pin-socket") == 0 && i + 1 < argc && add_pin_socket(argv[i + 1]) == 0) {
      i += 1;
    } else if (strcmp(argv[i], "--pin") == 0 && i + 2 < argc && strlen(argv[i + 1]) == 1 && add_pin(argv[i + 1][0], argv[i + 2]) == 0) {
      i += 2;
    } else if (strcmp(argv[i], "--nested-git") == 0 && i + 1 < argc) {
      add_nested_root(argv[++i]);
    } else if (strcmp(argv[i], "--nested-skip") == 0 && i + 1 < argc) {
      add_nested_skip(argv[++i]);
    } else if ((values = stage_option_values(argv[i])) > 0 && i + values < argc &&
               take_stage_option(argv[i], (const char *const *)argv + i + 1) == 0) {
      i += values;
    } else if (strcmp(argv[i], "--close-from") == 0 && i + 1 < argc && parse_count(argv[i + 1], 1 << 20) >= 3) {
      close_from((int)parse_count(argv[++i], 1 << 20));
    } else if (strcmp(argv[i], "--cgroup") == 0 && i + 1 < argc) {
      join_cgroup(argv[++i]);
    } else if (strcmp(argv[i], "--rlimit") == 0 && i + 1 < argc && nlimits < 16) {
      limits[nlimits++] = argv[++i];
    } else {
      fprintf(stderr, "trust-sandbox-launcher: bad argument %s\n", argv[i]);
      return 125;
    }
  }
  if (sweep_now) {
    /* No run: remove the placeholders named with --sweep where no run holds their root. */
    sweep();
    return 0;
  }
  if ((i >= argc) != awaiting) {
    fprintf(stderr, awaiting ? "trust-sandbox-launcher: --await takes its command from the spawn server, not after --\n"
                             : "trust-sandbox-launcher: no command after --\n");
    return 125;
  }
  if (await_fd >= 0 && lifeline < 0) {
    fprintf(stderr, "trust-sandbox-launcher: a prepared run needs --lifeline (its bwrap child passes the command channel on)\n");
    return 125;
  }
  if ((nholds > 0 || pin_count() > 0 || nested_root_count() > 0 || own_net || staging()) && lifeline < 0) {
    fprintf(stderr, "trust-sandbox-launcher: --hold, --pin, --nested-git, --netns and --stage need --lifeline (they act on the bwrap child)\n");
    return 125;
  }
  /* Inside the sandbox, in its own network namespace, before the command starts. */
  if (!own_net) start_bridges(0);
  /* Limits last, so the relay is not bound by the command's file or process limits. */
  for (int k = 0; k < nlimits; k++) apply_limit(limits[k]);
  if (unix_blocked) block_unix();
  if (lifeline >= 0) supervise(lifeline, argv + i);
  if (awaiting) await_command();
  default_signals();
  execvp(argv[i], argv + i);
  fprintf(stderr, "trust-sandbox-launcher: cannot execute %s: %s\n", argv[i], strerror(errno));
  return 127;
}
