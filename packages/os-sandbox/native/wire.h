/* The spawn server's request decoder (wire.c); also compiled into the fuzz harness on its own. */
#ifndef TRUST_WIRE_H
#define TRUST_WIRE_H
#include <stddef.h>

#define WIRE_VERSION 1
#define WIRE_HEADER_BYTES 10             /* u8 version, u8 kind, u32 id, u32 length */
#define WIRE_MAX_BODY (64u << 20)        /* larger than any plan: a longer frame is not our host */
#define WIRE_MAX_WORDS (1u << 20)

struct wire_header {
  unsigned char kind;
  unsigned id;
  unsigned length;
};

/* 1: a complete header in p[0..n) (its body may still be on the way); 0: need more bytes;
   -1: not our protocol (another version, an unknown kind, a body over WIRE_MAX_BODY). */
int wire_header(const unsigned char *p, size_t n, struct wire_header *h);

/* An 'R' or 'P' body. args: argc launcher arguments after args[0] (the program name),
   NULL-terminated; options: bwrap's options, and options_file the same as bwrap's --args file
   (NUL-terminated words); seccomp points into the decoded buffer. */
struct wire_request {
  char **args;
  unsigned argc;
  char **options;
  unsigned noptions;
  char *options_file;
  size_t options_len;
  const unsigned char *seccomp;
  size_t seccomp_len;
  unsigned flags;
};
/* 0, or EINVAL (malformed) / ENOMEM; on failure nothing is left to free. */
int wire_decode_request(const unsigned char *p, size_t n, struct wire_request *q);
void wire_request_free(struct wire_request *q);

/* A 'G' body: argv (at least one word), env as NAME=VALUE (names [A-Za-z_][A-Za-z0-9_]*), cwd
   (absolute); each NULL-terminated or NUL-terminated, owned by the struct. */
struct wire_command {
  char **argv;
  char **env;
  char *cwd;
};
int wire_decode_command(const unsigned char *p, size_t n, struct wire_command *c);
void wire_command_free(struct wire_command *c);

void wire_free_words(char **w);
#endif
