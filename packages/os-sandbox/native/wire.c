/*
 * The decoder of the spawn server's requests (wire format version 1, written by the host's
 * src/launcher-wire.ts; see that file for the layout). Every length is checked against the bytes
 * actually there before anything is read, every string is refused if it holds a NUL (it would end
 * the word early on the native side and start another), every count is bounded by the bytes left.
 * Decoded strings are copies, NUL-terminated; nothing points into the caller's buffer. No global
 * state: this file is also linked into the fuzz harness (fuzz/wire-fuzz.c).
 */
#include "wire.h"
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static unsigned le32(const unsigned char *p) { return p[0] | p[1] << 8 | p[2] << 16 | (unsigned)p[3] << 24; }

int wire_header(const unsigned char *p, size_t n, struct wire_header *h) {
  if (n < WIRE_HEADER_BYTES) return 0;
  if (p[0] != WIRE_VERSION) return -1;
  h->kind = p[1];
  h->id = le32(p + 2);
  h->length = le32(p + 6);
  if (h->length > WIRE_MAX_BODY) return -1;
  if (h->kind != 'R' && h->kind != 'P' && h->kind != 'G' && h->kind != 'A' && h->kind != 'K') return -1;
  return 1;
}

struct reader {
  const unsigned char *p;
  size_t n, off;
};

static int take_u32(struct reader *r, unsigned *v) {
  if (r->n - r->off < 4) return -1;
  *v = le32(r->p + r->off);
  r->off += 4;
  return 0;
}

/* A length-prefixed byte run: *at points into the buffer, *len is its length. */
static int take_bytes(struct reader *r, const unsigned char **at, size_t *len) {
  unsigned n;
  if (take_u32(r, &n) < 0 || n > r->n - r->off) return -1;
  *at = r->p + r->off;
  *len = n;
  r->off += n;
  return 0;
}

/* A length-prefixed string without NUL, copied and NUL-terminated. */
static int take_string(struct reader *r, char **out) {
  const unsigned char *at;
  size_t len;
  if (take_bytes(r, &at, &len) < 0 || (len > 0 && memchr(at, 0, len))) return -1;
  char *s = malloc(len + 1);
  if (!s) return -1;
  memcpy(s, at, len);
  s[len] = 0;
  *out = s;
  return 0;
}

/* Frees the strings of a NULL-terminated list (not the list). */
static void free_strings(char **w) {
  for (char **k = w; *k; k++) free(*k);
}

void wire_free_words(char **w) {
  if (!w) return;
  free_strings(w);
  free(w);
}

/* count strings (count bounded by the bytes left: each takes at least its 4-byte length), as a
   NULL-terminated array with `reserve` empty slots in front. */
static int take_words(struct reader *r, unsigned reserve, char ***out, unsigned *count) {
  unsigned c;
  if (take_u32(r, &c) < 0 || c > (r->n - r->off) / 4 || c > WIRE_MAX_WORDS) return -1;
  char **w = calloc((size_t)c + reserve + 1, sizeof *w);
  if (!w) return -1;
  for (unsigned k = 0; k < c; k++) {
    if (take_string(r, &w[reserve + k]) < 0) {
      free_strings(w + reserve);
      free(w);
      return -1;
    }
  }
  *out = w;
  *count = c;
  return 0;
}

void wire_request_free(struct wire_request *q) {
  if (q->args) free_strings(q->args + 1); /* args[0] is the program name, not ours */
  free(q->args);
  wire_free_words(q->options);
  free(q->options_file);
  memset(q, 0, sizeof *q);
}

int wire_decode_request(const unsigned char *p, size_t n, struct wire_request *q) {
  memset(q, 0, sizeof *q);
  struct reader r = {p, n, 0};
  const unsigned char *seccomp;
  size_t seccomp_len;
  if (take_words(&r, 1, &q->args, &q->argc) < 0) return EINVAL;
  q->args[0] = (char *)"trust-sandbox-launcher";
  if (take_words(&r, 0, &q->options, &q->noptions) < 0 || take_bytes(&r, &seccomp, &seccomp_len) < 0 || r.n - r.off != 1 || p[r.off] > 7) {
    wire_request_free(q);
    return EINVAL;
  }
  q->flags = p[r.off];
  q->seccomp = seccomp;
  q->seccomp_len = seccomp_len;
  /* bubblewrap's own --args file: every word NUL-terminated (none holds a NUL, checked above). */
  size_t total = 0;
  for (unsigned k = 0; k < q->noptions; k++) total += strlen(q->options[k]) + 1;
  q->options_file = malloc(total + 1);
  if (!q->options_file) {
    wire_request_free(q);
    return ENOMEM;
  }
  size_t off = 0;
  for (unsigned k = 0; k < q->noptions; k++) {
    size_t len = strlen(q->options[k]) + 1;
    memcpy(q->options_file + off, q->options[k], len);
    off += len;
  }
  q->options_len = total;
  return 0;
}

/* What POSIX shells can name: [A-Za-z_][A-Za-z0-9_]* (the host refuses anything else first). */
static int plain_name(const char *s) {
  if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_')) return 0;
  for (s++; *s; s++)
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) return 0;
  return 1;
}

void wire_command_free(struct wire_command *c) {
  wire_free_words(c->argv);
  wire_free_words(c->env);
  free(c->cwd);
  memset(c, 0, sizeof *c);
}

int wire_decode_command(const unsigned char *p, size_t n, struct wire_command *c) {
  memset(c, 0, sizeof *c);
  struct reader r = {p, n, 0};
  unsigned argc, envc;
  if (take_words(&r, 0, &c->argv, &argc) < 0) return EINVAL;
  if (argc == 0 || take_u32(&r, &envc) < 0 || envc > (r.n - r.off) / 8 || envc > WIRE_MAX_WORDS) goto bad;
  if (!(c->env = calloc((size_t)envc + 1, sizeof *c->env))) goto bad;
  for (unsigned k = 0; k < envc; k++) {
    char *name = NULL, *value = NULL;
    if (take_string(&r, &name) < 0 || !plain_name(name) || take_string(&r, &value) < 0) {
      free(name);
      free(value);
      goto bad;
    }
    size_t ln = strlen(name), lv = strlen(value);
    c->env[k] = malloc(ln + lv + 2);
    if (c->env[k]) {
      memcpy(c->env[k], name, ln);
      c->env[k][ln] = '=';
      memcpy(c->env[k] + ln + 1, value, lv + 1);
    }
    free(name);
    free(value);
    if (!c->env[k]) goto bad;
  }
  if (take_string(&r, &c->cwd) < 0 || c->cwd[0] != '/' || r.off != r.n) goto bad;
  return 0;
bad:
  wire_command_free(c);
  return EINVAL;
}
