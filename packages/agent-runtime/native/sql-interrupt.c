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
 * The table holds no reference past a connection's life: each entry is the connection's client
 * data, whose destructor (run by sqlite3_close before the handle is freed) removes it under the
 * same mutex trust_interrupt holds while it calls sqlite3_interrupt. Link with -z nodelete so the
 * destructor's code is never unloaded before it runs.
 */
#include <pthread.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "sqlite3ext.h"
SQLITE_EXTENSION_INIT1

#define CLIENT_DATA_KEY "trust.sql-interrupt"
#define MAX_VALUE_BYTES (64 * 1024 * 1024)

struct entry {
  sqlite3 *db;
  long tid;
  volatile int cancelled;
  struct entry *next;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *table_head = 0;

static void entry_free(void *p) {
  struct entry *e = (struct entry *)p;
  pthread_mutex_lock(&table_lock);
  for (struct entry **pp = &table_head; *pp; pp = &(*pp)->next) {
    if (*pp == e) {
      *pp = e->next;
      break;
    }
  }
  pthread_mutex_unlock(&table_lock);
  free(e);
}

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
  pthread_mutex_lock(&table_lock);
  e->next = table_head;
  table_head = e;
  pthread_mutex_unlock(&table_lock);
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
  for (struct entry *e = table_head; e; e = e->next) {
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
