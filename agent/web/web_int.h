/* web's own state, shared by web.c, webfetch.c and websearch.c only. */
#ifndef TANDEM_WEB_INT_H
#define TANDEM_WEB_INT_H

#include <curl/curl.h>
#include <stdint.h>

#include "tool.h"
#include "turn/call.h"
#include "web/web.h"
#include "web/webaddr.h"

#define WEB_READ_CAP	(10u * 1024 * 1024)	/* decoded bytes read of a page */
#define WEB_TEXT_CAP	(100u * 1024)		/* Markdown or text returned */
#define WEB_REDIRECTS	5
#define WEB_CACHE_MS	(15 * 60 * 1000)
#define WEB_CACHE_N	16
#define WEB_PROBES_MAX	64
#define WEB_ADDRS_MAX	8

/* A host looked up for one call before the gate decides. */
struct web_probe {
	struct web		*w;
	struct web_probe	*next;
	char			*id;		/* the call's */
	char			*host;
	char			*url;
	struct http_req		*req;		/* the lookup in flight, or NULL */
	struct curl_slist	*resolve;	/* the test resolver's answer, or NULL */
	bool			 done;
	bool			 literal;	/* the host is an address */
	int			 naddrs;
	char			 addrs[WEB_ADDRS_MAX][64];
	enum webaddr_class	 worst;		/* of the addresses: PUBLIC when all are */
	char			 worst_addr[64];
};

/* A page fetched lately. */
struct web_cached {
	char		*url;
	char		*text;		/* the framed page */
	int64_t		 at;
};

/* The test resolver's answers for one name. */
struct web_test_name {
	char		*name;
	char		**addrs;
	int		 n, next;
};

/*
 * What a fetch and a search share: one tool call in flight, its side model
 * call or HTTP request, and its result, given to done once and on a later
 * loop turn; then free_job frees the job that holds this one.
 */
struct web_job {
	struct web		*w;
	tool_async_done_fn	*done;
	void			*arg;
	int64_t			 t0;
	struct http_req		*req;
	struct call		 call;
	bool			 calling;
	struct tool_out		 out;
	uint64_t		 fire;
	bool			 over;
	void			(*free_job)(struct web_job *);
};

struct web {
	struct agent		*a;
	struct tool_def		 fetch, search;
	bool			 search_on;
	struct web_probe	*probes;
	struct web_cached	 cache[WEB_CACHE_N];
	struct web_test_name	*test_names;
	int			 ntest_names;
	bool			 test_loopback;
	struct webfetch_job	*jobs;		/* fetches in flight */
	struct websearch_job	*searches;	/* searches in flight */
};

/* The host of an http or https URL (lowercase), or NULL; the caller frees. */
char	*web_url_host(const char *url);
/* Is an address of class c fetched without asking (only public ones; loopback in tests)? */
bool	web_addr_ok(const struct web *, enum webaddr_class c);
/* The test resolver's next answer for host (CURLOPT_RESOLVE), or nothing; list freed by the caller. */
void	web_test_resolve(struct web *, CURL *easy, const char *host, long port,
	    struct curl_slist **list);
/* Is a proxy from the environment used for url (http_proxy, https_proxy, all_proxy, no_proxy)? */
bool	web_proxied(const char *url, const char *host);
/* The cache: the framed page of url fetched within 15 minutes (the web's), or NULL; a copy to keep. */
const char *web_cache_get(struct web *, const char *url);
void	web_cache_put(struct web *, const char *url, const char *text);
/* The probe of call id, taken out of the list (the caller frees it), or NULL. */
struct web_probe *web_probe_take(struct web *, const char *id);
void	web_probe_free(struct web_probe *);

void	web_job_init(struct web_job *, struct web *, tool_async_done_fn *done, void *arg,
	    void (*free_job)(struct web_job *));
/* Cancel the request and the side call in flight (done is not called). */
void	web_job_release(struct web_job *);
/* The result is known: done comes on the next loop turn (never inside start); once only. */
void	web_job_finish(struct web_job *, bool is_error, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Stop what is in flight for a cancel; false when the result is known already. */
bool	web_job_cancel(struct web_job *);

/* Drop every fetch or search in flight (no callbacks). */
void	webfetch_free_all(struct web *);
void	websearch_free_all(struct web *);
extern const struct tool_async webfetch_async;
extern const struct tool_async websearch_async;
/* Is web_search usable with this configuration?  Why not into why. */
bool	websearch_available(const struct config *, const char **why);

#endif
