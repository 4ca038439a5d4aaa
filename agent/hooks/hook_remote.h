/*
 * hook_remote.h: private to agent/hooks/: one HTTP request of an http or
 * prompt hook, its body gathered up to 1 MB, and how its type reads it.
 */
#ifndef TANDEM_HOOK_REMOTE_H
#define TANDEM_HOOK_REMOTE_H

#include <stdbool.h>

#include <curl/curl.h>

#include "buf.h"
#include "hooks/hooks_int.h"

struct http_req;

struct hook_remote {
	struct http_req		*req;		/* NULL once done */
	struct buf		 body;
	bool			 over;		/* the body passed the cap */
	hook_remote_done	*done;
	void			*arg;
	/* The transfer completed with status: read body, then call done. */
	void			(*finish)(struct hook_remote *, long status);
	void			(*cleanup)(struct hook_remote *);	/* the type's own state; may be NULL */
	void			*state;
};

struct hook_remote *hook_remote_new(hook_remote_done *, void *arg);
/* POST body (taken) to url with headers (taken); the answer comes through finish or done. */
void	hook_remote_send(struct hook_remote *, struct http *, const char *url,
	    struct curl_slist *headers, char *body, int timeout_ms);
void	hook_remote_free(struct hook_remote *);

#endif
