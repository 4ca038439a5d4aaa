/*
 * keys: reading the keyboard and the mouse, and what each key does.
 *
 * The bindings are one table: a key, the contexts it works in, its
 * handler and its help line.  A handler returns what must be redrawn (a
 * KR_* mask) and the dispatcher turns that into dirty flags, so reading
 * keys and drawing stay apart.  What is not the keys' own (sending a
 * line, quitting, the editor, suspending) a handler returns as an action
 * (struct app_action), which keys_next hands to the loop in order.
 */
#include "autoconf.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app.h"
#include "bang.h"
#include "copy.h"
#include "ev.h"
#include "utf8.h"

/* Key codes: a character, or a curses key with KC_FN, either with KC_ALT. */
#define KC_FN		0x01000000
#define KC_ALT		0x02000000
#define KC_CTRL(c)	((c) & 0x1f)
#define KC_ESC		27
#define KEYS_ESC_ESC_MS	1000	/* a second Esc within this: Esc Esc */
/* Keys we teach curses (define_key). */
#define KC_PASTE_BEGIN	(KC_FN | (KEY_MAX + 1))
#define KC_PASTE_END	(KC_FN | (KEY_MAX + 2))
#define KC_SHIFT_ENTER	(KC_FN | (KEY_MAX + 3))
#define KC_FOCUS_IN	(KC_FN | (KEY_MAX + 4))
#define KC_FOCUS_OUT	(KC_FN | (KEY_MAX + 5))

/* What a handler asks for. */
enum {
	KR_HANDLED	= 1 << 0,
	KR_INPUT	= 1 << 1,	/* the input line changed */
	KR_REDRAW	= 1 << 2,	/* anything may have changed */
	KR_RESIZE	= 1 << 3	/* the layout changed */
};

/* Where a key is read. */
enum {
	C_EDIT		= 1 << 0,	/* typing a prompt */
	C_APPROVE	= 1 << 1,	/* an approval waits and the prompt is empty */
	C_REASON	= 1 << 2,	/* typing why a change is denied */
	C_SEARCH	= 1 << 3,	/* typing a transcript search */
	C_HIST		= 1 << 4,	/* Ctrl+R history search */
	C_PANE		= 1 << 5,	/* browsing a pane */
	C_ANY		= 0x3f,
	C_BROWSE	= 1 << 6,	/* the turn browser is open */
	C_ASK		= 1 << 7,	/* a yes-or-no question waits */
	C_ALL		= 0xff
};

/* A handler changes what keys own and asks the rest of the loop through act (tui.c does it). */
typedef unsigned key_fn(struct app *, int key, struct app_action *act);

struct key_binding {
	int		 key;
	unsigned	 ctx;
	key_fn		*fn;
	const char	*name;		/* for the help; NULL: not listed */
	const char	*help;
};

/* Extra sequences some terminals send. */
static const struct key_seq {
	const char	*seq;
	int		 key;
} key_seqs[] = {
	{ "\033[200~", KEY_MAX + 1 },
	{ "\033[201~", KEY_MAX + 2 },
	{ "\033[13;2u", KEY_MAX + 3 },
	{ "\033[27;2;13~", KEY_MAX + 3 },
	{ "\033[I", KEY_MAX + 4 },
	{ "\033[O", KEY_MAX + 5 },
};

static struct editor *
keys_editor(struct app *a)
{
	return a->mode == MODE_EDIT ? &a->ed : &a->aux;
}

/* ---- the input editor ---- */

