/*
 * app: the TUI's one application context, shared by the tui/ modules
 * that use it, and their functions.
 *
 * There is one struct app per tui_run; it owns every model (transcript,
 * tools, status, editors, approvals, the diff view, the turn browser) and
 * every curses window; the agent and the settings are the caller's.
 * Internal: front ends use tui.h.
 *
 * Who calls whom (no circle; each arrow points down):
 *   tui.c      the loop: terminal, event stream in, frames out, and the
 *              actions keys and commands return (struct app_action)
 *   keys.c     keys to handlers (one table); returns actions
 *   cmds.c     slash commands (one table); returns actions
 *   paint.c    composes a frame from a table of {pane, dirty, paint}
 *   browse.c   the turn browser's keys and rewind / redo / fork
 *   approve.c  approvals and questions: their state (approve.h), the
 *              diff view's content, their pane; $VISUAL through visual.c
 *   app.c      the services every module may call (a leaf)
 * and below them the modules that know no app: draw (curses rows),
 * visual ($VISUAL as a child), udiff (diffs and the diff view), mdview
 * and mdline (Markdown), transcript, toolview, status, editor, sline,
 * wrap, theme, layout.
 */
#ifndef TANDEM_TUI_APP_H
#define TANDEM_TUI_APP_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include <curses.h>
#include <cjson/cJSON.h>

#include "agent.h"
#include "approve.h"
#include "askpick.h"
#include "bang.h"
#include "browse.h"
#include "buf.h"
#include "commands.h"
#include "draw.h"
#include "editor.h"
#include "layout.h"
#include "mention.h"
#include "notify.h"
#include "paste.h"
#include "queue.h"
#include "sline.h"
#include "status.h"
#include "theme.h"
#include "todoview.h"
#include "toolview.h"
#include "transcript.h"
#include "udiff.h"
#include "xalloc.h"

struct tui_opts;
struct tui_stats;

#define APP_FRAME_MS	16	/* at most ~60 frames a second */
#define APP_TICK_MS	100	/* the spinner, while a tool runs or a retry waits */
#define APP_QUIT_MS	2000	/* a second Ctrl+C within this quits */

struct config;

/*
 * The agent's calls, and those of the settings, sessions and custom
 * commands modules, through a table so that replays link without them.
 */
struct tui_backend {
	int		 (*submit)(struct agent *, const char *prompt);
	bool		 (*busy)(const struct agent *);
	void		 (*answer)(struct agent *, const char *id, enum approval, const char *reason,
			    const cJSON *edited_input);
	void		 (*interrupt)(struct agent *);
	int		 (*compact)(struct agent *, const char *focus);
	int		 (*clear_all)(struct agent *);
	void		 (*report)(struct agent *, const char *what, struct buf *out);
	enum perm_mode	 (*mode)(const struct agent *);
	void		 (*set_mode)(struct agent *, enum perm_mode);
	const char	*(*model)(const struct agent *);
	void		 (*set_model)(struct agent *, const char *model);
	void		 (*list_models)(struct agent *, agent_models_fn *, void *arg);
	const char	*(*effort)(const struct agent *);
	void		 (*set_effort)(struct agent *, const char *level);
	const char	*(*mode_name)(enum perm_mode);
	int		 (*rewind)(struct agent *, int turn, enum rewind_what, bool force, struct buf *report);
	int		 (*redo)(struct agent *, bool force, struct buf *report);
	int		 (*fork_at)(struct agent *, int turn, struct buf *report);
	cJSON		*(*turns)(struct agent *);
	int		 (*turn_diff)(struct agent *, int turn, struct buf *out, struct buf *err);
	void		 (*replay)(struct agent *);
	int		 (*resume)(struct agent *, const char *id, struct buf *report);
	const char	*(*forked_from)(const struct agent *);
	/* These take the settings (tui_opts.cfg); never called without them. */
	void		 (*sessions)(const char *home, const char *root, struct buf *out);
	void		 (*commands_scan)(const struct config *, struct command_list *);
	void		 (*commands_release)(struct command_list *);
	int		 (*commands_expand)(const struct config *, const char *line, struct buf *prompt,
			    struct buf *err);
	/* The built-in prompt commands, /init and /review (agent/promptcmd.h); the same answers. */
	int		 (*prompt_expand)(const struct config *, const char *line, struct buf *prompt,
			    struct buf *err);
	void		 (*trust_items)(const struct config *, struct buf *out);
	int		 (*trust)(const struct config *, struct buf *err);
	void		 (*apply_trusted)(struct config *);
	struct usercmd	*(*user_command)(struct agent *, const char *command, usercmd_output_fn *,
			    usercmd_done_fn *, void *arg);
	void		 (*user_command_kill)(struct usercmd *);
	void		 (*attach)(struct agent *, const char *text);
	const char	*(*session_dir)(const struct agent *);
	void		 (*files_main)(void *app);	/* a child's body listing the workspace (arg: struct app) */
	void		 (*mcp_mentions)(struct agent *, struct buf *out);	/* NULL: none */
	int		 (*attach_image)(struct agent *, const char *file, const char *name, struct buf *err);
};

