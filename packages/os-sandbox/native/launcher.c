/*
 * trust-sandbox-launcher: runs INSIDE the bubblewrap sandbox, with no more authority than the
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
 *      --sweep-now (and no command) does only that, for placeholders kept between runs.
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
 *   9. --netns: with --lifeline, the bwrap child enters the same private user namespace as for
 *      --pin and makes the run's network namespace in it (loopback up), binds the --bridge and
 *      --udp-bridge sockets there and forks their relays, then execs bwrap, which is told to
 *      --share-net that namespace. The relays stay outside the sandbox: in the host's mount
 *      namespace (SOCKET is the host path; nothing is bound into the sandbox) with the host
 *      user's rights, moving bytes only; they die with bwrap (PR_SET_PDEATHSIG), which outlives
 *      every sandboxed process. This saves the sandbox two binds and an exec per run.
 *  10. --serve: the spawn server, one per sandbox (see spawn_server() below): the host process
 *      asks it for each run instead of forking itself, and it is every run's lifeline holder.
 * And one diagnostic mode: --probe prints {"landlock":ABI,"seccomp":0|1,"pins":0|1,"netns":0|1}
 * for probeSandbox().
 *
 * Usage: trust-sandbox-launcher --serve | --probe
 *        trust-sandbox-launcher --hold DIR [--sweep f|d PATH]... --sweep-now
 *        trust-sandbox-launcher [--close-from N] [--cgroup FILE]... [--lifeline FD [--hold DIR [--sweep f|d PATH]...]... [--pin-empty FILE DIR --pin f|d|s|F|D PATH...] [--netns]] [--bridge PORT SOCKET]... [--udp-bridge PORT SOCKET] [--rlimit NAME=VALUE]... -- CMD [ARGS...]
 * Exit codes: 127 command not found / exec failed, 125 launcher usage or setup error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/signalfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>

#define MAX_BRIDGES 4

/* Writable roots held with a shared lock for the run, and the placeholders to remove after it. */
/* Sized from argc in main(): each entry takes at least two arguments. */
static int *holds, nholds;
static struct sweep_entry { int hold; char type; const char *path; } *sweeps;
static int nsweeps;

static void die(const char *what) {
  fprintf(stderr, "trust-sandbox-launcher: %s: %s\n", what, strerror(errno));
  _exit(125);
}

static int relay(int a, int b) {
  char buf[65536];
  struct pollfd p[2] = {{a, POLLIN, 0}, {b, POLLIN, 0}};
  int open_a = 1, open_b = 1;
  while (open_a || open_b) {
    p[0].fd = open_a ? a : -1;
    p[1].fd = open_b ? b : -1;
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    for (int i = 0; i < 2; i++) {
      if (!(p[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      int from = i == 0 ? a : b, to = i == 0 ? b : a;
      ssize_t n = read(from, buf, sizeof buf);
      if (n <= 0) {
        shutdown(to, SHUT_WR);
        if (i == 0) open_a = 0; else open_b = 0;
        continue;
      }
      for (ssize_t off = 0; off < n;) {
        ssize_t w = write(to, buf + off, (size_t)(n - off));
        if (w < 0) {
          if (errno == EINTR) continue;
          return -1;
        }
        off += w;
      }
    }
  }
  return 0;
}

static void serve(int listener, const char *path) {
  signal(SIGCHLD, SIG_IGN); /* relay children are reaped by the kernel */
  for (;;) {
    int c = accept(listener, NULL, NULL);
    if (c < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      _exit(0);
    }
    pid_t pid = fork();
    if (pid == 0) {
      close(listener);
      int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
      struct sockaddr_un addr;
      memset(&addr, 0, sizeof addr);
      addr.sun_family = AF_UNIX;
      strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
      if (u < 0 || connect(u, (struct sockaddr *)&addr, sizeof addr) < 0) _exit(1);
      relay(c, u);
      _exit(0);
    }
    close(c);
  }
}

static void need_sun_path(const char *path, const char *what) {
  if (strlen(path) >= sizeof(((struct sockaddr_un *)0)->sun_path)) {
    errno = ENAMETOOLONG;
    die(what);
  }
}

/* A socket of `type` bound to 127.0.0.1:port in the sandbox's own network namespace. */
static int bind_loopback(int type, int port, const char *what) {
  int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);
  if (fd < 0) die(what);
  if (type == SOCK_STREAM) {
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  }
  struct sockaddr_in sin;
  memset(&sin, 0, sizeof sin);
  sin.sin_family = AF_INET;
  sin.sin_port = htons((unsigned short)port);
  sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&sin, sizeof sin) < 0) die(what);
  return fd;
}

