/*
 * trust SQL interrupt: a tiny SQLite extension that lets the host stop agent SQL running in a
 * worker thread of the same process.
 *
 * Entry point `sqlite3_trustagent_init` is loaded into an AGENT connection (on the worker thread
 * that owns it). It registers the connection in a process-wide, mutex-guarded table under the
 * calling thread's OS thread id, and installs a statement-start trace hook. It registers no SQL
 * function: agent SQL sees nothing new.
 *
 * Entry point `sqlite3_trusthost_init` is loaded into a HOST-only connection (an in-memory
 * database on the main thread, never given to agent SQL). It registers two functions:
 *   trust_interrupt(tid): marks every agent connection of thread `tid` cancelled and calls
 *     sqlite3_interrupt() on it (safe from another thread, per SQLite's documentation); returns
 *     how many connections it reached.
 *   trust_arm(tid): clears the cancelled mark before the host sends that thread a new request.
 *
 * sqlite3_interrupt() alone misses a cancel that lands between two statements (SQLite clears the
 * flag when a statement starts with no other statement running, e.g. the COMMIT after a write).
 * The trace hook closes that gap: a statement that starts on a cancelled connection interrupts
 * itself, except ROLLBACK, which must run so the write lock is released.
 *
 * Entry point `sqlite3_trustlane_init` is loaded into the host's FAST-LANE connection for one
 * agent (read-only, on the main thread; see src/sql/sql-fast-lane.ts). It registers no SQL function.
 * It bounds what one statement may cost the thread that runs it:
 *   - a watchdog thread stops the statement (sqlite3_interrupt) after about LANE_BUDGET_NS while
 *     its thread is busy, or LANE_WALL_NS in any case (see below);
 *   - one value may not exceed LANE_VALUE_BYTES and a program LANE_VDBE_OPS, so no single VM step
 *     between two interrupt checks (a string function, a sort of what was read in time) runs long,
 *     and compiling (not clocked) stays small.
 * Any refusal makes the host run the statement in the agent's SQL worker instead.
 *
 * The table holds no reference past a connection's life: each entry is the connection's client
 * data, whose destructor (run by sqlite3_close before the handle is freed) removes it under the
 * same mutex trust_interrupt holds while it calls sqlite3_interrupt. Link with -z nodelete so the
 * destructor's code is never unloaded before it runs.
 */
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#define CLIENT_DATA_KEY "trust.sql-interrupt"
#define MAX_VALUE_BYTES (64 * 1024 * 1024)

/* Both registries are lists of structs that begin with this link, each guarded by its own lock. */
struct link {
  struct link *next;
};

static void link_push(pthread_mutex_t *lock, struct link **head, struct link *n) {
  pthread_mutex_lock(lock);
  n->next = *head;
  *head = n;
  pthread_mutex_unlock(lock);
}

/* Unlinks `n` under `lock`, then frees it: no reader of the list can see it afterwards. */
static void link_free(pthread_mutex_t *lock, struct link **head, struct link *n) {
  pthread_mutex_lock(lock);
  for (struct link **pp = head; *pp; pp = &(*pp)->next) {
    if (*pp == n) {
      *pp = n->next;
      break;
    }
  }
  pthread_mutex_unlock(lock);
  free(n);
}

struct entry {
  struct link link; /* first: an entry is a link */
  sqlite3 *db;
  long tid;
  volatile int cancelled;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct link *table_head = 0;

static void entry_free(void *p) { link_free(&table_lock, &table_head, (struct link *)p); }

static int on_statement(unsigned type, void *ctx, void *p, void *x) {
  struct entry *e = (struct entry *)ctx;
  (void)x;
  if (type != SQLITE_TRACE_STMT || !__atomic_load_n(&e->cancelled, __ATOMIC_SEQ_CST)) return 0;
  const char *sql = sqlite3_sql((sqlite3_stmt *)p);
  if (sql && strncasecmp(sql, "ROLLBACK", 8) == 0) return 0;
  sqlite3_interrupt(e->db);
  return 0;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_trustagent_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  (void)err;
  if (sqlite3_get_clientdata(db, CLIENT_DATA_KEY)) return SQLITE_OK; /* already registered */
  struct entry *e = (struct entry *)calloc(1, sizeof *e);
  if (!e) return SQLITE_NOMEM;
  e->db = db;
  e->tid = (long)syscall(SYS_gettid);
  /* One value (string, blob, or a row's text) may not exceed the largest result the host accepts. */
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES);
  int rc = sqlite3_trace_v2(db, SQLITE_TRACE_STMT, on_statement, e);
  if (rc != SQLITE_OK) {
    free(e);
    return rc;
  }
  link_push(&table_lock, &table_head, &e->link);
  rc = sqlite3_set_clientdata(db, CLIENT_DATA_KEY, e, entry_free);
  if (rc != SQLITE_OK) {
    sqlite3_trace_v2(db, 0, 0, 0);
    entry_free(e);
  }
  return rc;
}

