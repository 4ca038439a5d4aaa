/*
 * http: HTTP requests on the event loop through libcurl's multi interface.
 *
 * curl's sockets are registered with the loop (CURLMOPT_SOCKETFUNCTION)
 * and its timeouts armed as loop timers (CURLMOPT_TIMERFUNCTION).  Bytes of
 * the response body go to the body callback as they arrive: nothing waits
 * for the whole response.  Besides curl's connect timeout, three timers of
 * our own watch a request: the first byte, silence between bytes (or
 * between signs of progress the caller gives), and an overall deadline.
 */
#ifndef TANDEM_HTTP_H
#define TANDEM_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include <curl/curl.h>

struct buf;
struct ev_loop;
struct http;
struct http_req;

struct http_timeouts {
	long	connect_ms;	/* 0: curl's default */
	long	first_byte_ms;	/* from sending to the first body byte; 0: none */
	long	stall_ms;	/* silence between body bytes; 0: none */
	long	deadline_ms;	/* from sending to the end of the body; 0: none */
	/*
	 * The stall timer is re-armed only by http_progress(), not by every
	 * body byte: a server that sends keep-alives but no content stalls.
	 */
	bool	stall_on_progress;
};

enum http_fail {
	HTTP_OK,		/* the transfer completed (any status) */
	HTTP_CONNECT,		/* could not connect (refused, DNS, TLS) */
	HTTP_TIMEOUT_CONNECT,
	HTTP_TIMEOUT_FIRST_BYTE,
	HTTP_TIMEOUT_STALL,
	HTTP_TIMEOUT_DEADLINE,
	HTTP_BROKEN,		/* the connection broke mid-transfer */
	HTTP_ABORTED		/* the body callback asked to stop */
};

struct http_result {
	long		 status;	/* 0 when no response came */
	enum http_fail	 fail;
	const char	*error;		/* one sentence, or "" */
};

struct http_handler {
	/* The status line and headers are in (http_header works from here on). */
	void	(*headers)(void *arg, struct http_req *, long status);
	/* Body bytes; return -1 to abort the transfer (done then has HTTP_ABORTED). */
	int	(*body)(void *arg, struct http_req *, const char *p, size_t n);
	/* Exactly once, unless http_cancel came first; the request is freed after. */
	void	(*done)(void *arg, struct http_req *, const struct http_result *);
	void	*arg;
};

struct http	*http_new(struct ev_loop *);
/* Cancels every request still running (no done callbacks). */
void		 http_free(struct http *);

/*
 * POST body (len bytes, copied) to url with headers (taken over: freed
 * with the request).  Never NULL; a failure to start comes through done.
 */
struct http_req	*http_post(struct http *, const char *url, struct curl_slist *headers,
		    const char *body, size_t len, const struct http_timeouts *,
		    const struct http_handler *);
/* The same with body taken over (malloc'd; freed with the request), not copied. */
struct http_req	*http_post_take(struct http *, const char *url, struct curl_slist *headers,
		    char *body, size_t len, const struct http_timeouts *,
		    const struct http_handler *);
/*
 * A body in pieces, sent one after the other without being joined: bytes
 * of the body's own (a head and a tail built for this request) and bytes
 * held elsewhere (the conversation's kept texts), read where at() says
 * each time curl asks for more (they may move, they must not change)
 * and let go with release() when the request is over.
 */
#define HTTP_PARTS_MAX	4
struct http_part {
	char		*own;			/* malloc'd, the body's; or NULL */
	const char	*(*at)(void *arg);	/* with own NULL: where the bytes are now */
	void		(*release)(void *arg);	/* with own NULL: when done; may be NULL */
	void		*arg;
	size_t		 len;
};
struct http_body {
	struct http_part part[HTTP_PARTS_MAX];
	int		 n;
	size_t		 len;			/* of all parts */
};
/* Add the bytes of b (taken: b is left empty) as the body's next part: 0, or -1 when full. */
int		 http_body_take(struct http_body *, struct buf *b);
/* Add len bytes held elsewhere (see struct http_part): 0, or -1 when full (released then). */
int		 http_body_hold(struct http_body *, const char *(*at)(void *),
		    void (*release)(void *), void *arg, size_t len);
/* Append the whole body to out (a check, a log): 0, or -1 when out is full. */
int		 http_body_join(const struct http_body *, struct buf *out);
/* Let go of every part (what http_post_body does once the request is over). */
void		 http_body_release(struct http_body *);
/* POST body (taken over: *body is left empty), likewise; curl reads the parts in place. */
struct http_req	*http_post_body(struct http *, const char *url, struct curl_slist *headers,
		    struct http_body *body, const struct http_timeouts *,
		    const struct http_handler *);
/* GET url, likewise. */
struct http_req	*http_get(struct http *, const char *url, struct curl_slist *headers,
		    const struct http_timeouts *, const struct http_handler *);
/* GET url, with setup(setup_arg, easy) called on curl's handle before it starts (more options). */
struct http_req	*http_get_with(struct http *, const char *url, struct curl_slist *headers,
		    const struct http_timeouts *, const struct http_handler *,
		    void (*setup)(void *, CURL *), void *setup_arg);
/* Stop the request; no callback fires after this returns. */
void		 http_cancel(struct http_req *);
/* The response made progress: re-arm the stall timer (see stall_on_progress). */
void		 http_progress(struct http_req *);
/* A response header by name (case-insensitive), or NULL. */
const char	*http_header(const struct http_req *, const char *name);
/* Requests in flight (for leak checks). */
int		 http_active(const struct http *);

#endif