/* What must be painted in the next frame. */
enum {
	D_TRANSCRIPT	= 1 << PANE_TRANSCRIPT,
	D_TOOLS		= 1 << PANE_TOOLS,
	D_DIFF		= 1 << PANE_DIFF,
	D_APPROVAL	= 1 << PANE_APPROVAL,
	D_INPUT		= 1 << PANE_INPUT,
	D_STATUS	= 1 << PANE_STATUS,
	D_PLAN		= 1 << PANE_PLAN,
	D_PANES		= (1 << PANE_COUNT) - 1,
	D_LAYOUT	= 1 << 8,	/* place the windows again */
	D_CLEAR		= 1 << 9	/* the terminal lost its contents: send everything */
};

/* Where keys go. */
enum app_mode {
	MODE_EDIT,		/* the input editor */
	MODE_REASON,		/* typing why an approval is denied */
	MODE_SEARCH		/* typing a transcript search */
};

/*
 * What a key or a slash command asks of the loop.  Handlers change the
 * state their own module owns and return the rest as an action, which
 * tui.c performs (its tui_dos table), so no module calls up into the
 * loop.  A new kind is a DO_ value and one row in that table.
 */
enum app_do {
	DO_NOTHING,
	DO_SEND,		/* text: a line from the input: a slash command, else a prompt */
	DO_SUBMIT,		/* text: a prompt for the agent */
	DO_KEYS_HELP,		/* list the keys */
	DO_EDIT,		/* the first pending approval's proposal in $VISUAL */
	DO_SUSPEND,		/* give the terminal back and stop (Ctrl+Z) */
	DO_QUIT,
	DO_COUNT
};

struct app_action {
	enum app_do	 what;
	char		*text;		/* DO_SEND, DO_SUBMIT: the action's own (tui.c frees it) */
};


struct app {
	struct ev_loop		*loop;
	struct event_bus	*bus;
	const struct tui_backend *be;
	struct agent		*agent;
	struct config		*cfg;		/* may be NULL (replays): no trust, custom commands or sessions */
	bool			 mouse, print_on_exit;
	char			 themes_dir[PATH_MAX];

	SCREEN			*screen;
	WINDOW			*win[PANE_COUNT];
	struct rect		 rect[PANE_COUNT];
	struct layout_req	 req;
	struct theme		 theme;
	enum theme_depth	 depth;
	bool			 no_color;
	bool			 ascii_glyphs;	/* the locale is not UTF-8, or TERM=linux */
	bool			 yolo_confirm;	/* /mode yolo waits for its y */
	struct draw_roles	 roles;		/* each role's curses attributes and colour pair */

	struct transcript	*tr;
	struct toolview		 tools;
	struct status		 st;
	struct editor		 ed;
	struct editor		 aux;		/* the reason or search line */
	enum app_mode		 mode;
	struct buf		 hint;		/* shown on the input's rule */
	bool			 hint_sticky;	/* kept until the next key */