static void mark(sqlite3_context *ctx, int argc, sqlite3_value **argv, int cancel) {
  (void)argc;
  long tid = (long)sqlite3_value_int64(argv[0]);
  int n = 0;
  pthread_mutex_lock(&table_lock);
  for (struct link *k = table_head; k; k = k->next) {
    struct entry *e = (struct entry *)k;
    if (e->tid != tid) continue;
    __atomic_store_n(&e->cancelled, cancel, __ATOMIC_SEQ_CST);
    if (cancel) sqlite3_interrupt(e->db);
    n++;
  }
  pthread_mutex_unlock(&table_lock);
  sqlite3_result_int(ctx, n);
}

static void fn_interrupt(sqlite3_context *ctx, int argc, sqlite3_value **argv) { mark(ctx, argc, argv, 1); }
static void fn_arm(sqlite3_context *ctx, int argc, sqlite3_value **argv) { mark(ctx, argc, argv, 0); }

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_trusthost_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  (void)err;
  int rc = sqlite3_create_function(db, "trust_interrupt", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, fn_interrupt, 0, 0);
  if (rc == SQLITE_OK)
    rc = sqlite3_create_function(db, "trust_arm", 1, SQLITE_UTF8 | SQLITE_DIRECTONLY, 0, fn_arm, 0, 0);
  return rc;
}

/*
 * The fast lane. This SQLite is built without progress callbacks, so a statement's clock is kept by
 * a watchdog thread: the statement's start arms it (SQLITE_TRACE_STMT), its end disarms it
 * (SQLITE_TRACE_PROFILE). From half its budget on, the watchdog looks at a statement every half
 * budget and stops it (sqlite3_interrupt) at the first look that finds its thread busy (the
 * kernel's per-thread CPU clock advanced by at least half the time since the last look): about
 * LANE_BUDGET_NS for a statement that has the CPU, later for one the scheduler has put aside (the
 * host's thread was not held by it meanwhile), and at LANE_WALL_NS in any case. The hot path reads
 * no CPU clock. Arming and the watchdog's decision happen under one lock, so a stop can only hit
 * the statement it was meant for (or one that had not ended its trace yet). The watchdog sleeps
 * until its next look; a starting statement wakes it only when it is idle or asleep past that
 * statement's first look.
 */
#define LANE_CLIENT_DATA_KEY "trust.sql-lane"
#define LANE_BUDGET_NS 1000000LL /* 1 ms: a statement's whole run on the host's thread, if it has the CPU */
#define LANE_LOOK_NS (LANE_BUDGET_NS / 2)
#define LANE_WALL_NS 25000000LL /* 25 ms of wall time, however little CPU it got */
#define LANE_VALUE_BYTES 8192    /* a larger value (read or computed) is refused: the worker runs it */
#define LANE_VDBE_OPS 20000      /* a larger program is refused at compile time */
#define LANE_LIKE_BYTES 64       /* LIKE/GLOB patterns: their match cost is length × pattern */

struct lane {
  struct link link; /* first: a lane is a link */
  sqlite3 *db;
  clockid_t cpu;      /* CPU clock of the thread that opened the connection (the one running it) */
  long long start;    /* wall clock at the statement's start */
  long long check_at; /* wall time of the watchdog's next look at this statement */
  long long look_at;  /* wall time of its last look, 0 before the first */
  long long cpu_at;   /* the thread's CPU clock at that look */
  int armed;
};

static pthread_mutex_t lane_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lane_wake;
static pthread_once_t lane_once = PTHREAD_ONCE_INIT;
static int lane_watchdog_ok = 0;
static int lane_watchdog_idle = 0;
static long long lane_watchdog_until = 0; /* while it sleeps to a time: that time */
static struct link *lane_head = 0;

static long long clock_ns(clockid_t c) {
  struct timespec t;
  if (clock_gettime(c, &t) != 0) return -1;
  return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}
static long long now_ns(void) { return clock_ns(CLOCK_MONOTONIC); }

