/*
 * mock: tandem's scripted model server, a real HTTP/1.1 server on loopback.
 *
 * It speaks the Anthropic Messages streaming API (POST /v1/messages) and the
 * OpenAI-compatible chat completions streaming API (POST
 * /v1/chat/completions).  A scenario (JSON, see tests/mock/README.md) says
 * what to answer, one scripted response per request; every request is also
 * checked as the real API would check it (headers, body shape, tool_use /
 * tool_result pairing, thinking blocks echoed unchanged, at most four
 * cache_control breakpoints).  A request that fails a check gets the HTTP
 * 400 the real API would send, with a message naming the problem, and makes
 * mock_run() return 1.
 *
 * Used by tests/mockmodel (the CLI) and by `tandem --demo`, which runs it in
 * a forked child:
 *
 *	struct mock_opts o;
 *	mock_opts_init(&o);
 *	o.scenario_text = demo_json;
 *	o.idle_timeout_ms = 0;
 *	o.stop_fd = pipe_read_end;	(EOF when the parent goes away)
 *	m = mock_new(&o, err, sizeof err);
 *	mock_listen(m, &port, err, sizeof err);	(in the parent: it knows the port)
 *	fork(): the child calls mock_run(m) and _exit()s with its result;
 *	        the parent calls mock_free(m), which closes its copy of the socket.
 *
 * Library code never exits, never installs signal handlers and prints only
 * to opts.trace.  One process, one poll() loop, no threads.
 *
 * Ownership: mock_new() copies what it needs from the options (strings
 * included); the struct mock is the caller's to mock_free().  The trace
 * stream and stop_fd stay the caller's.
 */
#ifndef TANDEM_MOCK_H
#define TANDEM_MOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct mock;

struct mock_opts {
	const char	*scenario_path;	/* a scenario file, or NULL */
	const char	*scenario_text;	/* or the scenario as JSON text */
	const char	*base_dir;	/* fixtures of scenario_text are relative to it; NULL: "." */
	int		 port;		/* 0: an ephemeral port */
	const char	*log_path;	/* one JSON line per request; NULL: no log */
	bool		 log_no_body;	/* log "body": null (body_bytes still says how big) */
	bool		 no_accept;	/* listen but never accept: a client's connect hangs */
	long		 idle_timeout_ms; /* mock_run returns after this long without traffic; 0: never */
	long		 cache_ttl_ms;	/* prompt cache TTL; < 0: the scenario's, else 300000 */
	int		 stop_fd;	/* readable (or EOF): mock_run returns; -1: none */
	FILE		*trace;		/* a line per request and per problem; NULL: silent */
	void		(*on_listen)(int port, void *arg); /* mock_serve calls it once listening */
	void		*on_listen_arg;
};

/* Defaults: no scenario, port 0, no log, idle 30 s, TTL from the scenario, no stop_fd. */
void		 mock_opts_init(struct mock_opts *);

/*
 * Load and validate the scenario (and its fixtures), open the log.
 * NULL with one sentence in err on failure (a bad scenario names the
 * response and the key).
 */
struct mock	*mock_new(const struct mock_opts *, char *err, size_t errlen);

/* Listen on 127.0.0.1 (opts.port or an ephemeral one); *port gets the port. */
int		 mock_listen(struct mock *, int *port, char *err, size_t errlen);

/*
 * Serve until the idle timeout, stop_fd, or a fatal error.
 * 0: every request passed its checks; 1: a check failed (or, with the
 * scenario's "require_all", a response was never used); -1: poll/accept
 * failed (err of mock_listen is not involved; see the trace).
 */
int		 mock_run(struct mock *);

/* Requests served so far, and how many of them failed a check. */
int		 mock_requests(const struct mock *);
int		 mock_failures(const struct mock *);

/* Close the socket, the log and every connection; free everything. */
void		 mock_free(struct mock *);

/*
 * new + listen + run + free in one call; opts.on_listen (may be NULL) is
 * told the port.  Returns mock_run's result, or -1 with err filled.
 */
int		 mock_serve(const struct mock_opts *, char *err, size_t errlen);

#endif
