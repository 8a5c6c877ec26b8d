/* The launcher's translation units share these (see launcher.c for what the launcher does). */
#ifndef TRUST_LAUNCHER_H
#define TRUST_LAUNCHER_H
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
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <arpa/inet.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/inotify.h>
#include <sys/uio.h>

#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef SYS_open_tree
#define SYS_open_tree 428
#define SYS_move_mount 429
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
struct pin_mount_attr { unsigned long long attr_set, attr_clr, propagation, userns_fd; };
/* What every read-only bind made before bwrap carries (bwrap would otherwise remount it so). */
#define PIN_ATTR (0x1ULL /* RDONLY */ | 0x2ULL /* NOSUID */ | 0x4ULL /* NODEV */)

/* util.c */
void default_signals(void);
void die(const char *what) __attribute__((noreturn));
/* Where die() also writes a byte before it exits, when >= 0 (see launcher.c, the mount helper). */
extern int die_notify_fd;
int write_all(int fd, const unsigned char *p, size_t n);
long parse_count(const char *s, long max);
void close_from(int low);
void write_file(const char *path, const char *text);
void graft(int tree, unsigned long long set, unsigned long long clear, int to_fd, const char *path);

/* bridge.c: the egress bridges (--bridge, --udp-bridge). */
int add_bridge(int udp, int port, const char *path);
void start_bridges(int tied);
void loopback_up(void);

/* pins.c: protected paths pinned read-only before bwrap starts (--pin-empty, --pin). */
void pins_init(int capacity);
void set_pin_empty(const char *file, const char *dir);
int add_pin(char kind, const char *path);
int pin_count(void);
int enter_pin_namespace(void);
void pin_all(void);
char **pins_as_bwrap_options(char **argv);
int add_pin_overlay(const char *root, const char *work_base);
int add_pin_overlay_ro(const char *root);
int add_pin_socket(const char *path);
void overlay_cleanup(void);
int open_nofollow(const char *path, int flags);

/* nested.c: the .git entries of nested repositories, pinned with the others (--nested-git, --nested-skip). */
void nested_init(int capacity);
void add_nested_root(const char *path);
void add_nested_skip(const char *path);
int nested_root_count(void);
void nested_scan(void);
char *nested_list(int argc, char **argv, size_t *len, int *watched);

/* await.c: a run started ahead of its command (the spawn server's 'P'), which the command reaches
   later over a pipe ('G'). */
#define AWAIT_FD 9         /* where the spawn server's forked run finds the pipe's read end, and
                              at AWAIT_FD + 1 this binary (its /proc/self/exe, opened) */
#define AWAIT_SANDBOX_FD 5 /* where bwrap, and the launcher in the sandbox (--await), find it */
#define AWAIT_SANDBOX_EXE_FD 6 /* and this binary, which bwrap runs as /proc/self/fd/6 */
#define AWAIT_MAX ((1u << 20) - 4) /* the largest command message (argv, environment, directory) */
extern int await_fd;       /* AWAIT_FD in such a run, else -1 */
int await_command(void) __attribute__((noreturn));

/* stage.c: the staged root (--stage-root, --root-bind, --root-symlink, --root-tmpfs), /etc
   (--stage, --stage-file) and /dev (--stage-dev). */
void stage_init(int capacity);
/* How many values `arg` takes if it is one of those options, else 0; takes one with its values
   (0, or -1 if they are not acceptable). */
int stage_option_values(const char *arg);
int take_stage_option(const char *opt, const char *const *values);
int staging(void);
void stage_all(void);

/* warm.c: namespaces made ahead of a run by the spawn server, joined by its bwrap child. */
#define WARM_FD 6 /* where a run finds the set: user, mnt and net namespace at 6, 7 and 8 */
extern int warm_ns_fd;
#define WARM_DELAY_MS 2
void warm_refill(void);
void warm_later(int ms);
int warm_due(void);
int warm_fd(void);
void warm_reaped(pid_t pid);
void warm_collect(void);
void warm_invalidate(void);
int warm_take(int argc, char **argv, int fds[3], int *staged);
int warm_watch_fd(void);
int warm_staged_changed(void);
int warm_staged_event(void);
void warm_off(void);
extern int warm_staged;
int join_warm_namespace(int net);
/* Closes a descriptor whose close waits (a namespace's teardown, an inotify instance's marks)
   in a helper the server starts, without waiting. */
void ns_discarder_start(void);
void ns_discard(int fd);

/* server.c: the spawn server (--serve). */
int spawn_server(void);

/* launcher.c: one run, as main() does it for its arguments. */
int launcher_main(int argc, char **argv);

#endif
