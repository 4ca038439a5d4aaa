/*
 * wire: what the front ends without a screen share (DESIGN.md §12).
 *
 * wire_out is a queue of protocol lines to a file descriptor that never
 * blocks the loop: lines are appended and written when the fd can take
 * them; wire_out_flush drains it at exit.  wire_in reads lines from a
 * descriptor on the loop, each at most max_line bytes (a longer one is
 * skipped to its newline and reported), and says when the input ends.
 * The tool names and input fields of Claude Code are made here from
 * tandem's (the mapping perm.c and hooks.c use: run_bash is Bash, a file
 * tool names its file by an absolute file_path), and back.
 *
 * Each struct owns its buffers; the callbacks' args stay the caller's.
 */
#ifndef TANDEM_WIRE_H
#define TANDEM_WIRE_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

struct ev_loop;
struct wire_out;
struct wire_in;

/* The queue's limit: past it a line is dropped and the queue reports it (wire_out_lost). */
#define WIRE_OUT_MAX	(256u * 1024 * 1024)
/* Default cap on one input line. */
#define WIRE_LINE_MAX	(16u * 1024 * 1024)

/* fd is made non-blocking (restored by wire_out_free). */
struct wire_out	*wire_out_new(struct ev_loop *, int fd);
/* Queue item as one line (compact JSON and "\n"). */
void		 wire_out_json(struct wire_out *, const cJSON *item);
/* Queued bytes not written yet. */
size_t		 wire_out_pending(const struct wire_out *);
/* Lines dropped because the reader did not keep up with WIRE_OUT_MAX bytes queued. */
size_t		 wire_out_lost(const struct wire_out *);
/* Write what is queued, waiting at most timeout_ms; 0 when all went, else -1. */
int		 wire_out_flush(struct wire_out *, int timeout_ms);
void		 wire_out_free(struct wire_out *);

/* A whole line (without its "\n"; not NUL-terminated past n, but line[n] is 0). */
typedef void wire_line_fn(void *arg, const char *line, size_t n);
/* A line longer than the cap was skipped (size: its length so far). */
typedef void wire_long_fn(void *arg, size_t size);
typedef void wire_eof_fn(void *arg);

struct wire_in	*wire_in_new(struct ev_loop *, int fd, size_t max_line, wire_line_fn *,
		    wire_long_fn *, wire_eof_fn *, void *arg);
/* Feed bytes as if read (the fuzz targets and tests use it); a final line needs its "\n". */
void		 wire_in_feed(struct wire_in *, const char *p, size_t n);
/* Stop watching fd (lines already split are delivered; EOF is not reported). */
void		 wire_in_stop(struct wire_in *);
bool		 wire_in_eof(const struct wire_in *);
void		 wire_in_free(struct wire_in *);

/* A random (version 4) UUID, 36 characters and a NUL. */
void		 wire_uuid(char out[37]);

/* Claude Code's name of tandem's tool ("run_bash" -> "Bash"); others as they are. */
const char	*wire_cc_tool(const char *tool);
/* tool's input as Claude Code's tool takes it (file_path absolute under root); the caller owns it. */
cJSON		*wire_cc_input(const char *root, const char *tool, const cJSON *input);
/* And back: Claude Code's input of tool (tandem's name) in tandem's fields; the caller owns it. */
cJSON		*wire_tandem_input(const char *root, const char *tool, const cJSON *cc_input);
/* ACP's kind of a tool call: read, edit, execute, search, other. */
const char	*wire_tool_kind(const char *tool);

#endif