static unsigned
key_send(struct app *a, int key, struct app_action *act)
{
	char *text;

	if (ed_empty(&a->ed))
		return KR_HANDLED;
	text = ed_take(&a->ed);
	a->hint_sticky = false;
	buf_reset(&a->hint);
	if (a->resend_turn > 0 && text[0] != '/') {
		if (browse_resend(a, text) == -1)
			ed_set(&a->ed, text);
		a->resend_turn = 0;
		free(text);
	} else {
		/* A slash command or a prompt: the loop sends it. */
		a->resend_turn = 0;
		act->what = DO_SEND;
		act->text = text;
	}
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_newline(struct app *a, int key, struct app_action *act)
{
	ed_insert(keys_editor(a), "\n", 1);
	return KR_INPUT;
}

static unsigned
key_backspace(struct app *a, int key, struct app_action *act)
{
	ed_backspace(keys_editor(a));
	return KR_INPUT;
}

static unsigned
key_delete(struct app *a, int key, struct app_action *act)
{
	ed_delete(keys_editor(a));
	return KR_INPUT;
}

static unsigned
key_move(struct app *a, int key, struct app_action *act)
{
	struct editor *e = keys_editor(a);

	switch (key) {
	case KC_FN | KEY_LEFT:
	case KC_CTRL('b'):
		ed_left(e);
		break;
	case KC_FN | KEY_RIGHT:
	case KC_CTRL('f'):
		ed_right(e);
		break;
	case KC_FN | KEY_HOME:
	case KC_CTRL('a'):
		ed_home(e);
		break;
	case KC_FN | KEY_END:
	case KC_CTRL('e'):
		ed_end(e);
		break;
	case KC_ALT | 'b':
		ed_word_left(e);
		break;
	case KC_ALT | 'f':
		ed_word_right(e);
		break;
	}
	return KR_INPUT;
}

static unsigned
key_kill(struct app *a, int key, struct app_action *act)
{
	struct editor *e = keys_editor(a);

	if (key == KC_CTRL('k'))
		ed_kill_to_end(e);
	else if (key == KC_CTRL('u'))
		ed_kill_to_start(e);
	else
		ed_kill_word(e);
	return KR_INPUT;
}

static unsigned
key_up(struct app *a, int key, struct app_action *act)
{
	if (queue_pull(a))
		return KR_INPUT;
	if (!ed_up(&a->ed))
		ed_history_prev(&a->ed);
	return KR_INPUT;
}

static unsigned
key_down(struct app *a, int key, struct app_action *act)
{
	if (!ed_down(&a->ed))
		ed_history_next(&a->ed);
	return KR_INPUT;
}

static unsigned
key_tab(struct app *a, int key, struct app_action *act)
{
	size_t n, count;
	const char *const *names;

	if (mention_tab(a))
		return KR_INPUT;
	names = cmds_names(a, &n);
	if (ed_text(&a->ed)[0] == '/') {
		buf_reset(&a->hint);
		count = ed_complete(&a->ed, names, n, &a->hint);
		if (count <= 1)
			buf_reset(&a->hint);
		a->hint_sticky = count > 1;
		return KR_INPUT;
	}
	/* Otherwise Tab moves between the panes. */
	a->focus = a->focus == PANE_INPUT ? PANE_TRANSCRIPT : a->focus == PANE_TRANSCRIPT ? PANE_TOOLS :
	    a->focus == PANE_TOOLS && a->win[PANE_DIFF] != NULL ? PANE_DIFF : PANE_INPUT;
	if (a->focus == PANE_TOOLS && a->win[PANE_TOOLS] == NULL)
		a->focus = a->win[PANE_DIFF] != NULL ? PANE_DIFF : PANE_INPUT;
	if (a->focus == PANE_INPUT)
		tr_select_none(a->tr);
	return KR_REDRAW;
}

static unsigned
key_question(struct app *a, int key, struct app_action *act)
{
	if (!ed_empty(&a->ed))
		return 0;
	keys_help(a);
	return KR_REDRAW;
}

/* ---- history search (Ctrl+R) ---- */

static unsigned
key_hist_start(struct app *a, int key, struct app_action *act)
{
	ed_search_start(&a->ed);
	return KR_INPUT;
}

static unsigned
key_hist_older(struct app *a, int key, struct app_action *act)
{
	ed_search_next(&a->ed);
	return KR_INPUT;
}

static unsigned
key_hist_accept(struct app *a, int key, struct app_action *act)
{
	ed_search_end(&a->ed, true);
	return KR_INPUT;
}

static unsigned
key_hist_cancel(struct app *a, int key, struct app_action *act)
{
	ed_search_end(&a->ed, false);
	return KR_INPUT;
}

static unsigned
key_hist_erase(struct app *a, int key, struct app_action *act)
{
	ed_search_erase(&a->ed);
	return KR_INPUT;
}

/* ---- approvals ---- */

static unsigned
key_approve(struct app *a, int key, struct app_action *act)
{
	approve_answer(a, key == 'a' ? APPROVAL_ALWAYS : key == 'N' ? APPROVAL_NEVER : APPROVAL_ALLOW,
	    NULL, NULL);
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_deny(struct app *a, int key, struct app_action *act)
{
	a->mode = MODE_REASON;
	ed_clear(&a->aux);
	app_set_hint(a, true, "%s", "why? (optional) Enter denies, Esc goes back");
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_edit(struct app *a, int key, struct app_action *act)
{
	act->what = DO_EDIT;
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_reason_send(struct app *a, int key, struct app_action *act)
{
	char *why = xstrdup(ed_text(&a->aux));

	a->mode = MODE_EDIT;
	ed_clear(&a->aux);
	buf_reset(&a->hint);
	approve_answer(a, APPROVAL_DENY, *why ? why : NULL, NULL);
	free(why);
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_reason_cancel(struct app *a, int key, struct app_action *act)
{
	a->mode = MODE_EDIT;
	ed_clear(&a->aux);
	buf_reset(&a->hint);
	return KR_REDRAW | KR_RESIZE;
}

/* ---- questions ---- */

static unsigned
key_ask_yes(struct app *a, int key, struct app_action *act)
{
	approve_ask_answer(a, true);
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_ask_no(struct app *a, int key, struct app_action *act)
{
	approve_ask_answer(a, false);
	return KR_REDRAW | KR_RESIZE;
}

/* ---- the turn browser ---- */

static unsigned
key_browse(struct app *a, int key, struct app_action *act)
{
	if (a->br.on)
		browse_close(a);
	else
		browse_open(a, false);
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_browse_move(struct app *a, int key, struct app_action *act)
{
	int page = a->rect[PANE_TRANSCRIPT].h - 2;

	if (!a->br.detail)
		page /= 2;	/* two lines a turn */
	if (page < 1)
		page = 1;
	switch (key) {
	case KC_FN | KEY_UP:
		browse_move(a, -1);
		break;
	case KC_FN | KEY_DOWN:
		browse_move(a, 1);
		break;
	case KC_FN | KEY_PPAGE:
		browse_move(a, -page);
		break;
	case KC_FN | KEY_NPAGE:
		browse_move(a, page);
		break;
	case KC_FN | KEY_HOME:
		browse_move(a, INT_MIN);
		break;
	case KC_FN | KEY_END:
		browse_move(a, INT_MAX);
		break;
	}
	return KR_REDRAW;
}

static unsigned
key_browse_enter(struct app *a, int key, struct app_action *act)
{
	browse_enter(a);
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_browse_back(struct app *a, int key, struct app_action *act)
{
	if (key == 'q')
		browse_close(a);
	else
		browse_back(a);
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_browse_act(struct app *a, int key, struct app_action *act)
{
	browse_act(a, key);
	return KR_REDRAW | KR_RESIZE;
}

static unsigned key_escape(struct app *, int, struct app_action *);

/* Esc Esc on an empty prompt: pick an earlier prompt to edit and send again. */
static unsigned
key_esc_esc(struct app *a, int key, struct app_action *act)
{
	a->esc_at = 0;
	/* Otherwise the two are one Esc (stopping a turn, say). */
	if (app_busy(a) || !ed_empty(&a->ed) || a->agent == NULL)
		return key_escape(a, KC_ESC, act);
	browse_open(a, true);
	return KR_REDRAW | KR_RESIZE;
}

/* ---- transcript search ---- */

static unsigned
key_search_start(struct app *a, int key, struct app_action *act)
{
	a->mode = MODE_SEARCH;
	ed_clear(&a->aux);
	if (tr_query(a->tr) != NULL)
		ed_set(&a->aux, tr_query(a->tr));
	app_set_hint(a, true, "%s", "Enter or Up: older match, Down: newer, Esc: done");
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_search_go(struct app *a, int key, struct app_action *act)
{
	bool older = key != (KC_FN | KEY_DOWN);

	if (ed_empty(&a->aux))
		return KR_HANDLED;
	if (tr_search(a->tr, ed_text(&a->aux), older) == -1)
		app_set_hint(a, true, "no %s match for \"%.40s\"", older ? "older" : "newer", ed_text(&a->aux));
	else
		app_set_hint(a, true, "%s", "Enter or Up: older match, Down: newer, Esc: done");
	return KR_REDRAW;
}

static unsigned
key_search_end(struct app *a, int key, struct app_action *act)
{
	a->mode = MODE_EDIT;
	ed_clear(&a->aux);
	tr_search_clear(a->tr);
	buf_reset(&a->hint);
	return KR_REDRAW | KR_RESIZE;
}

/* ---- panes ---- */

static int
keys_scroll_target(struct app *a)
{
	return a->focus == PANE_INPUT ? PANE_TRANSCRIPT : a->focus;
}

/* Scroll a pane by rows (negative: up). */
static void
keys_scroll(struct app *a, int pane, int rows)
{
	if (pane == PANE_TRANSCRIPT)
		tr_scroll(a->tr, rows);
	else if (pane == PANE_TOOLS) {
		a->tools_scroll -= rows;
		if (a->tools_scroll < 0)
			a->tools_scroll = 0;
		if ((size_t)a->tools_scroll >= a->tools.n)
			a->tools_scroll = a->tools.n > 0 ? (int)a->tools.n - 1 : 0;
	} else if (pane == PANE_DIFF) {
		udiff_view_scroll(&a->diff, rows);
	}
}

static unsigned
key_page(struct app *a, int key, struct app_action *act)
{
	int pane = keys_scroll_target(a), h = a->rect[pane].h > 3 ? a->rect[pane].h - 2 : 1;

	keys_scroll(a, pane, key == (KC_FN | KEY_PPAGE) ? -h : h);
	return KR_REDRAW;
}

static unsigned
key_line(struct app *a, int key, struct app_action *act)
{
	int pane = keys_scroll_target(a);
	bool up = key == (KC_FN | KEY_UP) || key == (KC_ALT | KC_FN | KEY_UP) || key == (KC_FN | KEY_SR);

	if (a->focus == PANE_TRANSCRIPT && (key & KC_ALT) == 0 && key != (KC_FN | KEY_SR) &&
	    key != (KC_FN | KEY_SF))
		tr_select(a->tr, up ? -1 : 1);
	else
		keys_scroll(a, pane, up ? -1 : 1);
	return KR_REDRAW;
}

static unsigned
key_top(struct app *a, int key, struct app_action *act)
{
	int pane = keys_scroll_target(a);

	if (pane == PANE_TRANSCRIPT)
		tr_top(a->tr);
	else if (pane == PANE_TOOLS)
		a->tools_scroll = a->tools.n > 0 ? (int)a->tools.n - 1 : 0;
	else
		udiff_view_scroll(&a->diff, INT_MIN);
	return KR_REDRAW;
}

static unsigned
key_bottom(struct app *a, int key, struct app_action *act)
{
	int pane = keys_scroll_target(a);

	if (a->focus == PANE_INPUT && !ed_empty(&a->ed) && key == (KC_FN | KEY_END))
		return key_move(a, key, act);
	if (pane == PANE_TRANSCRIPT)
		tr_bottom(a->tr);
	else if (pane == PANE_TOOLS)
		a->tools_scroll = 0;
	else
		udiff_view_scroll(&a->diff, INT_MAX);
	return KR_REDRAW;
}

static unsigned
key_home_or_top(struct app *a, int key, struct app_action *act)
{
	if (a->focus == PANE_INPUT && !ed_empty(&a->ed))
		return key_move(a, key, act);
	return key_top(a, key, act);
}

static unsigned
key_toggle(struct app *a, int key, struct app_action *act)
{
	if (a->focus == PANE_TRANSCRIPT && tr_toggle_selected(a->tr))
		return KR_REDRAW;
	return KR_HANDLED;
}

static unsigned
key_pane_leave(struct app *a, int key, struct app_action *act)
{
	a->focus = PANE_INPUT;
	tr_select_none(a->tr);
	return KR_REDRAW;
}

static unsigned
key_zoom(struct app *a, int key, struct app_action *act)
{
	int pane = keys_scroll_target(a);

	a->zoom = a->zoom >= 0 ? -1 : pane;
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_paste_image(struct app *a, int key, struct app_action *act)
{
	paste_image(a);
	return KR_REDRAW;
}

static unsigned
key_copy(struct app *a, int key, struct app_action *act)
{
	copy_run(a, NULL);
	return KR_REDRAW;
}

static unsigned
key_expand_all(struct app *a, int key, struct app_action *act)
{
	/* A selected item alone, as Enter does; else all of them. */
	if (a->focus == PANE_TRANSCRIPT && tr_toggle_selected(a->tr))
		return KR_REDRAW;
	a->expand_all = !a->expand_all;
	tr_expand_all(a->tr, a->expand_all);
	app_set_hint(a, false, "%s", a->expand_all ? "tool results and thinking expanded" :
	    "tool results and thinking collapsed");
	return KR_REDRAW;
}

static unsigned
key_repaint(struct app *a, int key, struct app_action *act)
{
	app_dirty(a, D_CLEAR | D_LAYOUT);
	return KR_REDRAW;
}

/* ---- the turn and the program ---- */

static unsigned
key_escape(struct app *a, int key, struct app_action *act)
{
	if (bang_interrupt(a))
		return KR_REDRAW;
	if (app_busy(a)) {
		if (a->agent != NULL)
			a->be->interrupt(a->agent);
		else
			a->local_busy = false;
		app_set_hint(a, false, "%s", "interrupted");
		return KR_REDRAW;
	}
	if (a->st.cache_break) {
		a->st.cache_break = false;
		return KR_REDRAW;
	}
	if (a->diff.asked && !a->diff.live) {
		a->diff.asked = a->diff.on = false;
		return KR_REDRAW | KR_RESIZE;
	}
	if (a->zoom >= 0) {
		a->zoom = -1;
		return KR_REDRAW | KR_RESIZE;
	}
	if (a->resend_turn > 0) {
		a->resend_turn = 0;
		ed_clear(&a->ed);
		app_set_hint(a, false, "%s", "the edit of an earlier prompt is cancelled");
		return KR_REDRAW | KR_RESIZE;
	}
	if (a->mode == MODE_EDIT && ed_empty(&a->ed) && a->agent != NULL) {
		int64_t now = ev_now_ms();

		if (a->esc_at > 0 && now - a->esc_at < KEYS_ESC_ESC_MS)
			return key_esc_esc(a, key, act);
		a->esc_at = now;
	}
	return KR_HANDLED;
}

static unsigned
key_ctrl_c(struct app *a, int key, struct app_action *act)
{
	int64_t now = ev_now_ms();

	if (a->ctrl_c_at > 0 && now - a->ctrl_c_at < APP_QUIT_MS) {
		act->what = DO_QUIT;
		return KR_HANDLED;
	}
	a->ctrl_c_at = now;
	if (a->br.on)
		browse_close(a);
	a->resend_turn = 0;
	if (a->mode == MODE_SEARCH)
		tr_search_clear(a->tr);
	a->mode = MODE_EDIT;
	if (a->ed.searching)
		ed_search_end(&a->ed, false);
	ed_clear(&a->ed);
	if (app_busy(a) && a->agent != NULL)
		a->be->interrupt(a->agent);
	app_set_hint(a, true, "%s", "press Ctrl+C again to quit");
	return KR_REDRAW | KR_RESIZE;
}

/*
 * Shift+Tab: ask, accept-edits, plan, and round again.  Yolo is not on the
 * way (three presses must not switch every prompt off); from yolo it goes
 * back to ask.  Yolo is its flag, a setting, or /mode yolo confirmed.
 */
static unsigned
key_mode(struct app *a, int key, struct app_action *act)
{
	static const enum perm_mode next[] = {
		[PERM_ASK] = PERM_ACCEPT_EDITS, [PERM_ACCEPT_EDITS] = PERM_PLAN,
		[PERM_PLAN] = PERM_ASK, [PERM_YOLO] = PERM_ASK,
	};
	enum perm_mode m = PERM_ASK;

	if (a->agent != NULL)
		m = a->be->mode(a->agent);
	else
		for (m = PERM_ASK; m < PERM_YOLO && strcmp(app_mode_name(a, m), a->st.mode) != 0; m++)
			;
	app_mode_change(a, (unsigned)m < 4 ? next[m] : PERM_ASK);
	return KR_REDRAW;
}

static unsigned
key_suspend(struct app *a, int key, struct app_action *act)
{
	act->what = DO_SUSPEND;
	return KR_REDRAW | KR_RESIZE;
}

static unsigned
key_mouse(struct app *a, int key, struct app_action *act)
{
	MEVENT me;
	int pane;

	if (getmouse(&me) != OK)
		return KR_HANDLED;
	pane = paint_pane_at(a, me.y, me.x);
	if (me.bstate & BUTTON4_PRESSED)
		keys_scroll(a, pane >= 0 && pane <= PANE_DIFF ? pane : PANE_TRANSCRIPT, -3);
#ifdef BUTTON5_PRESSED
	else if (me.bstate & BUTTON5_PRESSED)
		keys_scroll(a, pane >= 0 && pane <= PANE_DIFF ? pane : PANE_TRANSCRIPT, 3);
#endif
	else if (me.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED)) {
		if (pane == PANE_TRANSCRIPT || pane == PANE_TOOLS || pane == PANE_DIFF)
			a->focus = pane;
		else if (pane == PANE_INPUT)
			a->focus = PANE_INPUT;
	}
	return KR_REDRAW;
}

static const struct key_binding key_table[] = {
	/* A question (trust this project? overwrite files?): nothing else until answered. */
	{ 'y', C_ASK, key_ask_yes, NULL, NULL },
	{ 'Y', C_ASK, key_ask_yes, NULL, NULL },
	{ 'n', C_ASK, key_ask_no, NULL, NULL },
	{ 'N', C_ASK, key_ask_no, NULL, NULL },
	{ KC_ESC, C_ASK, key_ask_no, NULL, NULL },
	/* The turn browser. */
	{ KC_FN | KEY_UP, C_BROWSE, key_browse_move, NULL, NULL },
	{ KC_FN | KEY_DOWN, C_BROWSE, key_browse_move, NULL, NULL },
	{ KC_FN | KEY_PPAGE, C_BROWSE, key_browse_move, NULL, NULL },
	{ KC_FN | KEY_NPAGE, C_BROWSE, key_browse_move, NULL, NULL },
	{ KC_FN | KEY_HOME, C_BROWSE, key_browse_move, NULL, NULL },
	{ KC_FN | KEY_END, C_BROWSE, key_browse_move, NULL, NULL },
	{ '\r', C_BROWSE, key_browse_enter, "Enter", "show the turn in full (again: back to the list)" },
	{ KC_FN | KEY_ENTER, C_BROWSE, key_browse_enter, NULL, NULL },
	{ 'r', C_BROWSE, key_browse_act, "r/f/b", "rewind to before the turn: the conversation, the files, both" },
	{ 'f', C_BROWSE, key_browse_act, NULL, NULL },
	{ 'b', C_BROWSE, key_browse_act, NULL, NULL },
	{ 'k', C_BROWSE, key_browse_act, "k", "fork: go on in a new session from the turn" },
	{ 'u', C_BROWSE, key_browse_act, "u", "redo: undo the last rewind" },
	{ 'd', C_BROWSE, key_browse_act, "d", "the turn's changes as a diff, in the diff pane" },
	{ KC_ESC, C_BROWSE, key_browse_back, "Esc, q", "back from a turn to the list; close the browser" },
	{ 'q', C_BROWSE, key_browse_back, NULL, NULL },
	{ KC_CTRL('t'), C_BROWSE, key_browse, NULL, NULL },
	/* Approvals, while the prompt is empty. */
	{ 'y', C_APPROVE, key_approve, "y", "approve the pending change or command" },
	{ 'n', C_APPROVE, key_deny, "n", "deny it (then type why, or just Enter)" },
	{ 'a', C_APPROVE, key_approve, "a", "approve, and always allow this for the session" },
	{ 'N', C_APPROVE, key_approve, "N", "deny, and deny calls like it for the rest of the session" },
	{ 'e', C_APPROVE, key_edit, "e", "edit the proposal in $VISUAL/$EDITOR, then approve it" },
	{ '\r', C_REASON, key_reason_send, NULL, NULL },
	{ KC_ESC, C_REASON, key_reason_cancel, NULL, NULL },
	/* Transcript search. */
	{ '\r', C_SEARCH, key_search_go, NULL, NULL },
	{ KC_CTRL('f'), C_SEARCH, key_search_go, NULL, NULL },
	{ KC_FN | KEY_UP, C_SEARCH, key_search_go, NULL, NULL },
	{ KC_FN | KEY_DOWN, C_SEARCH, key_search_go, NULL, NULL },
	{ KC_ESC, C_SEARCH, key_search_end, NULL, NULL },
	/* History search. */
	{ KC_CTRL('r'), C_HIST, key_hist_older, NULL, NULL },
	{ '\r', C_HIST, key_hist_accept, NULL, NULL },
	{ KC_ESC, C_HIST, key_hist_cancel, NULL, NULL },
	{ KC_CTRL('g'), C_HIST, key_hist_cancel, NULL, NULL },
	{ KC_FN | KEY_BACKSPACE, C_HIST, key_hist_erase, NULL, NULL },
	{ 127, C_HIST, key_hist_erase, NULL, NULL },
	{ KC_CTRL('h'), C_HIST, key_hist_erase, NULL, NULL },
	/* Browsing a pane. */
	{ KC_FN | KEY_UP, C_PANE, key_line, "Up/Down", "in a pane: select a transcript item or scroll" },
	{ KC_FN | KEY_DOWN, C_PANE, key_line, NULL, NULL },
	{ '\r', C_PANE, key_toggle, "Enter", "in the transcript: expand or collapse the selected item" },
	{ ' ', C_PANE, key_toggle, NULL, NULL },
	{ KC_ESC, C_PANE, key_pane_leave, NULL, NULL },
	/* The prompt. */
	{ '\r', C_EDIT, key_send, "Enter", "send the prompt (or run a /command)" },
	{ KC_ALT | '\r', C_EDIT | C_REASON, key_newline, "Alt+Enter", "a new line (also Shift+Enter, Ctrl+J)" },
	{ KC_SHIFT_ENTER, C_EDIT | C_REASON, key_newline, NULL, NULL },
	{ '\n', C_EDIT | C_REASON, key_newline, NULL, NULL },
	{ KC_FN | KEY_ENTER, C_EDIT, key_send, NULL, NULL },
	{ KC_FN | KEY_BACKSPACE, C_EDIT | C_REASON | C_SEARCH, key_backspace, NULL, NULL },
	{ 127, C_EDIT | C_REASON | C_SEARCH, key_backspace, NULL, NULL },
	{ KC_CTRL('h'), C_EDIT | C_REASON | C_SEARCH, key_backspace, NULL, NULL },
	{ KC_FN | KEY_DC, C_EDIT | C_REASON | C_SEARCH, key_delete, NULL, NULL },
	{ KC_FN | KEY_LEFT, C_EDIT | C_REASON | C_SEARCH, key_move, NULL, NULL },
	{ KC_FN | KEY_RIGHT, C_EDIT | C_REASON | C_SEARCH, key_move, NULL, NULL },
	{ KC_CTRL('a'), C_EDIT | C_REASON | C_SEARCH, key_move, "Ctrl+A/E", "start/end of the line" },
	{ KC_CTRL('e'), C_EDIT | C_REASON | C_SEARCH, key_move, NULL, NULL },
	{ KC_CTRL('b'), C_EDIT | C_REASON, key_move, NULL, NULL },
	{ KC_ALT | 'b', C_EDIT | C_REASON | C_SEARCH, key_move, "Alt+B/F", "a word back/forward" },
	{ KC_ALT | 'f', C_EDIT | C_REASON | C_SEARCH, key_move, NULL, NULL },
	{ KC_CTRL('k'), C_EDIT | C_REASON | C_SEARCH, key_kill, "Ctrl+K/U/W", "delete to the end, to the start, a word back" },
	{ KC_CTRL('u'), C_EDIT | C_REASON | C_SEARCH, key_kill, NULL, NULL },
	{ KC_CTRL('w'), C_EDIT | C_REASON | C_SEARCH, key_kill, NULL, NULL },
	{ KC_FN | KEY_UP, C_EDIT, key_up, "Up/Down", "move between lines, then through the history" },
	{ KC_FN | KEY_DOWN, C_EDIT, key_down, NULL, NULL },
	{ KC_CTRL('r'), C_EDIT, key_hist_start, "Ctrl+R", "search the history" },
	{ '\t', C_EDIT | C_PANE, key_tab, "Tab", "complete a /command; otherwise move between panes" },
	{ '?', C_EDIT, key_question, "?", "on an empty prompt: this list" },
	{ KC_CTRL('t'), C_EDIT | C_PANE, key_browse, "Ctrl+T", "the turn browser (also /rewind): view, rewind, fork, redo" },
	{ KC_ALT | KC_ESC, C_EDIT, key_esc_esc, "Esc Esc", "on an empty prompt: edit an earlier prompt and send it again" },
	/* Everywhere. */
	{ KC_FN | KEY_HOME, C_ANY, key_home_or_top, "Home/End", "top/bottom of the pane (End follows the stream)" },
	{ KC_FN | KEY_END, C_ANY, key_bottom, NULL, NULL },
	{ KC_ALT | '<', C_ANY, key_top, NULL, NULL },
	{ KC_ALT | '>', C_ANY, key_bottom, NULL, NULL },
	{ KC_FN | KEY_PPAGE, C_ANY, key_page, "PgUp/PgDn", "scroll the transcript (or the focused pane)" },
	{ KC_FN | KEY_NPAGE, C_ANY, key_page, NULL, NULL },
	{ KC_ALT | KC_FN | KEY_UP, C_ANY, key_line, "Alt+Up/Down", "scroll by a line (also Shift+Up/Down)" },
	{ KC_ALT | KC_FN | KEY_DOWN, C_ANY, key_line, NULL, NULL },
	{ KC_FN | KEY_SR, C_ANY, key_line, NULL, NULL },
	{ KC_FN | KEY_SF, C_ANY, key_line, NULL, NULL },
	{ KC_CTRL('f'), C_ANY, key_search_start, "Ctrl+F", "search the transcript" },
	{ KC_CTRL('o'), C_ANY, key_expand_all, "Ctrl+O", "expand or collapse the selected item, else all outputs, edits and thinking" },
	{ KC_ALT | 'v', C_EDIT, key_paste_image, "Alt+V", "paste an image from the clipboard (wl-paste, xclip) into the next prompt" },
	{ KC_CTRL('y'), C_ANY, key_copy, "Ctrl+Y", "copy the selected item, else the newest reply, as written (/copy N: a code block)" },
	{ KC_ALT | 'z', C_ANY, key_zoom, "Alt+Z, F2", "zoom the focused pane (transcript when typing)" },
	{ KC_FN | KEY_F(2), C_ANY, key_zoom, NULL, NULL },
	{ KC_FN | KEY_BTAB, C_ANY | C_BROWSE, key_mode, "Shift+Tab", "cycle the mode: ask, accept-edits, plan" },
	{ KC_ESC, C_ANY, key_escape, "Esc", "interrupt the running turn (or dismiss the cache-break note)" },
	{ KC_CTRL('c'), C_ALL, key_ctrl_c, "Ctrl+C", "clear the prompt; twice: quit" },
	{ KC_CTRL('l'), C_ALL, key_repaint, "Ctrl+L", "repaint the screen" },
	{ KC_CTRL('z'), C_ALL, key_suspend, "Ctrl+Z", "suspend tandem" },
	{ KC_FN | KEY_MOUSE, C_ANY, key_mouse, NULL, NULL },
};

static unsigned
keys_context(const struct app *a)
{
	if (approve_asking(a))
		return C_ASK;
	if (a->br.on)
		return C_BROWSE;
	if (a->mode == MODE_REASON)
		return C_REASON;
	if (a->mode == MODE_SEARCH)
		return C_SEARCH;
	if (a->ed.searching)
		return C_HIST;
	if (a->focus != PANE_INPUT)
		return C_PANE;
	if (approve_count(a) > 0 && ed_empty(&a->ed))
		return C_APPROVE | C_EDIT;
	return C_EDIT;
}

/* A key no binding took: text for whatever is being typed. */
static unsigned
keys_text(struct app *a, int key, unsigned ctx)
{
	char s[4];
	size_t n;

	if ((key & (KC_FN | KC_ALT)) != 0 || key < 0x20 || key == 0x7f)
		return 0;
	/* A question or the browser: keys that mean nothing there are not text. */
	if (ctx & (C_ASK | C_BROWSE))
		return KR_HANDLED;
	n = utf8_encode((uint32_t)key, s);
	if (ctx & C_HIST) {
		ed_search_type(&a->ed, s, n);
		return KR_INPUT;
	}
	if (ctx & C_PANE) {
		a->focus = PANE_INPUT;
		tr_select_none(a->tr);
		ed_insert(&a->ed, s, n);
		return KR_REDRAW;
	}
	ed_insert(keys_editor(a), s, n);
	return KR_INPUT;
}

static void
keys_apply(struct app *a, unsigned r)
{
	if (r & KR_RESIZE)
		app_dirty(a, D_LAYOUT | D_PANES);
	else if (r & KR_REDRAW)
		app_dirty(a, D_PANES);
	else if (r & KR_INPUT)
		app_dirty(a, D_INPUT);
}

/* A key as the picker takes it (askpick.h). */
static int
keys_pick(int key)
{
	switch (key) {
	case KC_FN | KEY_UP:
		return ASKPICK_UP;
	case KC_FN | KEY_DOWN:
	case '\t':
		return ASKPICK_DOWN;
	case '\r':
	case '\n':
	case KC_FN | KEY_ENTER:
		return ASKPICK_ENTER;
	case KC_ESC:
	case KC_ALT | KC_ESC:
		return ASKPICK_CANCEL;
	case 127:
	case KC_CTRL('h'):
	case KC_FN | KEY_BACKSPACE:
		return ASKPICK_BACKSPACE;
	}
	return (key & (KC_FN | KC_ALT)) != 0 || key < 0x20 ? ASKPICK_OTHER : key;
}

static void
keys_dispatch(struct app *a, int key, struct app_action *act)
{
	unsigned ctx = keys_context(a), r = 0;
	size_t i;

	if (a->hint.len > 0 && (!a->hint_sticky || key != KC_CTRL('c'))) {
		if (!a->hint_sticky || (a->mode == MODE_EDIT && !a->ed.searching && key != '\t')) {
			buf_reset(&a->hint);
			a->hint_sticky = false;
			app_dirty(a, D_INPUT);
		}
	}
	if (key != KC_CTRL('c'))
		a->ctrl_c_at = 0;
	if (key != KC_ESC)
		a->esc_at = 0;
	/* /mode yolo asked for its y: this key answers it, whatever it is. */
	if (a->yolo_confirm) {
		a->yolo_confirm = false;
		buf_reset(&a->hint);
		a->hint_sticky = false;
		if (key == 'y' || key == 'Y')
			app_mode_change(a, PERM_YOLO);
		else
			app_notice(a, ROLE_DIM, "mode stays %s", a->st.mode);
		keys_apply(a, KR_REDRAW);
		return;
	}
	/* ask_user's picker takes every key but those that work everywhere (Ctrl+C, Ctrl+L, Ctrl+Z). */
	if (askpick_on(a) && !a->br.on && key != KC_CTRL('c') && key != KC_CTRL('l') &&
	    key != KC_CTRL('z')) {
		askpick_key(a, keys_pick(key));
		return;
	}
	for (i = 0; i < sizeof key_table / sizeof key_table[0]; i++) {
		const struct key_binding *b = &key_table[i];

		if (b->key == key && (b->ctx & ctx)) {
			r = b->fn(a, key, act);
			if (r != 0)
				break;
		}
	}
	/* Two Escs read as one key: where they mean nothing more, they are an Esc. */
	if (r == 0 && key == (KC_ALT | KC_ESC)) {
		keys_dispatch(a, KC_ESC, act);
		return;
	}
	if (r == 0)
		r = keys_text(a, key, ctx);
	keys_apply(a, r);
}

/* Inside a bracketed paste everything is text, Enter included. */
static void
keys_paste(struct app *a, int key)
{
	char s[4];

	if (key == KC_PASTE_END) {
		a->paste = false;
		if (a->ed.searching)
			ed_search_type(&a->ed, a->pastebuf.data ? a->pastebuf.data : "", a->pastebuf.len);
		else
			ed_insert(keys_editor(a), a->pastebuf.data ? a->pastebuf.data : "", a->pastebuf.len);
		buf_reset(&a->pastebuf);
		if (a->focus != PANE_INPUT)
			a->focus = PANE_INPUT;
		app_dirty(a, D_LAYOUT | D_PANES);
		return;
	}
	/* Keys curses decoded from the pasted bytes are not text; an Esc before a character is dropped. */
	if (key & KC_FN)
		return;
	key &= ~KC_ALT;
	if (key == '\r')
		key = '\n';
	buf_append(&a->pastebuf, s, utf8_encode((uint32_t)key, s));
}

bool
keys_next(struct app *a, struct app_action *act)
{
	wint_t ch;
	int r;

	act->what = DO_NOTHING;
	act->text = NULL;
	while (!a->quit && (r = wget_wch(a->keywin, &ch)) != ERR) {
		int key = r == KEY_CODE_YES ? KC_FN | (int)ch : (int)ch;

		if (key == KC_ESC) {
			wint_t c2;
			int r2 = wget_wch(a->keywin, &c2);

			if (r2 == OK)
				key = KC_ALT | (int)c2;
			else if (r2 == KEY_CODE_YES)
				key = KC_ALT | KC_FN | (int)c2;
		}
		if (key == KC_PASTE_BEGIN) {
			a->paste = true;
			buf_reset(&a->pastebuf);
			continue;
		}
		if (a->paste) {
			keys_paste(a, key);
			continue;
		}
		if (key == (KC_FN | KEY_RESIZE))
			continue;
		if (key == KC_FOCUS_IN || key == KC_FOCUS_OUT) {
			notify_focus(a, key == KC_FOCUS_IN);
			continue;
		}
		notify_activity(a);
		keys_dispatch(a, key, act);
		if (act->what != DO_NOTHING)
			return true;
	}
	return false;
}

void
keys_setup(struct app *a)
{
	size_t i;

	a->keywin = newwin(1, 1, 0, 0);
	keypad(a->keywin, TRUE);
	nodelay(a->keywin, TRUE);
	/* Drawn once, never touched again: wget_wch will not repaint it over the panes. */
	wnoutrefresh(a->keywin);
	for (i = 0; i < sizeof key_seqs / sizeof key_seqs[0]; i++)
		define_key(key_seqs[i].seq, key_seqs[i].key);
	if (a->mouse) {
		mouseinterval(0);
		mousemask(BUTTON1_PRESSED | BUTTON4_PRESSED
#ifdef BUTTON5_PRESSED
		    | BUTTON5_PRESSED
#endif
		    , NULL);
	}
	buf_init(&a->pastebuf, 16 * 1024 * 1024);
}

void
keys_help(struct app *a)
{
	struct buf b = BUF_INIT(64 * 1024);
	size_t i;

	buf_puts(&b, "Keys:\n");
	for (i = 0; i < sizeof key_table / sizeof key_table[0]; i++) {
		const struct key_binding *k = &key_table[i];

		if (k->name != NULL && k->ctx != C_BROWSE)
			buf_printf(&b, "  %-12s %s\n", k->name, k->help);
	}
	buf_puts(&b, "In the turn browser (Ctrl+T):\n  Up/Down      choose a turn\n");
	for (i = 0; i < sizeof key_table / sizeof key_table[0]; i++) {
		const struct key_binding *k = &key_table[i];

		if (k->name != NULL && k->ctx == C_BROWSE)
			buf_printf(&b, "  %-12s %s\n", k->name, k->help);
	}
	buf_puts(&b, "Slash commands: /help lists them.");
	if (a->mouse)
		buf_puts(&b, "\nThe mouse wheel scrolls the pane under it; hold Shift to select text"
		    " (or start with --no-mouse).");
	tr_notice(a->tr, ROLE_DIM, buf_cstr(&b));
	tr_bottom(a->tr);
	buf_release(&b);
}
