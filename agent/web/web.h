/*
 * web: the web tools, web_fetch and web_search, run on the loop.
 *
 * Owns the two tools' definitions (async tool_defs, found by the
 * scheduler through web_find and offered through web_tools_json), the
 * address checks a fetch passes in the gate (web_gate: the URL's host is
 * resolved first, and an address in a range webaddr.h names sends the
 * call to the person every time, whatever the rules, hooks, mode or
 * "always" answers say), the fetches and searches in flight, and the
 * 15-minute cache of fetched pages.  What a fetch does is in webfetch.c,
 * a search in websearch.c.
 *
 * Test-only environment (never for real use; tandem.1 says so):
 * TANDEM_WEB_TEST_RESOLVE="name=addr[,addr...] ..." answers a name's
 * n-th lookup with its n-th address (the last one from then on);
 * TANDEM_WEB_TEST_LOOPBACK=1 lets 127.0.0.0/8 be fetched like a public
 * address (the tests' servers are there); TANDEM_WEB_TIMEOUT_MS shortens
 * a fetch's timeouts.
 */
#ifndef TANDEM_WEB_H
#define TANDEM_WEB_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "rules/perm.h"

struct agent;
struct config;
struct sched_call;
struct tool_def;
struct web;

/* The web tools of agent a (its loop, HTTP, rules, model); never NULL. */
struct web	*web_new(struct agent *a);
/* Cancels what runs (no callbacks). */
void		 web_free(struct web *);
/* The schemas of the web tools that are on, appended to arr. */
void		 web_tools_json(struct web *, cJSON *arr);
/* The web tool of that name, or NULL (a scheduler finder; w is the web). */
const struct tool_def *web_find(void *w, const char *name);
/*
 * The gate's look at a web_fetch call c, after the rules gave *v: -1 to
 * go on; SCHED_LATER while its host is looked up (the scheduler is kicked
 * when the answer comes).  An address that is not public makes *v ASK and
 * *person_only true (no hook, rule, mode or "always" answer allows it).
 */
int		 web_gate(struct web *, struct sched_call *c, enum perm_verdict *v,
		    bool *person_only);
/* Did the gate find that call id's host is not public (only a person may allow it)? */
bool		 web_person_only(struct web *, const char *id);
/*
 * Why call id asks, if the web has a reason: "; host resolves to ..."
 * appended to reason; the rules an "always" answer would add (*always,
 * NULL-terminated, perm_strv_free's) are then emptied: none would apply.
 */
void		 web_explain(struct web *, const char *id, struct buf *reason, char ***always);
/* Claude Code's names of the web tools this configuration offers, appended to arr (stream-json's init). */
void		 web_cc_tool_names(const struct config *cfg, cJSON *arr);
/* For `tandem config`: whether web_search is offered, and why (one line into out). */
void		 web_config_report(const struct config *cfg, struct buf *out);

#endif