	struct approvals	 ap;		/* approve.c's: the queue, the question, the editor */
	char			*deferred_prompt;	/* the initial prompt, sent once the trust question is answered */
	struct udiff_view	 diff;		/* the diff pane: approve.c fills it, it paints itself */
	int			 tools_scroll;	/* rows up from the newest */

	int			 focus;		/* PANE_INPUT or a pane being browsed */
	int			 zoom;		/* -1 or a pane */
	bool			 expand_all;
	char			 cwd[PATH_MAX];
	char			 session_id[64];	/* of the last session event */
	bool			 no_resume_line;	/* tui_opts.no_resume_line */
	int			 turn;		/* the newest turn seen */
	bool			 local_busy;	/* a turn_start without its turn_end */

	struct browser		 br;		/* the turn browser, over the transcript */
	int			 resend_turn;	/* > 0: the prompt being edited replaces this turn's */
	int			 rewound_turn;	/* the last rewind this screen saw (for a forced redo) */
	int			 rewound_what;
	int64_t			 esc_at;	/* the last lone Esc, for Esc Esc */
	char			**cmd_names;	/* for completion: built-in and custom, rebuilt on use */
	size_t			 ncmd_names;

	unsigned		 dirty;		/* marked by app_dirty, painted by the loop */
	bool			 away;		/* the terminal is handed over ($EDITOR, Ctrl+Z) */
	uint64_t		 tick_timer;
	int64_t			 last_frame;
	int			 spin;
	bool			 paste;		/* inside a bracketed paste */
	struct buf		 pastebuf;
	WINDOW			*keywin;	/* read from, never drawn: getch must not repaint */
	int64_t			 ctrl_c_at;
	bool			 quit;
	int			 end_signal;	/* SIGTERM or SIGHUP ended it; 0: the user did */
	int			 status_code;
	struct tui_stats	*stats;
	struct bang		 bang;		/* a "!command" (bang.h) */
	struct queue		 queue;		/* type-ahead (queue.h) */
	struct mention		 mention;	/* @path completion (mention.h) */
	struct notify		 notify;	/* telling the user tandem waits (notify.h) */
	struct paste		 clip;		/* an image from the clipboard (paste.h) */
	struct todoview		 todo;		/* the model's todo list, now and per turn (todoview.h) */
	struct askpick		*pick;		/* ask_user's questions being answered (askpick.h), or NULL */
	struct statusline	*sl;		/* the statusLine command (statusline.h); NULL: none */
	bool			 sl_warned;	/* its failure was said once */
	int64_t			 opened_at;	/* ms, for the status line's duration */
};

/* tui.c */
/* The screen for any backend (NULL agent: prompts are only echoed); start runs once set up. */
int	 tui_main(struct ev_loop *, struct event_bus *, const struct tui_backend *, struct agent *,
	    const struct tui_opts *, struct tui_stats *, void (*start)(struct app *, void *), void *arg);