/*
 * Double fork. Returns 1 in the grandchild, orphaned in its own session (the command never sees
 * it as a child, so a wait() loop in the command cannot hang on it; the sandbox's init reaps it),
 * and 0 in the caller once the middle child is gone.
 */
static int orphan_child(void) {
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    pid_t g = fork();
    if (g < 0) _exit(1);
    if (g > 0) _exit(0);
    setsid();
    return 1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return 0;
}

static int write_all(int fd, const unsigned char *p, size_t n) {
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

static int unix_connect(const char *path) {
  int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  if (u < 0 || connect(u, (struct sockaddr *)&addr, sizeof addr) < 0) return -1;
  return u;
}

/* Datagrams in on `d` -> frames out on `u`; frames in on `u` -> datagrams out on `d`. */
static void udp_serve(int d, int u) {
  static unsigned char in[4 + 65536], frames[2 * (4 + 65536)];
  size_t have = 0;
  struct pollfd p[2] = {{d, POLLIN, 0}, {u, POLLIN, 0}};
  for (;;) {
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      _exit(1);
    }
    if (p[0].revents & POLLIN) {
      struct sockaddr_in from;
      socklen_t len = sizeof from;
      ssize_t n = recvfrom(d, in + 4, 65536, 0, (struct sockaddr *)&from, &len);
      if (n >= 0 && n <= 65533 && from.sin_family == AF_INET) {
        unsigned port = ntohs(from.sin_port);
        in[0] = (unsigned char)((n + 2) >> 8);
        in[1] = (unsigned char)((n + 2) & 0xff);
        in[2] = (unsigned char)(port >> 8);
        in[3] = (unsigned char)(port & 0xff);
        if (write_all(u, in, (size_t)n + 4) < 0) _exit(0);
      }
    }
    if (p[1].revents & (POLLIN | POLLHUP | POLLERR)) {
      ssize_t n = read(u, frames + have, sizeof frames - have);
      if (n <= 0) _exit(0); /* the proxy went away: so does UDP */
      have += (size_t)n;
      size_t off = 0;
      while (have - off >= 4) {
        size_t len = ((size_t)frames[off] << 8) | frames[off + 1];
        if (len < 2) _exit(1);
        if (have - off < 2 + len) break;
        struct sockaddr_in to;
        memset(&to, 0, sizeof to);
        to.sin_family = AF_INET;
        to.sin_port = htons((unsigned short)(((unsigned)frames[off + 2] << 8) | frames[off + 3]));
        to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        sendto(d, frames + off + 4, len - 2, 0, (struct sockaddr *)&to, sizeof to);
        off += 2 + len;
      }
      memmove(frames, frames + off, have - off);
      have -= off;
    }
  }
}

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

static void join_cgroup(const char *file) {
  int fd = open(file, O_WRONLY | O_CLOEXEC);
  if (fd < 0) die(file);
  char buf[32];
  int n = snprintf(buf, sizeof buf, "%d\n", (int)getpid());
  if (write(fd, buf, (size_t)n) != n) die(file);
  close(fd);
}

