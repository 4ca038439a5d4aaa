/*
 * tests/mockmodel: the mock model server as a program (see mock.h and
 * tests/mock/README.md).
 *
 *	mockmodel --scenario FILE [--port N] [--port-file F] [--log F]
 *	          [--log-no-body] [--no-accept] [--idle-timeout SEC] [--cache-ttl-ms N]
 *	          [--quiet]
 *
 * Prints "PORT <n>" once listening.  Exit status: 0 every request passed
 * its checks, 1 one did not (or the server failed), 2 a usage error.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "mock/mock.h"

static int main_sigpipe[2] = { -1, -1 };

/* Signals only wake the loop: the handler writes one byte to a pipe. */
static void
main_on_signal(int signo)
{
	int saved = errno;
	char c = (char)signo;

	if (write(main_sigpipe[1], &c, 1) == -1) {
		/* The pipe is full: a stop is already pending. */
	}
	errno = saved;
}

static int
main_signals(void)
{
	struct sigaction sa;
	int i;

	if (pipe(main_sigpipe) == -1)
		return -1;
	for (i = 0; i < 2; i++)
		if (fcntl(main_sigpipe[i], F_SETFL, O_NONBLOCK) == -1 ||
		    fcntl(main_sigpipe[i], F_SETFD, FD_CLOEXEC) == -1)
			return -1;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = main_on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGTERM, &sa, NULL) == -1 || sigaction(SIGINT, &sa, NULL) == -1)
		return -1;
	return 0;
}

static void
main_usage(FILE *f)
{
	fputs("usage: mockmodel --scenario FILE [--port N] [--port-file F] [--log F]\n"
	    "                 [--log-no-body] [--no-accept] [--idle-timeout SEC] [--cache-ttl-ms N]\n"
	    "                 [--quiet]\n", f);
}

static int
main_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

static int
main_seconds(const char *s, long *ms)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (s[0] == '\0' || *end != '\0' || errno != 0 || !isfinite(v) || v < 0 || v > 86400.0 * 365)
		return -1;
	*ms = (long)(v * 1000.0 + 0.5);
	return 0;
}

/* Written then renamed, so a reader never sees half a number. */
static int
main_port_file(const char *path, int port)
{
	struct buf tmp = BUF_INIT(BUF_NOLIMIT);
	FILE *f;
	int rc = -1;

	buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	f = fopen(buf_cstr(&tmp), "w");
	if (f == NULL)
		goto out;
	fprintf(f, "%d\n", port);
	if (fclose(f) != 0 || rename(buf_cstr(&tmp), path) == -1)
		goto out;
	rc = 0;
out:
	if (rc == -1)
		fprintf(stderr, "mockmodel: cannot write %s: %s\n", path, strerror(errno));
	buf_release(&tmp);
	return rc;
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "scenario", required_argument, NULL, 's' },
		{ "port", required_argument, NULL, 'p' },
		{ "port-file", required_argument, NULL, 'f' },
		{ "log", required_argument, NULL, 'l' },
		{ "log-no-body", no_argument, NULL, 'B' },
		{ "no-accept", no_argument, NULL, 'A' },
		{ "idle-timeout", required_argument, NULL, 'i' },
		{ "cache-ttl-ms", required_argument, NULL, 't' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct mock_opts o;
	struct mock *m;
	const char *port_file = NULL;
	char err[1024];
	long v;
	int c, port, rc;

	mock_opts_init(&o);
	o.trace = stderr;
	while ((c = getopt_long(argc, argv, "s:p:f:l:BAi:t:qh", longopts, NULL)) != -1) {
		switch (c) {
		case 's':
			o.scenario_path = optarg;
			break;
		case 'p':
			if (main_long(optarg, 0, 65535, &v) == -1)
				goto bad_value;
			o.port = (int)v;
			break;
		case 'f':
			port_file = optarg;
			break;
		case 'l':
			o.log_path = optarg;
			break;
		case 'B':
			o.log_no_body = true;
			break;
		case 'A':
			o.no_accept = true;
			break;
		case 'i':
			if (main_seconds(optarg, &o.idle_timeout_ms) == -1)
				goto bad_value;
			break;
		case 't':
			if (main_long(optarg, 0, 86400L * 1000 * 365, &o.cache_ttl_ms) == -1)
				goto bad_value;
			break;
		case 'q':
			o.trace = NULL;
			break;
		case 'h':
			main_usage(stdout);
			return 0;
		default:
			main_usage(stderr);
			return 2;
		}
	}
	if (optind != argc || o.scenario_path == NULL) {
		fprintf(stderr, "mockmodel: %s\n", optind != argc ? "unexpected argument" : "--scenario is required");
		main_usage(stderr);
		return 2;
	}
	if (main_signals() == -1) {
		fprintf(stderr, "mockmodel: cannot set up signals: %s\n", strerror(errno));
		return 1;
	}
	o.stop_fd = main_sigpipe[0];
	m = mock_new(&o, err, sizeof err);
	if (m == NULL) {
		fprintf(stderr, "mockmodel: %s\n", err);
		return 2;
	}
	if (mock_listen(m, &port, err, sizeof err) == -1) {
		fprintf(stderr, "mockmodel: %s\n", err);
		mock_free(m);
		return 1;
	}
	if (port_file != NULL && main_port_file(port_file, port) == -1) {
		mock_free(m);
		return 1;
	}
	printf("PORT %d\n", port);
	fflush(stdout);
	rc = mock_run(m);
	if (o.trace != NULL)
		fprintf(stderr, "mockmodel: %d request(s), %d failed their checks\n",
		    mock_requests(m), mock_failures(m));
	mock_free(m);
	return rc == 0 ? 0 : 1;
bad_value:
	fprintf(stderr, "mockmodel: bad value for --%s: \"%s\"\n",
	    c == 'p' ? "port" : c == 'i' ? "idle-timeout" : "cache-ttl-ms", optarg);
	return 2;
}
