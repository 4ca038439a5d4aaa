/*
 * status: the status bar's figures and how they fit in a line.
 *
 * Fed from the event stream (session, context, usage, compaction,
 * cache_break, retry, turn_start/turn_end), the permission mode and a
 * fork's origin; st_format lays the fields out for a width, dropping the
 * least important ones first when the line is too narrow.  Pure: no
 * screen here.
 */
#ifndef TANDEM_TUI_STATUS_H
#define TANDEM_TUI_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "sline.h"

struct st_tokens {
	int64_t		 in, out, cache_read, cache_write;
};

struct status {
	char		 model[64];
	int64_t		 ctx_tokens, ctx_window;
	char		 stage[16];
	struct st_tokens last, total;
	double		 cost;
	char		 mode[24];
	char		 sandbox[40];	/* "sandbox workspace-write", "no sandbox"; "": off */
	bool		 busy;
	bool		 cache_break;	/* shown until dismissed */
	int64_t		 cb_dropped;
	char		 cb_causes[128];
	double		 cb_cost;	/* the break's price in dollars; < 0: unknown */
	bool		 retrying;
	int		 retry_attempt;
	int64_t		 retry_until;	/* ms (ev_now_ms) */
	char		 retry_reason[64];
	char		 forked_from[64];	/* the session this one was forked from, or "" */
	bool		 unsaved;	/* a write of the session failed: the next prompt retries */
	int		 mcp_ready, mcp_total;	/* MCP servers ("mcp 2/3"); total 0: none */
	char		 lsp[96];	/* language servers ("clangd ready"); "": none ran */
	char		 waiting[48];	/* what tandem waits for the user for ("" : nothing) */
};

void	 st_init(struct status *);
/* Take in an event; true when the bar changed. */
bool	 st_event(struct status *, const cJSON *ev, int64_t now);
void	 st_set_mode(struct status *, const char *mode);
void	 st_set_model(struct status *, const char *model);
/* The fork's origin (NULL or "": not a fork). */
void	 st_set_fork(struct status *, const char *from);
/* What the user is waited for (an approval, an answer), said instead of "working"; NULL: nothing; true when it changed. */
bool	 st_set_waiting(struct status *, const char *what);
/* 1234 -> "1.2k", 41000 -> "41k", 2500000 -> "2.5M". */
void	 st_tokens(int64_t n, char *out, size_t size);
/* A cache break's price: "$0.12", "$0.0042", or "price unknown" (usd < 0). */
void	 st_break_price(double usd, char *out, size_t size);
/*
 * A status line command's text (statusline.h) for width columns, cut to
 * leave room for the mode and what tandem waits for, which follow it.
 */
void	 st_format_custom(const struct status *, const char *text, int width, struct sline *out);
/* The bar for width columns at time now. */
void	 st_format(const struct status *, int width, int64_t now, struct sline *out);

#endif