/* app.c: the services, a leaf (it calls no other tui/ module that uses struct app). */
/* Mark what the next frame paints; the loop paints once per iteration, at most every APP_FRAME_MS. */
void	 app_dirty(struct app *, unsigned what);
void	 app_quit(struct app *);
bool	 app_busy(const struct app *);
void	 app_notice(struct app *, int role, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void	 app_submit(struct app *, const char *text);
/* Forget the transcript and the tools (a new conversation, or one replayed from the agent). */
void	 app_reset_view(struct app *);
void	 app_set_hint(struct app *, bool sticky, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void	 app_tick_arm(struct app *);
const char *app_mode_name(const struct app *, enum perm_mode);
/* What a mode means, in one line. */
const char *app_mode_what(enum perm_mode);
/* Change to mode m, and say so in the transcript. */
void	 app_mode_change(struct app *, enum perm_mode m);
/* Give the terminal back (for $EDITOR or Ctrl+Z): no key is read nor frame painted until enter. */
void	 app_screen_leave(struct app *);
void	 app_screen_enter(struct app *);
/* The terminal's size again (SIGWINCH); a no-op while it is handed over. */
void	 app_resize(struct app *);
/* Bracketed paste on or off. */
void	 app_term_modes(bool on);

/* paint.c */
void	 paint_theme_apply(struct app *);
void	 paint_frame(struct app *);
/* Windows for the current layout. */
void	 paint_place(struct app *);
void	 paint_free(struct app *);
/* Rows the tools pane wants in the stacked layout. */
int	 paint_tool_rows(struct app *);
/* Which pane holds screen cell (y, x), or -1. */
int	 paint_pane_at(const struct app *, int y, int x);

/* keys.c */
void	 keys_setup(struct app *);
/* Read and handle keys until one asks the loop for something (true, act set) or none are left. */
bool	 keys_next(struct app *, struct app_action *act);
/* A notice listing the keys. */
void	 keys_help(struct app *);

/* cmds.c */
/* Run a slash command line ("/theme light"); false when text is not one; then: what the loop does next. */
bool	 cmds_run(struct app *, const char *text, struct app_action *then);
/* The command names ("/help", ...; custom ones too), for completion; owned by the app. */
const char *const *cmds_names(struct app *, size_t *n);
void	 cmds_free(struct app *);
void	 cmds_help(struct app *);
/* Switch themes; 0, or -1 with a notice naming the problem. */
int	 cmds_theme(struct app *, const char *name);

/* approve.c (its state: approve.h) */
void	 approve_request(struct app *, const cJSON *ev);
/* Approval requests waiting for an answer. */
size_t	 approve_count(const struct app *);
/* Paint the approval pane (the first request's prompt line, or the question). */
void	 approve_paint(struct app *);
/* The pending approval for id was settled elsewhere (rule, hook, interrupt). */
void	 approve_settled(struct app *, const char *id);
/* Answer the first pending approval. */
void	 approve_answer(struct app *, enum approval, const char *reason, const cJSON *edited);
/*
 * Edit the proposal in $VISUAL/$EDITOR and approve the edited input.  The
 * editor runs as a child on the loop (visual.h); the answer goes when it
 * exits, if the request still waits.
 */
void	 approve_edit(struct app *);
/* tandem is leaving: stop an open editor. */
void	 approve_edit_stop(struct app *);
/* The prompt line for the first pending approval. */
void	 approve_prompt(struct app *, struct sline *out);
/* Show the diff of the first pending approval (or keep the last one). */
void	 approve_show(struct app *);
void	 approve_free(struct app *);
/* Ask a yes-or-no question (it takes the keys until answered); fn gets the answer and arg. */
void	 approve_ask(struct app *, const char *question, ask_fn *fn, const int arg[2]);
void	 approve_ask_answer(struct app *, bool yes);
bool	 approve_asking(const struct app *);

/* browse.c */
/* Open the turn browser (pick: to choose an earlier prompt to edit). */
void	 browse_open(struct app *, bool pick);
void	 browse_close(struct app *);
/* Move the selection (or scroll a turn shown in full); INT_MIN/INT_MAX: first/last. */
void	 browse_move(struct app *, int delta);
void	 browse_enter(struct app *);
void	 browse_back(struct app *);
/* r, f, b, k, u or d on the selected turn. */
void	 browse_act(struct app *, int key);
/* Turn's changes (tools' and commands') as a unified diff in the diff pane. */
void	 browse_diff(struct app *, int turn);
/* Rewind, redo, fork, asking before files changed outside tandem are overwritten. */
void	 browse_rewind(struct app *, int turn, enum rewind_what);
void	 browse_redo(struct app *);
void	 browse_fork(struct app *, int turn);
/* Send text in place of turn a->resend_turn's prompt; -1 if the rewind failed. */
int	 browse_resend(struct app *, const char *text);

#endif