static void close_from(int low) {
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
  if (syscall(SYS_close_range, (unsigned)low, ~0U, 0) == 0) return;
  DIR *d = opendir("/proc/self/fd");
  if (!d) die("/proc/self/fd");
  int own = dirfd(d), fds[1024], n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] != '.' && fd >= low && fd != own && n < 1024) fds[n++] = fd;
  }
  closedir(d);
  for (int k = 0; k < n; k++) close(fds[k]);
  if (n == 1024) close_from(low); /* more left: walk again */
}

/* The egress bridges (--bridge, --udp-bridge), started once their network namespace exists. */
static struct bridge { int udp; int port; const char *path; } bridges[MAX_BRIDGES];
static int nbridges;
static int own_net; /* --netns: the bwrap child makes the run's network namespace (see 9) */

/* In a relay child: /dev/null for stdio, a and b (if >= 0) as fds 3 and 4, nothing else. The
   command's pipes, the --args and seccomp descriptors and root locks stay with their owners. */
static void keep_only(int a, int b) {
  int ha = fcntl(a, F_DUPFD_CLOEXEC, 64), hb = b >= 0 ? fcntl(b, F_DUPFD_CLOEXEC, 64) : -1;
  int null = open("/dev/null", O_RDWR | O_CLOEXEC);
  if (ha < 0 || (b >= 0 && hb < 0) || null < 0) _exit(1);
  for (int fd = 0; fd <= 2; fd++) dup2(null, fd);
  dup2(ha, 3);
  if (hb >= 0) dup2(hb, 4);
  close_from(hb >= 0 ? 5 : 4);
}

/*
 * Forks a relay. Inside the sandbox it is orphaned (see orphan_child). On the host side (tied) it
 * is a plain child of the process that is about to become bwrap, and dies with it
 * (PR_SET_PDEATHSIG): bwrap exits only once the sandbox's last process has gone. Returns 1 in the
 * relay, which then owns only a (fd 3) and b (fd 4), and 0 in the caller.
 */
static int relay_child(int tied, int a, int b) {
  pid_t parent = getpid();
  if (!tied) {
    if (!orphan_child()) return 0;
  } else {
    pid_t pid = fork();
    if (pid < 0) die("fork");
    if (pid > 0) return 0;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent) _exit(0);
  }
  keep_only(a, b);
  return 1;
}

static void start_bridges(int tied) {
  for (int k = 0; k < nbridges; k++) {
    const struct bridge *b = &bridges[k];
    need_sun_path(b->path, b->udp ? "udp bridge socket path" : "bridge socket path");
    if (!b->udp) {
      int l = bind_loopback(SOCK_STREAM, b->port, "bind 127.0.0.1");
      if (listen(l, 128) < 0) die("listen");
      if (relay_child(tied, l, -1)) {
        serve(3, b->path);
        _exit(0);
      }
      close(l);
    } else {
      int d = bind_loopback(SOCK_DGRAM, b->port, "bind udp 127.0.0.1");
      int u = unix_connect(b->path);
      if (u < 0) die("udp bridge connect");
      const unsigned char hello = 0x00;
      if (write_all(u, &hello, 1) < 0) die("udp bridge hello");
      if (relay_child(tied, d, u)) {
        udp_serve(3, 4);
        _exit(0);
      }
      close(d);
      close(u);
    }
  }
}

/* The loopback interface of a fresh network namespace is down: bring it up. */
static void loopback_up(void) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strcpy(ifr.ifr_name, "lo");
  if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0) die("loopback");
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) die("loopback up");
  close(s);
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

static void hold(const char *dir) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  /* A root that is missing or not a directory has no placeholders; bwrap reports the grant. */
  if (fd < 0 && errno != ENOENT && errno != ENOTDIR) die(dir);
  while (fd >= 0 && flock(fd, LOCK_SH) < 0) if (errno != EINTR) die("flock");
  holds[nholds++] = fd;
}

/* Protected paths pinned read-only before bwrap starts (see --pin). */
static struct pin_entry { char kind; const char *path; } *pins;
static int npins;
static const char *pin_empty_file, *pin_empty_dir;
static int pin_via_bwrap; /* --pin-via-bwrap: take the fallback even where the namespace is available */

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
struct pin_mount_attr { unsigned long long attr_set, attr_clr, propagation, userns_fd; };
#define PIN_ATTR (0x1ULL /* RDONLY */ | 0x2ULL /* NOSUID */ | 0x4ULL /* NODEV */)

