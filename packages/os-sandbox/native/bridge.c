/*
 * The egress bridges (see launcher.c, 1, 1b and 9): a loopback TCP listener and a UDP socket in
 * the run's network namespace, relayed to the run's egress-proxy unix socket. Relays only move
 * bytes; the proxy judges every destination.
 */
#include "launcher.h"
#include <linux/capability.h>
#include <stddef.h>

#define MAX_BRIDGES 4

/* Started once their network namespace exists: inside the sandbox, or by the bwrap child. */
static struct bridge { int udp; int port; const char *path; } bridges[MAX_BRIDGES];
static int nbridges;

int add_bridge(int udp, int port, const char *path) {
  if (nbridges == MAX_BRIDGES) return -1;
  bridges[nbridges].udp = udp;
  bridges[nbridges].port = port;
  bridges[nbridges++].path = path;
  return 0;
}

/*
 * The TCP relay: one process, one poll loop, for every connection of the run (a process per
 * connection would let a run fan out host processes outside its PID namespace and limits). At
 * most RELAY_MAX_CONNS connections at once; one more is answered with a 503 naming the limit and
 * closed. Each direction has one buffer: a side is read only once what was read from it has been
 * written on, so a slow reader holds back its writer (no unbounded buffering). End of input on a
 * side is passed on as a shutdown of the other side's writing half.
 */
#define RELAY_MAX_CONNS 256
#define RELAY_BUF 16384

struct relay_conn {
  int fd[2];              /* 0: the sandbox's TCP connection, 1: the proxy's unix socket */
  size_t len[2], off[2];  /* buf[i]: read from fd[i], to be written to fd[1 - i] */
  int eof[2], shut[2];
  unsigned char buf[2][RELAY_BUF];
};

static const char RELAY_FULL[] =
    "HTTP/1.1 503 Service Unavailable\r\nx-trust-deny: SANDBOX_RELAY_LIMIT\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n"
    "this run already has 256 connections open through its egress bridge (the limit)\n";
static const char RELAY_NO_PROXY[] =
    "HTTP/1.1 503 Service Unavailable\r\nx-trust-deny: SANDBOX_RELAY_PROXY\r\ncontent-type: text/plain\r\nconnection: close\r\n\r\n"
    "the run's egress proxy is not reachable\n";

static void refuse_conn(int c, const char *why, size_t len) {
  ssize_t ignored = send(c, why, len, MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)ignored;
  close(c);
}