static void *lane_watchdog(void *arg) {
  (void)arg;
  pthread_mutex_lock(&lane_lock);
  for (;;) {
    long long now = now_ns(), next = 0;
    for (struct link *k = lane_head; k; k = k->next) {
      struct lane *l = (struct lane *)k;
      if (!l->armed) continue;
      if (l->check_at <= now) {
        long long cpu = clock_ns(l->cpu); /* an unreadable clock (-1) stops the statement */
        int busy = l->look_at && 2 * (cpu - l->cpu_at) >= now - l->look_at;
        if (cpu < 0 || busy || now - l->start >= LANE_WALL_NS) {
          sqlite3_interrupt(l->db);
          l->armed = 0; /* one stop per statement */
          continue;
        }
        l->look_at = now;
        l->cpu_at = cpu;
        l->check_at = now + LANE_LOOK_NS;
        if (l->check_at > l->start + LANE_WALL_NS) l->check_at = l->start + LANE_WALL_NS;
      }
      if (!next || l->check_at < next) next = l->check_at;
    }
    if (next) {
      struct timespec until = {(time_t)(next / 1000000000LL), (long)(next % 1000000000LL)};
      lane_watchdog_until = next;
      pthread_cond_timedwait(&lane_wake, &lane_lock, &until);
      lane_watchdog_until = 0;
    } else {
      lane_watchdog_idle = 1;
      pthread_cond_wait(&lane_wake, &lane_lock);
      lane_watchdog_idle = 0;
    }
  }
  return 0;
}

static void lane_start_watchdog(void) {
  pthread_condattr_t attr;
  pthread_t t;
  pthread_condattr_init(&attr);
  pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
  pthread_cond_init(&lane_wake, &attr);
  pthread_condattr_destroy(&attr);
  if (pthread_create(&t, 0, lane_watchdog, 0) == 0) {
    pthread_detach(t);
    lane_watchdog_ok = 1;
  }
}

static void lane_free(void *p) { link_free(&lane_lock, &lane_head, (struct link *)p); }

static int lane_trace(unsigned type, void *ctx, void *p, void *x) {
  struct lane *l = (struct lane *)ctx;
  (void)p;
  (void)x;
  pthread_mutex_lock(&lane_lock);
  if (type == SQLITE_TRACE_STMT) {
    l->start = now_ns();
    l->check_at = l->start + LANE_LOOK_NS;
    l->look_at = 0;
    l->armed = 1;
    /* Woken only when it would otherwise look too late: idle, or asleep past this deadline. */
    if (lane_watchdog_idle || (lane_watchdog_until && l->check_at < lane_watchdog_until))
      pthread_cond_signal(&lane_wake);
  } else if (type == SQLITE_TRACE_PROFILE) {
    l->armed = 0;
  }
  pthread_mutex_unlock(&lane_lock);
  return 0;
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_trustlane_init(sqlite3 *db, char **err, const sqlite3_api_routines *api) {
  SQLITE_EXTENSION_INIT2(api);
  (void)err;
  if (sqlite3_get_clientdata(db, LANE_CLIENT_DATA_KEY)) return SQLITE_OK; /* already installed */
  pthread_once(&lane_once, lane_start_watchdog);
  if (!lane_watchdog_ok) return SQLITE_ERROR; /* no clock: this connection must not run agent SQL */
  struct lane *l = (struct lane *)calloc(1, sizeof *l);
  if (!l) return SQLITE_NOMEM;
  l->db = db;
  if (pthread_getcpuclockid(pthread_self(), &l->cpu) != 0) {
    free(l);
    return SQLITE_ERROR; /* no CPU clock for this thread: no lane */
  }
  sqlite3_limit(db, SQLITE_LIMIT_LENGTH, LANE_VALUE_BYTES);
  sqlite3_limit(db, SQLITE_LIMIT_VDBE_OP, LANE_VDBE_OPS);
  sqlite3_limit(db, SQLITE_LIMIT_LIKE_PATTERN_LENGTH, LANE_LIKE_BYTES);
  int rc = sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE, lane_trace, l);
  if (rc != SQLITE_OK) {
    free(l);
    return rc;
  }
  link_push(&lane_lock, &lane_head, &l->link);
  rc = sqlite3_set_clientdata(db, LANE_CLIENT_DATA_KEY, l, lane_free);
  if (rc != SQLITE_OK) {
    sqlite3_trace_v2(db, 0, 0, 0);
    lane_free(l);
  }
  return rc;
}