static void write_file(const char *path, const char *text) {
  int fd = open(path, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return; /* /proc/self/setgroups before Linux 3.19 */
    die(path);
  }
  if (write(fd, text, strlen(text)) != (ssize_t)strlen(text)) die(path);
  close(fd);
}

/* A private user and mount namespace in which this process may mount; -1 if not available here. */
static int enter_pin_namespace(void) {
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
  struct pin_mount_attr attr = {PIN_ATTR, 0, 0, 0};
  if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr, sizeof attr) < 0) die("mount_setattr");
  if (syscall(SYS_move_mount, tree, "", fd, "", MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) < 0) die(path);
  close(tree);
  close(fd);
}

/* argv (bwrap ... -- CMD) with every pin as a bwrap --ro-bind option before the "--". */
static char **pins_as_bwrap_options(char **argv) {
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

static int held(int fd) {
  for (int h = 0; h < nholds; h++) if (holds[h] == fd) return 1;
  return 0;
}

/* Removes this run's placeholders under every root no other run holds (see --hold). */
static void sweep(void) {
  for (int h = 0; h < nholds; h++) {
    if (holds[h] < 0 || flock(holds[h], LOCK_EX | LOCK_NB) < 0) continue;
    for (int k = 0; k < nsweeps; k++) {
      struct stat st;
      if (sweeps[k].hold != h || lstat(sweeps[k].path, &st) < 0) continue;
      if (sweeps[k].type == 'f' && S_ISREG(st.st_mode) && st.st_size == 0) unlink(sweeps[k].path);
      else if (sweeps[k].type == 'd' && S_ISDIR(st.st_mode)) rmdir(sweeps[k].path); /* fails unless empty */
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

/* Forks argv (bubblewrap) and supervises it; never returns. */
static void supervise(int lifeline, char **argv) {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0) die("PR_SET_CHILD_SUBREAPER");
  sigset_t chld, old;
  sigemptyset(&chld);
  sigaddset(&chld, SIGCHLD);
  sigaddset(&chld, SIGTERM); /* the host's kill(): end the run, then sweep and exit as it did */
  if (sigprocmask(SIG_BLOCK, &chld, &old) < 0) die("sigprocmask");
  pid_t child = fork();
  if (child < 0) die("fork");
  if (child == 0) {
    sigprocmask(SIG_SETMASK, &old, NULL);
    close(lifeline);
    int ns = own_net || (npins > 0 && !pin_via_bwrap) ? enter_pin_namespace() : -1;
    if (own_net) {
      /* The run's network namespace, owned by our user namespace: bwrap shares it (--share-net)
         and the command, with no capabilities there, cannot reconfigure it. */
      if (ns < 0 || unshare(CLONE_NEWNET) < 0) die("network namespace");
      loopback_up();
      start_bridges(1);
    }
    if (npins > 0) {
      if (!pin_via_bwrap && ns == 0) {
        for (int p = 0; p < npins; p++) pin(pins[p].kind, pins[p].path);
      } else {
        argv = pins_as_bwrap_options(argv);
      }
    }
    execv(argv[0], argv);
    fprintf(stderr, "trust-sandbox-launcher: cannot execute %s: %s\n", argv[0], strerror(errno));
    _exit(127);
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
    /* Children reparented here after bwrap ended keep us until they are gone too. */
    if (done && kill_children() == 0 && waitpid(-1, NULL, WNOHANG) < 0 && errno == ECHILD) {
      sweep();
      exit_like(status);
    }
  }
}

/*
 * --serve: the spawn server (10). One per sandbox, started once by the host process, which then
 * starts each run by writing a request instead of forking itself (a fork of a large Node process
 * costs about a millisecond more, and blocks its event loop). Requests on fd 0, little-endian:
 *   'R' u32 id, u32 length, then that many bytes: u32 argc, argc NUL-terminated launcher
 *       arguments, u32 n + n bytes for fd 3
 *       (bwrap's --args), u32 n + n bytes for fd 4 (the seccomp program), u8 flags (1 stdin,
 *       2 stdout, 4 stderr: a pipe each, else /dev/null);
 *   'A' u32 id: the host has opened the run's pipes (through /proc/<this pid>/fd), so this
 *       process closes its ends (and stdin can reach EOF);
 *   'K' u32 id u8 signal: SIGTERM to the run's supervising launcher, or SIGKILL to its process
 *       group; never to a pid already reaped (and so perhaps reused).
 * Replies on fd 1, one line each: "S id pid in out err" (the pipe ends' descriptor numbers here,
 * -1 for none), "X id code signal" when the run's launcher has exited, "F id errno" when it could
 * not be started. Each run is the launcher itself, exec'd through /proc/self/exe (the very binary
 * the host verified) in a new session, with its fd 5 a lifeline: the read end of a pipe whose
 * write end only this server holds. When the host goes (fd 0 closes, even on SIGKILL) the server
 * exits, every lifeline closes, and every run ends as in (6).
 */
#define SERVE_MAX_RUNS 4096
#define SERVE_MAX_REQUEST (64u << 20)
static struct serve_run { unsigned id; pid_t pid; int fds[3]; int live; } *serve_runs;

static unsigned le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24; }

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

/* Starts one run from a complete request body; returns 0, or an errno for "F". */
static int serve_start(unsigned id, const unsigned char *p, size_t n, int life, const sigset_t *old) {
  struct serve_run *slot = NULL;
  for (int k = 0; k < SERVE_MAX_RUNS && !slot; k++) if (!serve_runs[k].live) slot = &serve_runs[k];
  if (!slot) return EAGAIN;
  if (n < 4) return EINVAL;
  unsigned argc = le32(p);
  size_t off = 4;
  char **argv = calloc((size_t)argc + 2, sizeof *argv);
  if (!argv) return ENOMEM;
  argv[0] = "trust-sandbox-launcher";
  for (unsigned k = 0; k < argc; k++) {
    const unsigned char *end = off < n ? memchr(p + off, 0, n - off) : NULL;
    if (!end) { free(argv); return EINVAL; }
    argv[k + 1] = (char *)(p + off);
    off = (size_t)(end - p) + 1;
  }
  int blobs[2] = {-1, -1};
  for (int b = 0; b < 2; b++) {
    if (off + 4 > n || le32(p + off) > n - off - 4) { free(argv); return EINVAL; }
    unsigned len = le32(p + off);
    blobs[b] = len > 0 ? memfd_with(b ? "seccomp" : "args", p + off + 4, len) : open("/dev/null", O_RDONLY | O_CLOEXEC);
    off += 4 + len;
  }
  unsigned flags = off < n ? p[off] : 0;
  int ends[3][2], err = 0;
  for (int k = 0; k < 3; k++) {
    ends[k][0] = ends[k][1] = -1;
    if (flags & (1u << k)) {
      if (pipe2(ends[k], O_CLOEXEC) < 0) err = errno;
    } else {
      ends[k][k == 0 ? 0 : 1] = open("/dev/null", O_RDWR | O_CLOEXEC);
    }
  }
  pid_t pid = err || blobs[0] < 0 || blobs[1] < 0 ? -1 : fork();
  if (pid == 0) {
    sigprocmask(SIG_SETMASK, old, NULL);
    setsid();
    /* The child's ends: stdin reads, stdout and stderr write. Moved high first, so that no dup2
       below overwrites a descriptor still to be moved. */
    int want[6] = {ends[0][0], ends[1][1], ends[2][1], blobs[0], blobs[1], life};
    for (int k = 0; k < 6; k++) want[k] = fcntl(want[k], F_DUPFD_CLOEXEC, 64);
    for (int k = 0; k < 6; k++) if (want[k] < 0 || dup2(want[k], k) < 0) _exit(125);
    close_from(6);
    char *envp[] = {"PATH=/usr/bin:/bin", NULL};
    execve("/proc/self/exe", argv, envp);
    _exit(127);
  }
  if (pid < 0 && !err) err = errno ? errno : EINVAL;
  free(argv);
  close(blobs[0]);
  close(blobs[1]);
  /* Keep the host's ends (stdin's write end, the others' read ends) until the host acknowledges. */
  for (int k = 0; k < 3; k++) {
    int child_end = ends[k][k == 0 ? 0 : 1], host_end = ends[k][k == 0 ? 1 : 0];
    if (child_end >= 0) close(child_end);
    slot->fds[k] = host_end;
    if (err && host_end >= 0) { close(host_end); slot->fds[k] = -1; }
  }
  if (err) return err;
  slot->id = id;
  slot->pid = pid;
  slot->live = 1;
  reply("S %u %d %d %d %d\n", id, (int)pid, slot->fds[0], slot->fds[1], slot->fds[2]);
  return 0;
}

static int spawn_server(void) {
  serve_runs = calloc(SERVE_MAX_RUNS, sizeof *serve_runs);
  if (!serve_runs) die("calloc");
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
  struct pollfd p[2] = {{0, POLLIN, 0}, {sfd, POLLIN, 0}};
  for (;;) {
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      die("poll");
    }
    if (p[1].revents & POLLIN) {
      struct signalfd_siginfo si;
      while (read(sfd, &si, sizeof si) == (ssize_t)sizeof si) {}
      int st;
      pid_t w;
      while ((w = waitpid(-1, &st, WNOHANG)) > 0) {
        for (int k = 0; k < SERVE_MAX_RUNS; k++) {
          struct serve_run *r = &serve_runs[k];
          if (!r->live || r->pid != w) continue;
          close_host_ends(r);
          r->live = 0;
          reply("X %u %d %d\n", r->id, WIFEXITED(st) ? WEXITSTATUS(st) : -1, WIFSIGNALED(st) ? WTERMSIG(st) : 0);
        }
      }
    }
    if (!(p[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
    if (have == cap) {
      if (cap >= SERVE_MAX_REQUEST) _exit(125); /* a request larger than any plan: not our host */
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
    while (have - off >= 5) {
      unsigned char kind = buf[off];
      unsigned id = le32(buf + off + 1);
      if (kind == 'A' || kind == 'K') {
        size_t len = kind == 'A' ? 5 : 6;
        if (have - off < len) break;
        struct serve_run *r = find_run(id);
        if (r && kind == 'A') close_host_ends(r);
        if (r && kind == 'K') {
          if (buf[off + 5] == SIGKILL) kill(-r->pid, SIGKILL);
          kill(r->pid, buf[off + 5] == SIGKILL ? SIGKILL : SIGTERM);
        }
        off += len;
      } else if (kind == 'R') {
        if (have - off < 9) break;
        unsigned len = le32(buf + off + 5);
        if (len > SERVE_MAX_REQUEST) _exit(125);
        if (have - off < 9 + (size_t)len) break;
        int e = serve_start(id, buf + off + 9, len, life[0], &old);
        if (e) reply("F %u %d\n", id, e);
        off += 9 + len;
      } else {
        _exit(125); /* not our protocol */
      }
    }
    memmove(buf, buf + off, have - off);
    have -= off;
  }
}

static int probe(void) {
#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
  long abi = syscall(SYS_landlock_create_ruleset, NULL, 0, 1UL /* LANDLOCK_CREATE_RULESET_VERSION */);
  int seccomp = prctl(PR_GET_SECCOMP, 0, 0, 0, 0) >= 0;
  /* Can --pin work here: a user namespace of our own in which we may mount (an AppArmor userns
     restriction lets the unshare succeed but denies the mount), and the new mount API? Tried in a
     child, since a namespace once entered cannot be left. */
  int can_pin = 0;
  pid_t c = fork();
  if (c == 0) {
    /* Clone a bind of a file by its path, as a pin does: this binary ("/" has locked children,
       and /proc/self/exe names a mount of the namespace left behind). */
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) self[n] = 0;
    int ok = n > 0 && enter_pin_namespace() == 0 && syscall(SYS_open_tree, AT_FDCWD, self, OPEN_TREE_CLONE | O_CLOEXEC) >= 0;
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
  int i = 1;
  if (argc == 2 && strcmp(argv[1], "--probe") == 0) return probe();
  if (argc == 2 && strcmp(argv[1], "--serve") == 0) return spawn_server();
  const char *limits[16];
  int nlimits = 0, lifeline = -1, sweep_now = 0;
  holds = calloc((size_t)argc, sizeof *holds);
  sweeps = calloc((size_t)argc, sizeof *sweeps);
  pins = calloc((size_t)argc, sizeof *pins);
  if (!holds || !sweeps || !pins) die("calloc");
  for (; i < argc; i++) {
    if (strcmp(argv[i], "--") == 0) { i++; break; }
    if ((strcmp(argv[i], "--bridge") == 0 || strcmp(argv[i], "--udp-bridge") == 0) && i + 2 < argc && nbridges < MAX_BRIDGES) {
      bridges[nbridges].udp = argv[i][2] == 'u';
      bridges[nbridges].port = atoi(argv[i + 1]);
      bridges[nbridges++].path = argv[i + 2];
      i += 2;
    } else if (strcmp(argv[i], "--netns") == 0) {
      own_net = 1;
    } else if (strcmp(argv[i], "--lifeline") == 0 && i + 1 < argc) {
      lifeline = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--hold") == 0 && i + 1 < argc) {
      hold(argv[++i]);
    } else if (strcmp(argv[i], "--sweep") == 0 && i + 2 < argc && nholds > 0 &&
               (strcmp(argv[i + 1], "f") == 0 || strcmp(argv[i + 1], "d") == 0)) {
      sweeps[nsweeps].hold = nholds - 1;
      sweeps[nsweeps].type = argv[i + 1][0];
      sweeps[nsweeps++].path = argv[i + 2];
      i += 2;
    } else if (strcmp(argv[i], "--sweep-now") == 0) {
      sweep_now = 1;
    } else if (strcmp(argv[i], "--pin-via-bwrap") == 0) {
      pin_via_bwrap = 1;
    } else if (strcmp(argv[i], "--pin-empty") == 0 && i + 2 < argc) {
      pin_empty_file = argv[i + 1];
      pin_empty_dir = argv[i + 2];
      i += 2;
    } else if (strcmp(argv[i], "--pin") == 0 && i + 2 < argc && pin_empty_file &&
               strlen(argv[i + 1]) == 1 && strchr("fdsFD", argv[i + 1][0])) {
      pins[npins].kind = argv[i + 1][0];
      pins[npins++].path = argv[i + 2];
      i += 2;
    } else if (strcmp(argv[i], "--close-from") == 0 && i + 1 < argc) {
      close_from(atoi(argv[++i]));
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
  if (i >= argc) {
    fprintf(stderr, "trust-sandbox-launcher: no command after --\n");
    return 125;
  }
  if ((nholds > 0 || npins > 0 || own_net) && lifeline < 0) {
    fprintf(stderr, "trust-sandbox-launcher: --hold, --pin and --netns need --lifeline (they act on the bwrap child)\n");
    return 125;
  }
  /* Inside the sandbox, in its own network namespace, before the command starts. */
  if (!own_net) start_bridges(0);
  /* Limits last, so the relay is not bound by the command's file or process limits. */
  for (int k = 0; k < nlimits; k++) apply_limit(limits[k]);
  if (lifeline >= 0) supervise(lifeline, argv + i);
  execvp(argv[i], argv + i);
  fprintf(stderr, "trust-sandbox-launcher: cannot execute %s: %s\n", argv[i], strerror(errno));
  return 127;
}