/* One step of direction i (fd[i] -> fd[1 - i]): read if its buffer is empty, write what it holds. */
static int relay_step(struct relay_conn *k, int i, short rev_in, short rev_out) {
  if (!k->eof[i] && k->len[i] == 0 && (rev_in & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t n = recv(k->fd[i], k->buf[i], RELAY_BUF, MSG_DONTWAIT);
    if (n > 0) {
      k->len[i] = (size_t)n;
      k->off[i] = 0;
      rev_out |= POLLOUT; /* try at once: the other side is usually writable */
    } else if (n == 0) {
      k->eof[i] = 1;
    } else if (errno != EAGAIN && errno != EINTR) {
      return -1;
    }
  }
  if (k->len[i] > k->off[i] && (rev_out & (POLLOUT | POLLHUP | POLLERR))) {
    ssize_t w = send(k->fd[1 - i], k->buf[i] + k->off[i], k->len[i] - k->off[i], MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN && errno != EINTR) return -1;
    if (w > 0) k->off[i] += (size_t)w;
    if (k->off[i] == k->len[i]) k->len[i] = k->off[i] = 0;
  }
  if (k->eof[i] && k->len[i] == 0 && !k->shut[i]) {
    shutdown(k->fd[1 - i], SHUT_WR);
    k->shut[i] = 1;
  }
  return 0;
}

static void serve(int listener, const char *path) {
  struct relay_conn **conns = calloc(RELAY_MAX_CONNS, sizeof *conns);
  struct pollfd *p = calloc(1 + 2 * RELAY_MAX_CONNS, sizeof *p);
  if (!conns || !p) _exit(1);
  int n = 0;
  fcntl(listener, F_SETFL, fcntl(listener, F_GETFL) | O_NONBLOCK);
  struct sockaddr_un addr;
  memset(&addr, 0, sizeof addr);
  addr.sun_family = AF_UNIX;
  strncpy(addr.sun_path, path, sizeof addr.sun_path - 1);
  for (;;) {
    p[0].fd = listener;
    p[0].events = POLLIN;
    for (int c = 0; c < n; c++) {
      struct relay_conn *k = conns[c];
      for (int i = 0; i < 2; i++) {
        /* fd[i] is read while its buffer is empty, and written while the other's holds bytes. */
        short ev = (short)((!k->eof[i] && k->len[i] == 0 ? POLLIN : 0) | (k->len[1 - i] > 0 ? POLLOUT : 0));
        p[1 + 2 * c + i].fd = ev ? k->fd[i] : -1;
        p[1 + 2 * c + i].events = ev;
        p[1 + 2 * c + i].revents = 0;
      }
    }
    if (poll(p, (nfds_t)(1 + 2 * n), -1) < 0) {
      if (errno == EINTR) continue;
      _exit(1);
    }
    for (int c = 0; c < n; c++) {
      struct relay_conn *k = conns[c];
      short r0 = p[1 + 2 * c].revents, r1 = p[2 + 2 * c].revents;
      int bad = relay_step(k, 0, r0, r1) < 0 || relay_step(k, 1, r1, r0) < 0;
      if (bad || (k->shut[0] && k->shut[1])) {
        close(k->fd[0]);
        close(k->fd[1]);
        free(k);
        conns[c] = conns[--n];
        /* The last connection takes this place, with its poll results: served next in this turn. */
        p[1 + 2 * c] = p[1 + 2 * n];
        p[2 + 2 * c] = p[2 + 2 * n];
        c--;
      }
    }
    if (!(p[0].revents & POLLIN)) continue;
    for (;;) {
      int c = accept4(listener, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
      if (c < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        if (errno == EAGAIN) break;
        _exit(0);
      }
      if (n == RELAY_MAX_CONNS) {
        refuse_conn(c, RELAY_FULL, sizeof RELAY_FULL - 1);
        continue;
      }
      /* A unix socket connects at once or not at all (EAGAIN: the proxy's backlog is full). */
      int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
      struct relay_conn *k = u >= 0 ? malloc(sizeof *k) : NULL;
      if (!k || connect(u, (struct sockaddr *)&addr, sizeof addr) < 0) {
        if (u >= 0) close(u);
        free(k);
        refuse_conn(c, RELAY_NO_PROXY, sizeof RELAY_NO_PROXY - 1);
        continue;
      }
      memset(k, 0, offsetof(struct relay_conn, buf));
      k->fd[0] = c;
      k->fd[1] = u;
      conns[n++] = k;
    }
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
  prctl(PR_SET_NAME, "trust-relay", 0, 0, 0); /* tells it from the launcher's other processes, in /proc/<pid>/comm */
  keep_only(a, b);
  return 1;
}

/*
 * A relay on the host side runs as the host user, in the launcher's user namespace: a relay
 * subverted by what the sandbox sends could otherwise use those rights. It is confined to the
 * directory of the run's socket (a private directory holding nothing else): chroot there, drop
 * every capability so the chroot cannot be left, and never gain one again. Returns the socket's
 * path inside that root.
 */
static const char *confine(const char *socket_path) {
  const char *slash = strrchr(socket_path, '/');
  char dir[4096];
  size_t len = slash == socket_path ? 1 : (size_t)(slash - socket_path);
  if (!slash || len >= sizeof dir) _exit(1);
  memcpy(dir, socket_path, len);
  dir[len] = 0;
  if (chdir(dir) < 0 || chroot(".") < 0 || chdir("/") < 0) _exit(1);
  struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
  struct __user_cap_data_struct none[2];
  memset(none, 0, sizeof none);
  if (syscall(SYS_capset, &header, none) < 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) _exit(1);
  return slash;
}

void start_bridges(int tied) {
  for (int k = 0; k < nbridges; k++) {
    const struct bridge *b = &bridges[k];
    need_sun_path(b->path, b->udp ? "udp bridge socket path" : "bridge socket path");
    if (!b->udp) {
      int l = bind_loopback(SOCK_STREAM, b->port, "bind 127.0.0.1");
      if (listen(l, 128) < 0) die("listen");
      if (relay_child(tied, l, -1)) {
        serve(3, tied ? confine(b->path) : b->path);
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
        if (tied) confine(b->path);
        udp_serve(3, 4);
        _exit(0);
      }
      close(d);
      close(u);
    }
  }
}

/* The loopback interface of a fresh network namespace is down: bring it up. */
void loopback_up(void) {
  int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strcpy(ifr.ifr_name, "lo");
  if (s < 0 || ioctl(s, SIOCGIFFLAGS, &ifr) < 0) die("loopback");
  ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
  if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0) die("loopback up");
  close(s);
}
