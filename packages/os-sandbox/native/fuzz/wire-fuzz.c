/*
 * A fuzz harness for the spawn server's request decoders (wire.c), standalone: gcc has no
 * libFuzzer, so this mutates seed messages itself with a seeded xorshift generator for a bounded
 * number of iterations. Built with -fsanitize=address,undefined by the test suite
 * (wire-fuzz.integration.test.ts), which also writes the seeds with the host's own encoder.
 *
 * Usage: wire-fuzz ITERATIONS RANDOM-SEED SEED-FILE...
 * Every input goes through wire_header, then (as the body after a header, and as a whole)
 * wire_decode_request and wire_decode_command. What a decoder accepts is checked against the
 * format's promises: strings without NUL, counts that fit, an absolute working directory, plain
 * environment names. Exit 0 when every iteration held; 1 (with the input in hex) when one did
 * not; a sanitizer report aborts.
 */
#include "../wire.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned long long rng;
static unsigned long long next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void fail(const char *why, const unsigned char *p, size_t n) {
  fprintf(stderr, "wire-fuzz: %s; input (%zu bytes):", why, n);
  for (size_t k = 0; k < n && k < 512; k++) fprintf(stderr, " %02x", p[k]);
  fprintf(stderr, "\n");
  exit(1);
}

static void check_words(char **w, unsigned count, const unsigned char *p, size_t n, size_t skip) {
  for (unsigned k = 0; k < count; k++) {
    if (!w[skip + k]) fail("a word is missing", p, n);
    if (strlen(w[skip + k]) > n) fail("a word is longer than its input", p, n);
  }
  if (w[skip + count]) fail("a word list is not NULL-terminated", p, n);
}

static void decode_all(const unsigned char *p, size_t n) {
  struct wire_request q;
  if (wire_decode_request(p, n, &q) == 0) {
    check_words(q.args, q.argc, p, n, 1);
    check_words(q.options, q.noptions, p, n, 0);
    size_t total = 0;
    for (unsigned k = 0; k < q.noptions; k++) total += strlen(q.options[k]) + 1;
    if (total != q.options_len) fail("the --args file does not hold exactly the options", p, n);
    if (q.seccomp_len > n || (q.seccomp_len > 0 && (q.seccomp < p || q.seccomp + q.seccomp_len > p + n))) fail("the seccomp program lies outside the input", p, n);
    if (q.flags > 7) fail("unknown pipe flags accepted", p, n);
    wire_request_free(&q);
  }
  struct wire_command c;
  if (wire_decode_command(p, n, &c) == 0) {
    if (!c.argv || !c.argv[0]) fail("a command without argv accepted", p, n);
    if (!c.cwd || c.cwd[0] != '/') fail("a relative working directory accepted", p, n);
    for (char **e = c.env; *e; e++) {
      const char *eq = strchr(*e, '=');
      if (!eq || eq == *e) fail("an environment entry without a name", p, n);
      for (const char *s = *e; s < eq; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_')) fail("an environment name that is not plain", p, n);
    }
    wire_command_free(&c);
  }
}

static void fuzz_one(const unsigned char *p, size_t n) {
  struct wire_header h;
  int whole = wire_header(p, n, &h);
  if (whole == 1) {
    if (p[0] != WIRE_VERSION) fail("another version accepted", p, n);
    if (h.length > WIRE_MAX_BODY) fail("an oversized body accepted", p, n);
    size_t body = n - WIRE_HEADER_BYTES < h.length ? n - WIRE_HEADER_BYTES : h.length;
    /* The body on its own allocation, sized exactly: a read past it is a sanitizer report. */
    unsigned char *b = malloc(body ? body : 1);
    if (!b) exit(2);
    memcpy(b, p + WIRE_HEADER_BYTES, body);
    decode_all(b, body);
    free(b);
  }
  decode_all(p, n);
}

static unsigned char *mutate(const unsigned char *seed, size_t n, size_t *out) {
  size_t cap = n + 64;
  unsigned char *m = malloc(cap);
  if (!m) exit(2);
  memcpy(m, seed, n);
  size_t len = n;
  int rounds = 1 + (int)(next() % 8);
  for (int r = 0; r < rounds; r++) {
    size_t at = len ? next() % len : 0;
    switch (next() % 7) {
      case 0: if (len) m[at] ^= (unsigned char)(1u << (next() % 8)); break;
      case 1: if (len) m[at] = (unsigned char)next(); break;
      case 2: if (len) m[at] = 0; break; /* a NUL somewhere */
      case 3: if (len + 1 < cap) { memmove(m + at + 1, m + at, len - at); m[at] = (unsigned char)next(); len++; } break;
      case 4: if (len) { memmove(m + at, m + at + 1, len - at - 1); len--; } break;
      case 5: len = len ? next() % len : 0; break; /* truncated */
      default: /* a 32-bit field set to an edge value */
        if (len >= 4) {
          static const unsigned edges[] = {0, 1, 2, 3, 4, 0x7fffffff, 0x80000000u, 0xfffffffeu, 0xffffffffu, 0x10000, 0x100000};
          unsigned v = edges[next() % (sizeof edges / sizeof edges[0])];
          at = next() % (len - 3);
          m[at] = (unsigned char)v; m[at + 1] = (unsigned char)(v >> 8); m[at + 2] = (unsigned char)(v >> 16); m[at + 3] = (unsigned char)(v >> 24);
        }
    }
  }
  *out = len;
  return m;
}

int main(int argc, char **argv) {
  if (argc < 4) {
    fprintf(stderr, "usage: wire-fuzz ITERATIONS RANDOM-SEED SEED-FILE...\n");
    return 2;
  }
  long iterations = atol(argv[1]);
  rng = strtoull(argv[2], NULL, 10) | 1;
  int nseeds = argc - 3;
  unsigned char **seeds = calloc((size_t)nseeds, sizeof *seeds);
  size_t *sizes = calloc((size_t)nseeds, sizeof *sizes);
  for (int k = 0; k < nseeds; k++) {
    FILE *f = fopen(argv[3 + k], "rb");
    if (!f) { perror(argv[3 + k]); return 2; }
    seeds[k] = malloc(1 << 20);
    sizes[k] = fread(seeds[k], 1, 1 << 20, f);
    fclose(f);
    fuzz_one(seeds[k], sizes[k]);
  }
  for (long i = 0; i < iterations; i++) {
    int k = (int)(next() % (unsigned)nseeds);
    size_t n;
    unsigned char *m = mutate(seeds[k], sizes[k], &n);
    /* An exact-size copy, so that reading one byte past the input is caught. */
    unsigned char *exact = malloc(n ? n : 1);
    if (!exact) return 2;
    memcpy(exact, m, n);
    free(m);
    fuzz_one(exact, n);
    free(exact);
  }
  for (int k = 0; k < nseeds; k++) free(seeds[k]);
  free(seeds);
  free(sizes);
  printf("wire-fuzz: %ld inputs, every one held\n", iterations);
  return 0;
}
