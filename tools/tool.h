/*
 * tool: the tools the model can call, as one table.
 *
 * A tool's run function does the whole job synchronously and fills a
 * tool_out.  The agent calls it in a forked child (agent/exec.c), so a
 * slow tool never blocks the loop and can be killed; tests call it directly.
 * run_bash is the exception: it is spawned and streamed by agent/exec.c
 * through tools/run_bash.h, so its run is NULL.
 *
 * Tools never crash the agent: every failure is out->is_error with a text
 * that tells the model what to do next.
 */
#ifndef TANDEM_TOOL_H
#define TANDEM_TOOL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "sandbox.h"

enum tool_class {
	TOOL_READ_ONLY,		/* may run in parallel with other reads */
	TOOL_WRITE,		/* changes files: runs alone, in order */
	TOOL_HIGH_IMPACT	/* anything may happen (run_bash): runs alone */
};

/* Caps at the source (DESIGN.md §5). */
#define TOOL_READ_CAP	(20 * 1024)
#define TOOL_BASH_CAP	(30 * 1024)

struct tool_env {
	const char	*root;		/* the workspace root, a real path */
	const char	*session_dir;	/* where spills go; NULL: nowhere */
	const char	*snap_dir;	/* content-addressed snapshots; NULL: none */
	/* More roots the tools may use as the workspace (real paths), NULL-terminated; NULL: none. */
	const char *const *extra_roots;
	/*
	 * The path deny rules, asked about every path a tool reaches (after
	 * links) and every file a search or listing visits; NULL: none.
	 */
	const struct sandbox_policy *policy;
	/* The command sandbox (agent/jail.h) run_bash runs in; NULL: none. */
	struct jail	*jail;
};

struct tool_out {
	struct buf	 text;		/* what the model sees */
	bool		 is_error;
	/*
	 * Write tools: {"files":[{"path":rel,"before":sha|null,"after":sha|null}]}
	 * describing what they changed, for rewind.  NULL otherwise.  Owned.
	 */
	cJSON		*meta;
	/* Content blocks beyond the text (an MCP tool's images), or NULL.  Owned. */
	cJSON		*blocks;
};

struct tool_def;
/* An asynchronous call's result; out is the callback's to use during the call. */
typedef void tool_async_done_fn(void *arg, struct tool_out *out, int64_t duration_ms);
/* What an asynchronous call says while it runs (shown live, as a command's output). */
typedef void tool_async_progress_fn(void *arg, const char *p, size_t n);
/*
 * Tools that run on the loop instead of in a child (MCP tools).  start
 * never calls done before it returns; cancel makes done come soon, with
 * an interrupted result.  progress and done get arg.
 */
struct tool_async {
	void	*(*start)(const struct tool_def *, const cJSON *input, const char *id,
		    tool_async_progress_fn *progress, tool_async_done_fn *done, void *arg);
	void	 (*cancel)(void *job);
};

/* The background shells' tools, run in tandem itself by agent/bgshell.c. */
enum tool_shell_op { TOOL_SHELL_NONE, TOOL_SHELL_OUTPUT, TOOL_SHELL_KILL };

struct tool_def {
	const char	*name;
	const char	*description;
	const char	*schema;	/* the input_schema, as JSON text */
	enum tool_class	 cls;
	void		(*run)(const struct tool_env *, const cJSON *input, struct tool_out *);
	/*
	 * Write tools: the unified diff the change would make, without making
	 * it; 0, or -1 with the reason in diff (then the tool would fail).
	 */
	int		(*preview)(const struct tool_env *, const cJSON *input, struct buf *diff);
	/* May run in parallel with reads although its class is not TOOL_READ_ONLY. */
	bool		 parallel;
	const struct tool_async *async;	/* non-NULL: run through it, not in a child */
	void		*owner;		/* the async tool's own data */
	enum tool_shell_op shell_op;	/* not NONE: run on the loop by agent/bgshell.c */
	const char	*needs;		/* a tool without which this one is off too, or NULL */
};

/* The table, NULL-terminated, in the order the model sees the tools. */
extern const struct tool_def *const tool_table[];

const struct tool_def *tool_find(const char *name);

void	tool_out_init(struct tool_out *);
void	tool_out_release(struct tool_out *);
/* Set the text (replacing it) and the error flag; printf-style. */
void	tool_out_error(struct tool_out *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* The confinement for env's paths (sandbox.h): its roots and policy. */
void	tool_sandbox(const struct tool_env *, struct sandbox *);
/* Does env's policy deny path (relative to the root, or absolute) for access? */
bool	tool_denied(const struct tool_env *, enum sandbox_access, const char *path);
/* "[N files were left out by deny rules]\n" when n > 0. */
void	tool_note_denied(struct buf *, size_t n);

/* Make the text valid UTF-8 (paths and contents may hold any bytes). */
void	tool_out_sanitize(struct tool_out *);
/*
 * An optional whole-number argument (a JSON number or a numeric string):
 * 0 with *v set (def when absent), or -1 with the error in out.
 */
int	tool_int_arg(const cJSON *input, const char *key, int64_t def, int64_t *v,
	    struct tool_out *out);

/* Each tool's definition, from its own file. */
extern const struct tool_def tool_read_file;
extern const struct tool_def tool_list_dir;
extern const struct tool_def tool_glob;
extern const struct tool_def tool_grep;
extern const struct tool_def tool_run_bash;
extern const struct tool_def tool_edit_file;
extern const struct tool_def tool_write_file;
extern const struct tool_def tool_apply_patch;
extern const struct tool_def tool_bash_output;
extern const struct tool_def tool_kill_shell;
extern const struct tool_def tool_todo_write;
extern const struct tool_def tool_exit_plan;
extern const struct tool_def tool_ask_user;

#endif
