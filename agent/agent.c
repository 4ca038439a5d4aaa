/*
 * The agent: one conversation and its turn loop (DESIGN.md §4).
 *
 * A turn: the prompt goes into the conversation; a model call streams the
 * answer (text out as events at once, each tool_use scheduled as soon as
 * its block completes); when the stream has ended and every tool has its
 * result, the stop reason decides: send the results and call again, end,
 * continue after max_tokens, or resend after pause_turn.  Failures of the
 * transport are retried with backoff; everything is on the loop.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "attach.h"
#include "cachewatch.h"
#include "compact.h"
#include "config.h"
#include "conv.h"
#include "ev.h"
#include "fsutil.h"
#include "event.h"
#include "http.h"
#include "hooks.h"
#include "json.h"
#include "memory.h"
#include "modelcat.h"
#include "models.h"
#include "perm.h"
#include "provider.h"
#include "redact.h"
#include "sandbox.h"
#include "sched.h"
#include "session.h"
#include "stream.h"
#include "xalloc.h"

#define AGENT_MAX_CONTINUATIONS	3
#define AGENT_MAX_STOP_BLOCKS	3	/* Stop hooks that keep a turn going, in a row */
#define AGENT_SESSION_END_MS	5000	/* how long SessionEnd hooks may hold the exit */
#define AGENT_ERRBODY_MAX	(256 * 1024)
#define AGENT_PROGRESS_FULL	(2u * 1024 * 1024)

struct agent {
	struct ev_loop		*loop;
	struct event_bus	*bus;
	const struct config	*cfg;
	bool			 interactive;
	struct http		*http;
	struct sched		*sched;
	struct tool_env		 env;
	struct sandbox_policy	 policy;	/* the deny rules, for the tools' walks */
	struct conv		 conv;
	cJSON			*tools;
	char			*sys_static;
	char			*sys_dynamic;
	char			*model;
	char			*base_url;
	struct session		*session;
	bool			 resumed;	/* the session was resumed, not started */
	char			*snap_dir;
	bool			 checkpoint_a;	/* side-effecting tools may run */
	bool			 fork_dry_run;	/* a fork's first run_bash is shown, not run */
	enum stream_proto	 proto;
	enum perm_mode		 mode;
	struct perm_rules	*session_rules;	/* "always" answers */
	struct redact_stream	 progress_redact;	/* the running call's output */

	/* The turn in progress. */
	bool			 busy;
	bool			 interrupting;
	bool			 failed;
	bool			 unsaved_told;	/* the session's failed write was reported */
	int			 turn;
	int			 calls;		/* model calls in this turn */
	int			 continuations;
	int			 attempt;	/* retries of this call */
	struct http_req		*req;
	struct stream		*stream;
	long			 status;
	struct buf		 errbody;
	bool			 stream_done;	/* the response is complete and recorded */
	char			*stop_reason;
	bool			 paused;	/* pause_turn: the next response goes on with this one */
	bool			 continuing;	/* the next response's text goes on with the answer */
	struct buf		 answer;	/* the text of the turn's answer: the result's */
	uint64_t		 retry_timer;
	size_t			 progress_bytes;

	struct usage		 last, totals;
	double			 cost;

	/* The model: its limits and capabilities, prices, the key (models.h, modelcat.h). */
	struct modelcat		*cat;
	struct model_caps	 caps;		/* of model, as best known now */
	struct prices		*prices;
	char			*effort;	/* /effort, else the setting; NULL: none */
	char			*helper_key;	/* apiKeyHelper's output */
	bool			 helper_retried; /* a 401 ran the helper again for this call */
	bool			 models_waited;	/* the first request of model waited once */
	bool			 caps_sent;	/* a request of model went out with caps */
	uint64_t		 models_timer;	/* that wait */
	int64_t			 est_sent;	/* the estimated tokens of the request in flight */
	bool			 think_noted;	/* the note about an unused setting was given */
	char			*models_note;	/* why the limits come from the table */

	/* Context economy. */
	struct cachewatch	*cw;
	struct compact_thresholds th;
	enum compact_stage	 stage;		/* the deepest stage applied */
	int			 summary_failures;
	bool			 overflow_retried;
	struct {
		struct http_req	*req;
		struct stream	*stream;
		long		 status;
		struct buf	 errbody;
		int		 keep;
		int64_t		 tokens_before;
		bool		 then_call;	/* a model call waits for it */
	} sum;
	bool			 compacting;	/* a /compact summary is running */

	cJSON			*attach;	/* content blocks for the next prompt (agent_attach) */

	/* For the turn's record in the log (the turn browser reads it). */
	char			*turn_prompt;
	int64_t			 turn_started;
	cJSON			*turn_tools;
	int64_t			 turn_tokens;

	/* Hooks and memory files (hooks.h, memory.h). */
	struct hooks		*hooks;
	struct hook_run		*hook_run;	/* UserPromptSubmit or Stop: the turn waits for it */
	struct hook_run		*start_run;	/* SessionStart */
	bool			 prompt_waits;	/* the prompt waits for SessionStart */
	bool			 hook_stop;	/* a hook said "continue": false */
	int			 stop_blocks;	/* Stop hooks that kept this turn going */
	char			*session_context;	/* SessionStart hooks' additionalContext */
	char			*memory;	/* the memory files, for the dynamic system prompt */
	char			*memory_report;	/* for /memory */
};

static void agent_call_model(struct agent *);
static bool agent_next_call(struct agent *);
static bool agent_stop_hooks(struct agent *);
static void agent_fail(struct agent *, const char *, ...) __attribute__((format(printf, 2, 3)));
static void agent_prompt_hooks(struct agent *);
static void agent_hooks_ignored(void *, struct hook_outcome *);
static void agent_proceed(struct agent *);
static void agent_replay_history(struct agent *);
static void agent_end_turn(struct agent *, const char *, bool);
static int agent_reconcile(struct agent *);
static char *agent_system_text(const struct agent *);
static void agent_compacted(struct agent *, enum compact_stage, int64_t, int64_t);
static int64_t agent_window(const struct agent *);

static const char system_static[] =
    "You are tandem, a coding agent pair-programming with a developer in their "
    "terminal. You work in their repository through tools: read_file, list_dir, "
    "glob and grep to look; edit_file, write_file and apply_patch to change files; "
    "run_bash to build, test and run. The developer sees every tool call, approves "
    "edits and commands, and can rewind any turn.\n\n"
    "Work like a careful senior engineer: read before you edit, make the smallest "
    "change that does the job, keep the code's existing style, and run the tests "
    "when there are any. Prefer edit_file with enough context to match exactly "
    "once. Use paths relative to the workspace root. Several independent read-only "
    "tool calls may be made in one response; they run in parallel. When a tool "
    "fails, read its message: it says what to do next. If the user denies a call, "
    "do not retry it unchanged. Be brief: say what you did and what is left, "
    "without repeating file contents the user can see.";

const char *
agent_system_prompt(void)
{
	return system_static;
}

const char *
agent_session_id(const struct agent *a)
{
	return session_id(a->session);
}

const char *
agent_session_dir(const struct agent *a)
{
	return a->session != NULL ? session_dir(a->session) : NULL;
}

const char *
agent_model(const struct agent *a)
{
	return a->model;
}

static void agent_models_done(void *, const char *, enum modelcat_outcome, const char *);

static void agent_emit_window(struct agent *);

void
agent_set_model(struct agent *a, const char *model)
{
	int64_t before = agent_window(a);

	free(a->model);
	a->model = xstrdup(model);
	model_caps_release(&a->caps);
	modelcat_get(a->cat, a->model, &a->caps);
	a->models_waited = false;
	a->caps_sent = false;
	a->think_noted = false;
	/* The next request is shaped, and compacted, for the new model's window. */
	(void)modelcat_refresh(a->cat, a->model, agent_models_done, a);
	if (agent_window(a) != before)
		agent_emit_window(a);
}

void
agent_set_effort(struct agent *a, const char *level)
{
	free(a->effort);
	a->effort = level != NULL && level[0] != '\0' ? xstrdup(level) : NULL;
	a->think_noted = false;
}

const char *
agent_effort(const struct agent *a)
{
	return a->effort;
}

const struct model_caps *
agent_model_caps(const struct agent *a)
{
	return &a->caps;
}

struct agent_models_req {
	struct agent		*a;
	agent_models_fn		*fn;
	void			*arg;
};

static void
agent_models_listed(void *arg, cJSON *list, const char *err)
{
	struct agent_models_req *r = arg;
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	if (list != NULL) {
		modelcat_format(list, r->a->prices, r->a->model, &out);
		r->fn(r->arg, buf_cstr(&out), NULL);
	} else {
		r->fn(r->arg, NULL, err);
	}
	cJSON_Delete(list);
	buf_release(&out);
	free(r);
}

void
agent_list_models(struct agent *a, agent_models_fn *fn, void *arg)
{
	struct agent_models_req *r = xcalloc(1, sizeof *r);

	r->a = a;
	r->fn = fn;
	r->arg = arg;
	modelcat_list_start(a->cat, agent_models_listed, r);
}

enum perm_mode
agent_mode(const struct agent *a)
{
	return a->mode;
}

void
agent_set_mode(struct agent *a, enum perm_mode mode)
{
	a->mode = mode;
}

bool
agent_busy(const struct agent *a)
{
	return a->busy || a->compacting;
}

/* The context window: the setting, else the model's. */
static int64_t
agent_window(const struct agent *a)
{
	return a->cfg->context_window > 0 ? a->cfg->context_window :
	    a->caps.window > 0 ? a->caps.window : 128000;
}

/*
 * The window in the units of compact_estimate (bytes / 4): the estimate is
 * calibrated per model by the usage the server reports, so thresholds hold
 * under a tokenizer that counts more tokens for the same text.
 */
static int64_t
agent_est_window(const struct agent *a)
{
	double c = a->caps.calib > 0 ? a->caps.calib : 1.0;

	return (int64_t)((double)agent_window(a) / c);
}

/* Tokens for an estimate of est (bytes / 4), calibrated. */
static int64_t
agent_est_tokens(const struct agent *a, int64_t est)
{
	return a->caps.calib > 0 ? (int64_t)((double)est * a->caps.calib) : est;
}

/* Who is asking: the key (apiKeyHelper's output first), a gateway token, headers. */
static void
agent_auth(const struct agent *a, struct provider_request *pr)
{
	pr->proto = a->proto;
	pr->base_url = a->base_url;
	pr->api_key = a->helper_key != NULL ? a->helper_key : a->cfg->api_key;
	pr->auth_token = a->cfg->auth_token;
	pr->custom_headers = a->cfg->custom_headers;
}

static struct curl_slist *
agent_auth_headers(void *arg)
{
	struct provider_request pr;

	memset(&pr, 0, sizeof pr);
	agent_auth(arg, &pr);
	return provider_auth_headers(&pr);
}

int
agent_key_helper(const struct config *cfg, char **key, struct buf *err)
{
	struct buf out = BUF_INIT(64 * 1024);
	char chunk[4096];
	size_t n;
	FILE *p;
	int st;

	*key = NULL;
	if (cfg->api_key_helper == NULL)
		return 0;
	p = popen(cfg->api_key_helper, "r");
	if (p == NULL) {
		buf_printf(err, "apiKeyHelper could not be run: %s", strerror(errno));
		return -1;
	}
	while ((n = fread(chunk, 1, sizeof chunk, p)) > 0)
		(void)buf_append(&out, chunk, n);
	st = pclose(p);
	n = strcspn(buf_cstr(&out), "\r\n");
	if (st != 0 || n == 0) {
		buf_printf(err, "apiKeyHelper (%s) %s", cfg->api_key_helper,
		    st != 0 ? "failed" : "printed no key");
		buf_release(&out);
		return -1;
	}
	*key = xstrndup(buf_cstr(&out), n);
	/* The helper's key is a secret like the environment's: never shown, logged or sent on. */
	redact_add(*key);
	buf_release(&out);
	return 0;
}

static int
agent_run_key_helper(struct agent *a, struct buf *err)
{
	char *key;

	if (agent_key_helper(a->cfg, &key, err) == -1)
		return -1;
	if (key != NULL) {
		free(a->helper_key);
		a->helper_key = key;
	}
	return 0;
}

/* Say once, as a notice, that a setting has no effect on this model. */
static void
agent_note_setting(struct agent *a, const char *setting, const char *why)
{
	if (a->think_noted)
		return;
	a->think_noted = true;
	event_error(a->bus, 0, "%s is not used: %s %s", setting, a->model, why);
}

/*
 * What the request says of output length, thinking and effort: only what
 * this model takes (its caps), whatever the settings hold.
 */
static void
agent_shape_request(struct agent *a, struct provider_request *pr)
{
	const struct model_caps *c = &a->caps;
	const char *th = a->cfg->thinking != NULL ? a->cfg->thinking : "auto";
	bool adaptive = (c->thinking & MODEL_THINK_ADAPTIVE) != 0;
	bool budget = (c->thinking & MODEL_THINK_ENABLED) != 0;
	bool want_budget = strcmp(th, "enabled") == 0 ||
	    (strcmp(th, "auto") == 0 && a->cfg->thinking_budget > 0);

	pr->max_tokens = a->cfg->max_tokens;
	if (c->max_output > 0 && pr->max_tokens > c->max_output)
		pr->max_tokens = (int)c->max_output;
	pr->max_output = (long)c->max_output;
	pr->completion_tokens = a->proto == STREAM_OPENAI && c->completion_tokens;
	pr->thinking = PROVIDER_THINK_NONE;
	if (a->proto == STREAM_ANTHROPIC) {
		if (strcmp(th, "off") == 0)
			pr->thinking = adaptive && c->adaptive_default ? PROVIDER_THINK_OFF : PROVIDER_THINK_NONE;
		else if (want_budget && budget) {
			pr->thinking = PROVIDER_THINK_BUDGET;
			pr->thinking_budget = a->cfg->thinking_budget > 0 ? a->cfg->thinking_budget : 4096;
		} else if (want_budget && adaptive) {
			pr->thinking = PROVIDER_THINK_ADAPTIVE;
			agent_note_setting(a, "thinking_budget", "thinks adaptively and takes no "
			    "thinking budget; set effort instead");
		} else if (adaptive && strcmp(th, "enabled") != 0)
			pr->thinking = PROVIDER_THINK_ADAPTIVE;
	}
	pr->effort = NULL;
	if (a->effort != NULL && (a->proto == STREAM_ANTHROPIC || c->completion_tokens)) {
		if (a->proto == STREAM_OPENAI || model_has_effort(c, a->effort))
			pr->effort = a->effort;
		else
			agent_note_setting(a, "effort", "does not list that level (`tandem models` "
			    "shows the levels it takes)");
	}
}

/* A context event for a window that changed (the status bar shows it). */
static void
agent_emit_window(struct agent *a)
{
	cJSON *ev = event_new(a->bus, "context");

	cJSON_AddNumberToObject(ev, "tokens", (double)(a->last.input + a->last.cache_write +
	    a->last.cache_read + a->last.output));
	cJSON_AddNumberToObject(ev, "window", (double)agent_window(a));
	cJSON_AddStringToObject(ev, "stage", compact_stage_name(a->stage));
	event_emit(a->bus, ev);
}

/* The catalogue answered for model: take the new caps, and send a request that waited. */
static void
agent_models_done(void *arg, const char *model, enum modelcat_outcome out, const char *note)
{
	struct agent *a = arg;

	int64_t before = agent_window(a);

	if (strcmp(model, a->model) != 0)
		return;
	/*
	 * Once a request went out with what was known, the session keeps it
	 * (a change of thinking or max_tokens mid-session breaks the prompt
	 * cache); the answer is cached for the next session.
	 */
	if (a->caps_sent) {
		if (a->models_timer != 0) {
			ev_timer_cancel(a->loop, a->models_timer);
			a->models_timer = 0;
			agent_call_model(a);
		}
		return;
	}
	model_caps_release(&a->caps);
	modelcat_get(a->cat, a->model, &a->caps);
	if (agent_window(a) != before)
		agent_emit_window(a);
	free(a->models_note);
	a->models_note = out != MODELCAT_FOUND ? xstrdup(note) : NULL;
	if (out == MODELCAT_UNKNOWN_MODEL)
		event_error(a->bus, 0, "%s", note);
	if (a->models_timer != 0) {
		ev_timer_cancel(a->loop, a->models_timer);
		a->models_timer = 0;
		agent_call_model(a);
	}
}

static void
agent_models_waited(struct ev_loop *loop, void *arg)
{
	struct agent *a = arg;

	(void)loop;
	a->models_timer = 0;
	agent_call_model(a);
}

/*
 * With nothing known of the model but the table and its answer on the way,
 * the first request waits a bounded time for it.  True: it waits.
 */
static bool
agent_wait_for_models(struct agent *a)
{
	if (a->models_waited || a->caps.source != MODEL_TABLE || a->cfg->models_wait_ms <= 0 ||
	    !modelcat_busy(a->cat, a->model))
		return false;
	a->models_waited = true;
	a->models_timer = ev_timer_add(a->loop, a->cfg->models_wait_ms, agent_models_waited, a);
	return true;
}

/* Learn how many real tokens an estimated one is, from the usage of the last request. */
static void
agent_calibrate(struct agent *a, const struct usage *u)
{
	int64_t real = u->input + u->cache_read + u->cache_write;
	double r, c;

	if (a->est_sent < 256 || real <= 0)
		return;
	r = (double)real / (double)a->est_sent;
	if (r < 0.25 || r > 4.0)
		return;
	c = a->caps.calib > 0 ? 0.5 * a->caps.calib + 0.5 * r : r;
	a->caps.calib = c;
	modelcat_calibrate(a->cat, a->model, c);
}

static double
agent_cost(const struct agent *a, const struct usage *u)
{
	return prices_cost(prices_find(a->prices, a->model), u, a->cfg->cache_ttl_ms > 300000);
}

/* Is name in the comma-separated list of disabled tools? */
static bool
agent_tool_disabled(const struct config *cfg, const char *name)
{
	const char *p = cfg->disabled_tools;
	size_t n = strlen(name);

	while (p != NULL && *p != '\0') {
		size_t k = strcspn(p, ", ");

		if (k == n && strncmp(p, name, n) == 0)
			return true;
		p += k;
		p += strspn(p, ", ");
	}
	return false;
}

/* The git branch, read from .git/HEAD without starting a process. */
static void
agent_git_branch(const char *root, struct buf *out)
{
	struct buf path = BUF_INIT(8192);
	char head[512];
	ssize_t n;
	int fd;

	buf_printf(&path, "%s/.git/HEAD", root);
	fd = open(buf_cstr(&path), O_RDONLY | O_CLOEXEC);
	buf_release(&path);
	if (fd == -1)
		return;
	n = read(fd, head, sizeof head - 1);
	close(fd);
	if (n <= 0)
		return;
	head[n] = '\0';
	head[strcspn(head, "\r\n")] = '\0';
	if (strncmp(head, "ref: refs/heads/", 16) == 0)
		buf_puts(out, head + 16);
	else
		buf_printf(out, "(detached at %.12s)", head);
}

static void
agent_build_dynamic(struct agent *a)
{
	struct buf d = BUF_INIT(BUF_NOLIMIT), branch = BUF_INIT(1024);
	char date[64];
	time_t now = time(NULL);
	struct tm tm;
	size_t i;

	localtime_r(&now, &tm);
	strftime(date, sizeof date, "%Y-%m-%d", &tm);
	agent_git_branch(a->cfg->root, &branch);
	buf_printf(&d, "Today's date: %s\nWorkspace root: %s\n", date, a->cfg->root);
	for (i = 0; a->cfg->add_dirs != NULL && a->cfg->add_dirs[i] != NULL; i++)
		buf_printf(&d, "Also usable by the file tools (give absolute paths): %s\n",
		    a->cfg->add_dirs[i]);
	if (branch.len > 0)
		buf_printf(&d, "Git branch: %s\n", buf_cstr(&branch));
	if (a->session_context != NULL)
		buf_printf(&d, "\n%s\n", a->session_context);
	if (a->memory != NULL && a->memory[0] != '\0')
		buf_printf(&d, "\n%s", a->memory);
	buf_release(&branch);
	free(a->sys_dynamic);
	a->sys_dynamic = buf_detach(&d, NULL);
}

static cJSON *
agent_tools_json(const struct config *cfg)
{
	cJSON *arr = cJSON_CreateArray();
	size_t i;

	for (i = 0; tool_table[i] != NULL; i++) {
		const struct tool_def *t = tool_table[i];
		cJSON *o, *schema;

		if (agent_tool_disabled(cfg, t->name))
			continue;
		o = cJSON_CreateObject();
		schema = cJSON_Parse(t->schema);

		if (schema == NULL)
			fatal("the input schema of tool %s is not valid JSON", t->name);
		cJSON_AddStringToObject(o, "name", t->name);
		cJSON_AddStringToObject(o, "description", t->description);
		cJSON_AddItemToObject(o, "input_schema", schema);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

/* The tools' policy: the configured deny rules, on the path a walk reached. */
static bool
agent_path_denied(void *arg, enum sandbox_access access, const char *path)
{
	return perm_path_denied(arg, access, path);
}

static void
agent_use_session(struct agent *a, struct session *sess)
{
	struct buf p = BUF_INIT(8192);

	session_close(a->session);
	a->session = sess;
	buf_printf(&p, "%s/files", session_dir(sess));
	free(a->snap_dir);
	a->snap_dir = buf_detach(&p, NULL);
	a->env.root = a->cfg->root;
	a->env.session_dir = session_dir(sess);
	a->env.snap_dir = a->snap_dir;
	a->env.extra_roots = (const char *const *)a->cfg->add_dirs;
	a->policy.denied = agent_path_denied;
	a->policy.arg = a->cfg->rules;
	a->env.policy = &a->policy;
	buf_reset(&p);
	buf_printf(&p, "%s/log.jsonl", session_dir(sess));
	hooks_set_session(a->hooks, session_id(sess), buf_cstr(&p));
	buf_release(&p);
}

#define AGENT_NOT_SAVED "not run: the session could not be saved, so nothing more runs in this turn"

/*
 * A write the session's promises rest on failed: say so once (the
 * session's sentence names the directory and the cause).  -1.
 */
static int
agent_unsaved(struct agent *a)
{
	const char *why = session_error(a->session);

	if (!a->unsaved_told) {
		cJSON *ev = event_new(a->bus, "session_unsaved");

		a->unsaved_told = true;
		event_error(a->bus, 1, "%s", why != NULL ? why : "could not save the session");
		cJSON_AddStringToObject(ev, "message", why != NULL ? why : "");
		cJSON_AddStringToObject(ev, "dir", session_dir(a->session));
		event_emit(a->bus, ev);
	}
	a->failed = true;
	return -1;
}

/*
 * After agent_unsaved: stop the turn before anything more is sent or
 * run.  Calls not yet run end unrun; the turn ends once each has its
 * result.  -1.
 */
static int
agent_halt(struct agent *a)
{
	agent_unsaved(a);
	if (!a->busy)
		return -1;
	if (sched_pending(a->sched) > 0) {
		if (!a->interrupting) {
			a->interrupting = true;
			a->stream_done = true;
			sched_interrupt(a->sched, AGENT_NOT_SAVED);
		}
		return -1;
	}
	agent_end_turn(a, "error", true);
	return -1;
}

/* Add a message to the conversation and to the log.  0, or -1 (reported). */
static int
agent_add(struct agent *a, const char *role, cJSON *content)
{
	conv_add(&a->conv, role, content, a->turn);
	if (session_log_message(a->session, conv_last(&a->conv)) == -1)
		return agent_unsaved(a);
	return 0;
}

/* Append blocks (an array, taken) to the last message, in memory and in the log. */
static int
agent_extend_last(struct agent *a, cJSON *blocks)
{
	cJSON *rec = cJSON_CreateObject(), *dst = json_get(conv_last(&a->conv), "content"), *b;

	cJSON_AddStringToObject(rec, "k", "extend");
	cJSON_AddItemToObject(rec, "content", cJSON_Duplicate(blocks, 1));
	while ((b = blocks->child) != NULL)
		cJSON_AddItemToArray(dst, cJSON_DetachItemViaPointer(blocks, b));
	cJSON_Delete(blocks);
	if (session_append(a->session, rec) == -1)
		return agent_unsaved(a);
	return 0;
}

static bool
agent_last_is(const struct agent *a, const char *role)
{
	const cJSON *last = conv_last(&a->conv);

	return last != NULL && strcmp(json_str(last, "role", ""), role) == 0;
}

/*
 * Blocks (an array, taken) for the model.  After an answer that was empty
 * or interrupted the last message is already the user's: they join it, as
 * two user messages in a row would make the next request invalid.
 */
static int
agent_add_user(struct agent *a, cJSON *content)
{
	if (agent_last_is(a, "user"))
		return agent_extend_last(a, content);
	return agent_add(a, "user", content);
}

static cJSON *
agent_text_block(const char *text)
{
	cJSON *b = cJSON_CreateObject();

	cJSON_AddStringToObject(b, "type", "text");
	cJSON_AddStringToObject(b, "text", text);
	return b;
}

static int
agent_add_text(struct agent *a, const char *text)
{
	cJSON *content = cJSON_CreateArray();

	cJSON_AddItemToArray(content, agent_text_block(text));
	return agent_add_user(a, content);
}

static int64_t
agent_tokens_used(const struct agent *a)
{
	return a->last.input + a->last.cache_read + a->last.cache_write + a->last.output;
}

/*
 * The response named its tools and is in the log: checkpoint A, after
 * which side-effecting tools may run (read-only ones may already have).
 */
static int
agent_checkpoint_a(struct agent *a)
{
	cJSON *pending = cJSON_CreateArray(), *b;
	int rc;

	cJSON_ArrayForEach(b, json_get(conv_last(&a->conv), "content"))
		if (strcmp(json_str(b, "type", ""), "tool_use") == 0)
			cJSON_AddItemToArray(pending, cJSON_Duplicate(b, 1));
	rc = session_checkpoint(a->session, 'A', a->turn, a->calls, agent_tokens_used(a), pending);
	cJSON_Delete(pending);
	/* Without checkpoint A on disk nothing with side effects may run. */
	if (rc == -1)
		return agent_unsaved(a);
	a->checkpoint_a = true;
	/* An interrupted turn starts nothing: its waiting calls end unrun. */
	if (!a->interrupting)
		sched_kick(a->sched);
	return 0;
}

static void
agent_emit_session(struct agent *a, bool resumed)
{
	cJSON *ev = event_new(a->bus, "session");

	cJSON_AddStringToObject(ev, "id", session_id(a->session));
	cJSON_AddStringToObject(ev, "model", a->model);
	cJSON_AddStringToObject(ev, "provider", a->proto == STREAM_OPENAI ? "openai" : "anthropic");
	cJSON_AddStringToObject(ev, "cwd", a->cfg->root);
	cJSON_AddBoolToObject(ev, "resumed", resumed);
	event_emit(a->bus, ev);
}

/* --- permissions and the scheduler's callbacks --------------------------- */

static void
agent_emit_approval(struct agent *a, const char *id, const char *decision, const char *by)
{
	cJSON *ev = event_new(a->bus, "approval");

	cJSON_AddStringToObject(ev, "id", id);
	cJSON_AddStringToObject(ev, "decision", decision);
	cJSON_AddStringToObject(ev, "by", by);
	event_emit(a->bus, ev);
}

/*
 * Why c asks, into reason, and the rules an "always" answer adds (see
 * perm_explain); hook_reason is set when a PreToolUse hook asked.
 */
static char **
agent_explain(struct agent *a, const struct sched_call *c, const cJSON *input, bool hook_ask,
    const char *hook_reason, struct buf *reason)
{
	struct buf scratch = BUF_INIT(4096);
	bool fork_first = a->fork_dry_run && strcmp(c->name, "run_bash") == 0;
	char **always = perm_explain(a->cfg->rules, a->mode, c->name, c->tool->cls, input,
	    hook_ask || fork_first ? &scratch : reason);

	if (hook_ask)
		buf_printf(reason, "a PreToolUse hook asked for approval%s%s",
		    hook_reason != NULL ? ": " : "", hook_reason != NULL ? hook_reason : "");
	else if (fork_first)
		buf_puts(reason, "this session is a fork: its first command is shown before it runs");
	buf_release(&scratch);
	return always;
}

static void
agent_headless_hint(struct agent *a, const struct sched_call *c, struct buf *why)
{
	struct buf reason = BUF_INIT(4096), flags = BUF_INIT(BUF_NOLIMIT);
	char **always = agent_explain(a, c, c->input, false, NULL, &reason);
	size_t i;

	for (i = 0; always[i] != NULL; i++)
		buf_printf(&flags, "%s--allow '%s'", i > 0 ? " " : "", always[i]);
	buf_printf(why, "%s needs approval (%s), and in headless mode nobody can give it. ",
	    c->name, buf_cstr(&reason));
	if (c->tool->cls == TOOL_WRITE)
		buf_printf(why, "The user can rerun with --permission-mode accept-edits, or %s.",
		    buf_cstr(&flags));
	else
		buf_printf(why, "The user can rerun with %s, or --permission-mode yolo.",
		    buf_cstr(&flags));
	perm_strv_free(always);
	buf_release(&reason);
	buf_release(&flags);
}

/* A hook's warnings and messages, for the user. */
static void
agent_hook_notes(struct agent *a, const struct hook_outcome *o)
{
	if (o->warnings != NULL)
		event_error(a->bus, 0, "%s", o->warnings);
	if (o->system_message != NULL)
		event_error(a->bus, 0, "%s", o->system_message);
	if (o->stop && !a->hook_stop) {
		a->hook_stop = true;
		event_error(a->bus, 0, "a hook ended the turn%s%s", o->stop_reason != NULL ? ": " : "",
		    o->stop_reason != NULL ? o->stop_reason : "");
	}
}

static void
agent_kick(void *arg)
{
	struct agent *a = arg;

	sched_kick(a->sched);
}

/*
 * Apply what the PreToolUse hooks said about c: SCHED_GO or SCHED_REFUSE,
 * or -1 to go on with the verdict *v (the input may have been rewritten,
 * and was then checked against the rules again).
 */
static int
agent_pre_hooks(struct agent *a, struct sched_call *c, struct hook_outcome *ho,
    enum perm_verdict *v, struct buf *why)
{
	agent_hook_notes(a, ho);
	if (ho->decision == HOOK_DENY || ho->stop) {
		buf_reset(why);
		buf_printf(why, "A PreToolUse hook refused this call: %s", ho->reason != NULL ?
		    ho->reason : ho->stop_reason != NULL ? ho->stop_reason : "it ended the turn");
		agent_emit_approval(a, c->id, "deny", "hook");
		return SCHED_REFUSE;
	}
	if (ho->updated_input != NULL) {
		cJSON_Delete(c->input);
		c->input = ho->updated_input;
		ho->updated_input = NULL;
		buf_reset(why);
		*v = perm_check(a->cfg->rules, a->mode, c->name, c->tool->cls, c->input, why);
		if (*v == PERM_VERDICT_DENY) {
			agent_emit_approval(a, c->id, "deny", a->mode == PERM_PLAN ? "mode" : "rule");
			return SCHED_REFUSE;
		}
	}
	/* A fork's first command still waits for the user. */
	if (ho->decision == HOOK_ALLOW && !(a->fork_dry_run && strcmp(c->name, "run_bash") == 0)) {
		agent_emit_approval(a, c->id, "allow", "hook");
		return SCHED_GO;
	}
	if (ho->decision == HOOK_ASK && !a->interactive) {
		buf_reset(why);
		buf_puts(why, "A PreToolUse hook asked for the user's approval of this call");
		if (ho->reason != NULL)
			buf_printf(why, " (%s)", ho->reason);
		buf_puts(why, ", and in headless mode nobody can give it.");
		agent_emit_approval(a, c->id, "deny", "hook");
		return SCHED_REFUSE;
	}
	if (ho->decision == HOOK_ASK)
		*v = PERM_VERDICT_ASK;
	return -1;
}

static enum sched_gate
agent_gate(void *arg, struct sched_call *c, struct buf *why)
{
	struct agent *a = arg;
	enum perm_verdict v;
	struct buf preview = BUF_INIT(8u * 1024 * 1024);
	struct buf reason = BUF_INIT(4096);
	struct hook_outcome ho;
	char *hook_reason, **always;
	bool hook_ask;
	cJSON *ev, *list;
	size_t i;
	int g;

	if (agent_tool_disabled(a->cfg, c->name)) {
		buf_printf(why, "the tool %s is disabled in this session", c->name);
		return SCHED_REFUSE;
	}
	/* Nothing runs that the session could not record. */
	if (session_error(a->session) != NULL) {
		buf_puts(why, AGENT_NOT_SAVED);
		return SCHED_REFUSE;
	}
	/* Side effects wait until checkpoint A records who asked for them. */
	if (c->tool->cls != TOOL_READ_ONLY && !a->checkpoint_a)
		return SCHED_LATER;
	v = perm_check(a->cfg->rules, a->mode, c->name, c->tool->cls, c->input, why);
	/* In a fork, the first command is shown, not run, until the user confirms. */
	if (a->fork_dry_run && strcmp(c->name, "run_bash") == 0 && v != PERM_VERDICT_DENY) {
		if (!a->interactive) {
			buf_reset(why);
			buf_printf(why, "dry run: this session is a fork, so its first command is "
			    "shown and not run: %s\nNothing was executed; ask the user to confirm "
			    "before running commands here.", json_str(c->input, "command", ""));
			a->fork_dry_run = false;
			return SCHED_REFUSE;
		}
		v = PERM_VERDICT_ASK;
	}
	if (v == PERM_VERDICT_DENY) {
		agent_emit_approval(a, c->id, "deny", a->mode == PERM_PLAN ? "mode" : "rule");
		return SCHED_REFUSE;
	}
	/* PreToolUse hooks come after the rules and the mode (DESIGN.md §4, step 5). */
	if (hooks_pre_tool(a->hooks, c->id, c->name, c->input, a->mode, agent_kick, a, &ho) == 1)
		return SCHED_LATER;
	g = agent_pre_hooks(a, c, &ho, &v, why);
	hook_ask = ho.decision == HOOK_ASK;
	hook_reason = ho.reason != NULL ? xstrdup(ho.reason) : NULL;
	hook_outcome_release(&ho);
	if (g >= 0) {
		free(hook_reason);
		return (enum sched_gate)g;
	}
	if (v == PERM_VERDICT_ASK && !a->fork_dry_run && !hook_ask) {
		struct buf w2 = BUF_INIT(1024);
		/*
		 * "Always" rules allow what they name, and together with the allow
		 * rules (the ask rules still asking) a command part by part.
		 */
		struct perm_rules *session = perm_rules_dup(a->session_rules);

		perm_rules_merge_list(session, a->cfg->rules, PERM_LIST_ALLOW);
		perm_rules_merge_list(session, a->cfg->rules, PERM_LIST_ASK);
		if (perm_rules_count(a->session_rules, PERM_LIST_ALLOW) > 0 &&
		    (perm_check(a->session_rules, PERM_ASK, c->name, c->tool->cls, c->input,
		    &w2) == PERM_VERDICT_ALLOW ||
		    perm_check(session, PERM_ASK, c->name, c->tool->cls, c->input, &w2) ==
		    PERM_VERDICT_ALLOW)) {
			buf_release(&w2);
			perm_rules_free(session);
			agent_emit_approval(a, c->id, "allow", "rule");
			return SCHED_GO;
		}
		perm_rules_free(session);
		buf_release(&w2);
	}
	if (v == PERM_VERDICT_ALLOW) {
		if (c->tool->cls != TOOL_READ_ONLY)
			agent_emit_approval(a, c->id, "allow", a->mode == PERM_YOLO ||
			    a->mode == PERM_ACCEPT_EDITS ? "mode" : "rule");
		return SCHED_GO;
	}
	buf_reset(why);
	if (!a->interactive) {
		free(hook_reason);
		agent_headless_hint(a, c, why);
		agent_emit_approval(a, c->id, "deny", "mode");
		return SCHED_REFUSE;
	}
	if (c->tool->preview != NULL) {
		if (c->tool->preview(&a->env, c->input, &preview) == -1) {
			/* The change cannot be made as asked: no need to ask anyone. */
			buf_puts(why, buf_cstr(&preview));
			buf_release(&preview);
			free(hook_reason);
			c->denied = false;
			return SCHED_REFUSE;
		}
	} else {
		buf_printf(&preview, "$ %s\n(in %s)", json_str(c->input, "command", ""), a->cfg->root);
	}
	ev = event_new(a->bus, "approval_request");
	cJSON_AddStringToObject(ev, "id", c->id);
	cJSON_AddStringToObject(ev, "name", c->name);
	cJSON_AddItemToObject(ev, "input", cJSON_Duplicate(c->input, 1));
	json_add_str_n(ev, "preview", buf_cstr(&preview), preview.len);
	cJSON_AddStringToObject(ev, "cwd", a->cfg->root);
	always = agent_explain(a, c, c->input, hook_ask, hook_reason, &reason);
	cJSON_AddStringToObject(ev, "reason", buf_cstr(&reason));
	list = cJSON_AddArrayToObject(ev, "always");
	for (i = 0; always[i] != NULL; i++)
		cJSON_AddItemToArray(list, cJSON_CreateString(always[i]));
	event_emit(a->bus, ev);
	perm_strv_free(always);
	free(hook_reason);
	buf_release(&reason);
	buf_release(&preview);
	return SCHED_ASK;
}

static void
agent_started(void *arg, struct sched_call *c)
{
	struct agent *a = arg;

	a->progress_bytes = 0;
	crash_point("tool-started");
}

static void
agent_emit_progress(struct agent *a, const char *id, const char *p, size_t n)
{
	cJSON *ev = event_new(a->bus, "tool_progress");

	cJSON_AddStringToObject(ev, "id", id);
	json_add_str_n(ev, "output", p, n);
	cJSON_AddNumberToObject(ev, "bytes", (double)n);
	event_emit(a->bus, ev);
}

static void
agent_progress(void *arg, struct sched_call *c, const char *p, size_t n)
{
	struct agent *a = arg;
	struct buf clean = BUF_INIT(BUF_NOLIMIT);

	/* Past a few MB only the newest bytes matter to anyone watching. */
	a->progress_bytes += n;
	if (a->progress_bytes > AGENT_PROGRESS_FULL && n > 2048) {
		p += n - 2048;
		n = 2048;
	}
	/* A key is replaced before anyone sees it, even split across two reads. */
	redact_stream_feed(&a->progress_redact, p, n, &clean);
	if (clean.len > 0)
		agent_emit_progress(a, c->id, clean.data, clean.len);
	buf_release(&clean);
}

/*
 * Keep what tandem wrote, so that a rewind can be redone.  A snapshot
 * that cannot be written fails the session: a later rewind would promise
 * what it cannot restore.  0 or -1.
 */
static int
agent_snapshot_after(struct agent *a, const cJSON *files)
{
	const cJSON *f;
	int rc = 0;

	cJSON_ArrayForEach(f, files) {
		struct buf err = BUF_INIT(4096);
		struct sandbox sb = { a->cfg->root, (const char *const *)a->cfg->add_dirs, NULL };
		struct sandbox_at at;
		char *data = NULL, hex[SHA256_HEX_LEN + 1];
		size_t len = 0;

		/* read through the walk's descriptor, as the tool wrote it */
		if (rc == 0 && json_str(f, "after", NULL) != NULL &&
		    sandbox_walk(&sb, json_str(f, "path", ""), SANDBOX_READ, SANDBOX_MUST_EXIST,
		    &at, &err) == 0) {
			if (fsutil_read_at(&at, FSUTIL_MAX_FILE, &data, &len, &err) == 0) {
				errno = 0;
				if (fsutil_snapshot(a->snap_dir, data, len, hex, &err) == -1)
					rc = session_fail(a->session, "files/", errno != 0 ? errno : EIO);
			}
			sandbox_at_release(&at);
		}
		free(data);
		buf_release(&err);
	}
	return rc;
}

/* A PostToolUse hook's word for the model goes with the call's result. */
static void
agent_post_hooked(void *arg, const char *id, struct hook_outcome *o)
{
	struct agent *a = arg;
	struct sched_call *c = sched_find(a->sched, id);

	agent_hook_notes(a, o);
	if (c != NULL && o->decision == HOOK_BLOCK && o->reason != NULL)
		buf_printf(&c->result, "\n\nPostToolUse hook: %s", o->reason);
	if (c != NULL && o->additional_context != NULL)
		buf_printf(&c->result, "\n\n%s", o->additional_context);
	if (c != NULL)
		redact_buf(&c->result);
	if (a->busy && a->stream_done && sched_pending(a->sched) == 0 &&
	    hooks_post_pending(a->hooks) == 0)
		agent_proceed(a);
}

static void
agent_finished(void *arg, struct sched_call *c)
{
	struct agent *a = arg;
	struct buf rest = BUF_INIT(BUF_NOLIMIT);
	cJSON *ev;

	redact_stream_flush(&a->progress_redact, &rest);
	if (rest.len > 0)
		agent_emit_progress(a, c->id, rest.data, rest.len);
	buf_release(&rest);
	/* Before it is logged, shown, handed to hooks or sent: no key in it. */
	redact_buf(&c->result);
	if (c->tool != NULL && c->tool->cls != TOOL_READ_ONLY && c->ran) {
		crash_point("tool-done");
		if (session_effect(a->session, c->id, c->name, buf_cstr(&c->result), c->is_error) == -1)
			agent_unsaved(a);
	}
	if (c->meta != NULL && cJSON_GetArraySize(json_get(c->meta, "files")) > 0) {
		cJSON *rec = cJSON_CreateObject();

		cJSON_AddStringToObject(rec, "k", "files");
		cJSON_AddNumberToObject(rec, "turn", a->turn);
		cJSON_AddStringToObject(rec, "id", c->id);
		cJSON_AddItemToObject(rec, "files", cJSON_Duplicate(json_get(c->meta, "files"), 1));
		/* The calls after this one are refused by the gate; the turn ends when they are. */
		if (session_append(a->session, rec) == -1 ||
		    agent_snapshot_after(a, json_get(c->meta, "files")) == -1)
			agent_unsaved(a);
	}
	if (a->turn_tools != NULL)
		cJSON_AddItemToArray(a->turn_tools, cJSON_CreateString(c->name));
	ev = event_new(a->bus, "tool_result");

	cJSON_AddStringToObject(ev, "id", c->id);
	cJSON_AddStringToObject(ev, "name", c->name);
	cJSON_AddBoolToObject(ev, "is_error", c->is_error);
	json_add_str_n(ev, "content", buf_cstr(&c->result), c->result.len);
	cJSON_AddNumberToObject(ev, "duration_ms", (double)c->duration_ms);
	if (c->denied)
		cJSON_AddBoolToObject(ev, "denied", 1);
	event_emit(a->bus, ev);
	if (c->ran && session_error(a->session) == NULL)
		hooks_post_tool(a->hooks, c->id, c->name, c->input, buf_cstr(&c->result),
		    c->result.len, c->is_error, a->mode, agent_post_hooked, a);
}

static void
agent_tools_idle(void *arg)
{
	struct agent *a = arg;

	if (a->stream_done && hooks_post_pending(a->hooks) == 0)
		agent_proceed(a);
}

/* --- the stream ---------------------------------------------------------- */

static void
agent_on_text(void *arg, int index, const char *s, size_t n)
{
	struct agent *a = arg;
	cJSON *ev = event_new(a->bus, "text");

	json_add_str_n(ev, "text", s, n);
	event_emit(a->bus, ev);
}

static void
agent_on_thinking(void *arg, int index, const char *s, size_t n)
{
	struct agent *a = arg;
	cJSON *ev = event_new(a->bus, "thinking");

	json_add_str_n(ev, "text", s, n);
	event_emit(a->bus, ev);
}

static void
agent_on_block(void *arg, int index, const cJSON *block)
{
	struct agent *a = arg;
	cJSON *ev;

	/* A call cut off before its block stopped is never run (nor recorded). */
	if (strcmp(json_str(block, "type", ""), "tool_use") != 0 || a->interrupting ||
	    json_bool(block, "_incomplete", false))
		return;
	ev = event_new(a->bus, "tool_use");
	cJSON_AddStringToObject(ev, "id", json_str(block, "id", ""));
	cJSON_AddStringToObject(ev, "name", json_str(block, "name", ""));
	cJSON_AddItemToObject(ev, "input", cJSON_Duplicate(json_get(block, "input"), 1));
	event_emit(a->bus, ev);
	sched_add(a->sched, json_str(block, "id", ""), json_str(block, "name", ""),
	    json_get(block, "input"), json_str(block, "_input_error", NULL));
}

/* --- ending a turn ------------------------------------------------------- */

static cJSON *
agent_usage_json(const struct usage *u)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "input_tokens", (double)u->input);
	cJSON_AddNumberToObject(o, "output_tokens", (double)u->output);
	cJSON_AddNumberToObject(o, "cache_creation_input_tokens", (double)u->cache_write);
	cJSON_AddNumberToObject(o, "cache_read_input_tokens", (double)u->cache_read);
	return o;
}

/* The prompt cache's fingerprint, for the next process that resumes this session. */
static int
agent_save_cache_state(struct agent *a)
{
	struct buf path = BUF_INIT(8192);
	cJSON *st = cachewatch_save(a->cw);
	char *text = cJSON_PrintUnformatted(st);
	int rc = 0;

	buf_printf(&path, "%s/cache.json", session_dir(a->session));
	if (session_write_atomic(buf_cstr(&path), text, strlen(text), NULL) == -1)
		rc = session_fail(a->session, "cache.json", errno);
	cJSON_free(text);
	cJSON_Delete(st);
	buf_release(&path);
	return rc;
}

static void
agent_load_cache_state(struct agent *a)
{
	struct buf path = BUF_INIT(8192);
	FILE *f;

	buf_printf(&path, "%s/cache.json", session_dir(a->session));
	f = fopen(buf_cstr(&path), "r");
	if (f != NULL) {
		char data[1 << 16];
		struct buf all = BUF_INIT(64u * 1024 * 1024);
		size_t n;
		cJSON *j;

		while ((n = fread(data, 1, sizeof data, f)) > 0)
			if (buf_append(&all, data, n) == -1)
				break;
		fclose(f);
		j = cJSON_ParseWithLength(buf_cstr(&all), all.len);
		if (j != NULL)
			cachewatch_load(a->cw, j);	/* advisory: a bad file is ignored */
		cJSON_Delete(j);
		buf_release(&all);
	}
	buf_release(&path);
}

static void
agent_end_turn(struct agent *a, const char *stop_reason, bool failed)
{
	cJSON *ev;

	{
		cJSON *rec = cJSON_CreateObject();

		cJSON_AddStringToObject(rec, "k", "turn");
		cJSON_AddNumberToObject(rec, "turn", a->turn);
		cJSON_AddStringToObject(rec, "prompt", a->turn_prompt != NULL ? a->turn_prompt : "");
		cJSON_AddItemToObject(rec, "tools", a->turn_tools != NULL ? a->turn_tools : cJSON_CreateArray());
		a->turn_tools = NULL;
		cJSON_AddNumberToObject(rec, "tokens",
		    (double)(a->totals.input + a->totals.output + a->totals.cache_read +
		    a->totals.cache_write - a->turn_tokens));
		cJSON_AddNumberToObject(rec, "ms", (double)(ev_now_ms() - a->turn_started));
		cJSON_AddNumberToObject(rec, "time", (double)time(NULL));
		cJSON_AddStringToObject(rec, "stop_reason", stop_reason);
		/* A turn whose record is not on disk is not shown as done. */
		if (session_error(a->session) != NULL) {
			cJSON_Delete(rec);
		} else if (session_append(a->session, rec) == -1 || session_sync(a->session) == -1 ||
		    agent_save_cache_state(a) == -1) {
			agent_unsaved(a);
		}
		if (session_error(a->session) != NULL) {
			stop_reason = "error";
			failed = true;
		}
	}
	a->busy = false;
	a->interrupting = false;
	if (a->retry_timer != 0)
		ev_timer_cancel(a->loop, a->retry_timer);
	a->retry_timer = 0;
	hooks_cancel_tools(a->hooks);
	hooks_cancel(a->hook_run);
	a->hook_run = NULL;
	a->prompt_waits = false;
	sched_reset(a->sched);
	ev = event_new(a->bus, "turn_end");
	cJSON_AddStringToObject(ev, "stop_reason", stop_reason);
	event_emit(a->bus, ev);
	ev = event_new(a->bus, "result");
	json_add_str_n(ev, "text", buf_cstr(&a->answer), a->answer.len);
	cJSON_AddStringToObject(ev, "stop_reason", stop_reason);
	cJSON_AddBoolToObject(ev, "is_error", failed);
	cJSON_AddNumberToObject(ev, "turns", a->calls);
	{
		cJSON *u = agent_usage_json(&a->totals);

		cJSON_AddNumberToObject(u, "cost_usd", a->cost);
		cJSON_AddItemToObject(ev, "usage", u);
	}
	cJSON_AddStringToObject(ev, "session_id", session_id(a->session));
	event_emit(a->bus, ev);
}

static void
agent_fail(struct agent *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
agent_fail(struct agent *a, const char *fmt, ...)
{
	struct buf m = BUF_INIT(64 * 1024);
	va_list ap;

	va_start(ap, fmt);
	buf_vprintf(&m, fmt, ap);
	va_end(ap);
	event_error(a->bus, 1, "%s", buf_cstr(&m));
	buf_release(&m);
	a->failed = true;
	/* Every tool_use must still get its result before the turn ends. */
	if (sched_pending(a->sched) > 0) {
		a->interrupting = true;
		a->stream_done = true;
		sched_interrupt(a->sched, "the turn failed before this call ran");
		return;
	}
	agent_end_turn(a, "error", true);
}

/* --- the model call ------------------------------------------------------ */

static void
agent_drop_stream(struct agent *a)
{
	stream_free(a->stream);
	a->stream = NULL;
	a->req = NULL;
	buf_release(&a->errbody);
}

static bool
agent_retryable_status(long status)
{
	return status == 408 || status == 409 || status == 429 || status >= 500;
}

static int64_t
agent_retry_base_ms(void)
{
	const char *s = getenv("TANDEM_RETRY_BASE_MS");
	char *end;
	long v;

	if (s == NULL || *s == '\0')
		return 500;
	v = strtol(s, &end, 10);
	return *end == '\0' && v >= 0 ? v : 500;
}

static int64_t
agent_retry_after(struct http_req *req)
{
	const char *ms = req != NULL ? http_header(req, "retry-after-ms") : NULL;
	const char *s = req != NULL ? http_header(req, "retry-after") : NULL;
	char *end;
	double v;

	if (ms != NULL) {
		v = strtod(ms, &end);
		if (end != ms && v > 0 && v <= 60000)
			return (int64_t)v;
	}
	if (s != NULL) {
		struct tm tm;
		const char *rest;

		v = strtod(s, &end);
		if (end != s && v > 0 && v <= 60)
			return (int64_t)(v * 1000);
		/* Or an HTTP date: "Wed, 21 Oct 2026 07:28:00 GMT". */
		memset(&tm, 0, sizeof tm);
		rest = strptime(s, "%a, %d %b %Y %H:%M:%S GMT", &tm);
		if (rest != NULL && *rest == '\0') {
			double d = difftime(timegm(&tm), time(NULL));

			if (d > 0 && d <= 60)
				return (int64_t)(d * 1000);
			if (d <= 0)
				return 0;
		}
	}
	return -1;
}

static void
agent_retry_now(struct ev_loop *loop, void *arg)
{
	struct agent *a = arg;

	a->retry_timer = 0;
	agent_call_model(a);
}

/* Retry the call after a backoff, or fail the turn when out of attempts. */
static void
agent_retry(struct agent *a, struct http_req *req, const char *reason)
{
	int64_t delay = agent_retry_after(req), base = agent_retry_base_ms(), cap = base * 16;
	cJSON *ev;

	if (a->attempt >= a->cfg->retries) {
		agent_drop_stream(a);
		agent_fail(a, "%s (gave up after %d attempts)", reason, a->attempt + 1);
		return;
	}
	a->attempt++;
	if (delay < 0) {
		double d = (double)base;
		int i;

		for (i = 1; i < a->attempt && d < (double)cap; i++)
			d *= 2;

		if (d > (double)cap)
			d = (double)cap;
		d *= 1.0 - 0.25 * ((double)rand() / RAND_MAX);
		delay = (int64_t)d;
	}
	agent_drop_stream(a);
	ev = event_new(a->bus, "retry");
	cJSON_AddNumberToObject(ev, "attempt", a->attempt);
	cJSON_AddNumberToObject(ev, "delay_ms", (double)delay);
	cJSON_AddStringToObject(ev, "reason", reason);
	event_emit(a->bus, ev);
	a->retry_timer = ev_timer_add(a->loop, delay, agent_retry_now, a);
}

static void
agent_on_headers(void *arg, struct http_req *req, long status)
{
	struct agent *a = arg;

	a->status = status;
	stream_set_content_type(a->stream, http_header(req, "content-type"));
}

static int
agent_on_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct agent *a = arg;
	unsigned long progress;
	int rc;

	if (a->status != 200) {
		if (a->errbody.len < AGENT_ERRBODY_MAX)
			buf_append(&a->errbody, p, n);
		return 0;
	}
	progress = stream_progress(a->stream);
	rc = stream_feed(a->stream, p, n);
	/* Only content keeps the stall timer from firing: not pings, not white space. */
	if (stream_progress(a->stream) != progress)
		http_progress(req);
	return rc;
}

static bool
agent_blank(const char *s)
{
	return s[strspn(s, " \t\r\n")] == '\0';
}

/*
 * Keep the blocks that can go back to the model.  A tool_use or thinking
 * block cut off before its content_block_stop cannot (broken input, no
 * signature); cut-off text can, and is what the user saw; a text block
 * with nothing but white space cannot (the API refuses it).
 */
static cJSON *
agent_complete_blocks(cJSON *content, int *ntools)
{
	cJSON *b, *next;

	*ntools = 0;
	for (b = content->child; b != NULL; b = next) {
		bool text = strcmp(json_str(b, "type", ""), "text") == 0;

		next = b->next;
		if (text && agent_blank(json_str(b, "text", "")))
			cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
		else if (text)
			cJSON_DeleteItemFromObjectCaseSensitive(b, "_incomplete");
		else if (json_bool(b, "_incomplete", false))
			cJSON_Delete(cJSON_DetachItemViaPointer(content, b));
		else if (strcmp(json_str(b, "type", ""), "tool_use") == 0)
			(*ntools)++;
	}
	return content;
}

/*
 * Record a response's content (taken): a new assistant message, or more
 * of the paused one after pause_turn.  Nothing is recorded for an empty
 * response: an empty assistant message would make the next request
 * invalid.  Its text becomes the answer, or goes on with it.
 */
static int
agent_record_response(struct agent *a, cJSON *content)
{
	const cJSON *b;
	bool extend = a->paused && agent_last_is(a, "assistant");

	if (!a->continuing)
		buf_reset(&a->answer);
	a->paused = a->continuing = false;
	cJSON_ArrayForEach(b, content)
		if (strcmp(json_str(b, "type", ""), "text") == 0)
			buf_puts(&a->answer, json_str(b, "text", ""));
	if (cJSON_GetArraySize(content) == 0) {
		cJSON_Delete(content);
		return 0;
	}
	if (extend)
		return agent_extend_last(a, content);
	return agent_add(a, "assistant", content);
}

static void
agent_record_usage(struct agent *a)
{
	bool has = false;
	struct usage u = stream_usage(a->stream, &has);
	double cost;
	cJSON *ev;

	if (!has)
		return;
	a->last = u;
	{
		struct cachewatch_break br;

		if (cachewatch_after(a->cw, &u, &br)) {
			cJSON *rec = cJSON_CreateObject();

			ev = event_new(a->bus, "cache_break");
			cachewatch_break_fields(&br, ev);
			cJSON_AddStringToObject(rec, "k", "cache_break");
			cachewatch_break_fields(&br, rec);
			event_emit(a->bus, ev);
			if (session_append(a->session, rec) == -1)
				agent_unsaved(a);
		}
	}
	a->totals.input += u.input;
	a->totals.output += u.output;
	a->totals.cache_write += u.cache_write;
	a->totals.cache_read += u.cache_read;
	cost = agent_cost(a, &u);
	a->cost += cost;
	agent_calibrate(a, &u);
	a->helper_retried = false;
	ev = event_new(a->bus, "usage");
	cJSON_AddNumberToObject(ev, "input_tokens", (double)u.input);
	cJSON_AddNumberToObject(ev, "output_tokens", (double)u.output);
	cJSON_AddNumberToObject(ev, "cache_creation_input_tokens", (double)u.cache_write);
	cJSON_AddNumberToObject(ev, "cache_read_input_tokens", (double)u.cache_read);
	cJSON_AddNumberToObject(ev, "cost_usd", cost);
	event_emit(a->bus, ev);
	ev = event_new(a->bus, "context");
	cJSON_AddNumberToObject(ev, "tokens", (double)(u.input + u.cache_write + u.cache_read + u.output));
	cJSON_AddNumberToObject(ev, "window", (double)agent_window(a));
	cJSON_AddStringToObject(ev, "stage", compact_stage_name(a->stage));
	event_emit(a->bus, ev);
}

/* The response is over: record it, then go on once the tools are done. */
static void
agent_response_done(struct agent *a, const char *stop_reason)
{
	cJSON *content;
	int ntools;

	agent_record_usage(a);
	content = agent_complete_blocks(stream_take_content(a->stream), &ntools);
	if (cJSON_GetArraySize(content) == 0 && strcmp(stop_reason, "refusal") != 0 &&
	    strcmp(stop_reason, "pause_turn") != 0)
		event_error(a->bus, 0, "the model sent an empty answer (stop reason %s)", stop_reason);
	/* Not on disk: no tool runs and nothing more is sent. */
	if (agent_record_response(a, content) == -1 || session_error(a->session) != NULL ||
	    (ntools > 0 && agent_checkpoint_a(a) == -1)) {
		agent_drop_stream(a);
		agent_halt(a);
		return;
	}
	free(a->stop_reason);
	a->stop_reason = xstrdup(ntools > 0 && strcmp(stop_reason, "max_tokens") != 0 ?
	    "tool_use" : stop_reason);
	agent_drop_stream(a);
	a->stream_done = true;
	if (sched_pending(a->sched) == 0 && hooks_post_pending(a->hooks) == 0)
		agent_proceed(a);
}

static void
agent_on_done(void *arg, struct http_req *req, const struct http_result *r)
{
	struct agent *a = arg;
	struct buf msg = BUF_INIT(64 * 1024), type = BUF_INIT(256);
	int ntools = 0;

	if (r->fail == HTTP_OK && a->status == 200)
		stream_finish(a->stream);
	/* The whole answer came, then the connection broke: the answer stands. */
	if (r->fail != HTTP_OK && r->fail != HTTP_ABORTED && a->status == 200 && a->stream != NULL &&
	    stream_complete(a->stream) && stream_error(a->stream) == NULL) {
		const char *sr = stream_stop_reason(a->stream);

		agent_response_done(a, sr != NULL ? sr : "end_turn");
		goto out;
	}
	if (r->fail == HTTP_TIMEOUT_DEADLINE) {
		/* A server this slow (or a trickle) is not asked again. */
		agent_drop_stream(a);
		agent_fail(a, "the model server took too long to answer: %s (timeouts.deadline_ms "
		    "sets the limit, 0 turns it off)", r->error);
		goto out;
	}
	if (r->fail != HTTP_OK && r->fail != HTTP_ABORTED) {
		const char *what = r->fail == HTTP_CONNECT ? "cannot connect to the model server" :
		    r->fail == HTTP_TIMEOUT_CONNECT ? "connecting to the model server timed out" :
		    r->fail == HTTP_TIMEOUT_FIRST_BYTE ? "the model server did not start answering in time" :
		    r->fail == HTTP_TIMEOUT_STALL ? "the model server went silent in the middle of the answer" :
		    "the connection to the model server broke";

		buf_printf(&msg, "%s: %s", what, r->error);
	} else if (a->status != 200) {
		provider_error_text(buf_cstr(&a->errbody), a->errbody.len, a->status, &msg, &type);
		if (compact_is_overflow(a->status, buf_cstr(&type), buf_cstr(&msg)) && !a->overflow_retried) {
			struct compact_outcome o;
			char *sys = agent_system_text(a);

			/* Too big for the window: compact as hard as it goes and retry once. */
			a->overflow_retried = true;
			agent_drop_stream(a);
			compact_overflow(a->conv.messages, sys, a->tools, &o);
			free(sys);
			if (o.stage != COMPACT_NONE) {
				agent_compacted(a, o.stage, o.tokens_before, o.tokens_after);
				agent_call_model(a);
				goto out;
			}
			agent_fail(a, "the conversation does not fit the model's context window, and "
			    "nothing more can be compacted: %s", buf_cstr(&msg));
			goto out;
		}
		if (a->status == 401 && a->cfg->api_key_helper != NULL && !a->helper_retried) {
			struct buf kerr = BUF_INIT(4096);

			/* The helper's key may have expired: ask it again, once. */
			a->helper_retried = true;
			agent_drop_stream(a);
			if (agent_run_key_helper(a, &kerr) == 0)
				agent_call_model(a);
			else
				agent_fail(a, "the model server refused the key (HTTP 401), and %s",
				    buf_cstr(&kerr));
			buf_release(&kerr);
			goto out;
		}
		if (a->status == 401 || a->status == 403) {
			struct buf m2 = BUF_INIT(64 * 1024);

			buf_printf(&m2, "the model server refused the API key (HTTP %ld: %s); check %s",
			    a->status, buf_cstr(&msg),
			    a->proto == STREAM_OPENAI ? "OPENAI_API_KEY" : "ANTHROPIC_API_KEY");
			agent_drop_stream(a);
			agent_fail(a, "%s", buf_cstr(&m2));
			buf_release(&m2);
			goto out;
		}
		if (a->status == 400 && modelcat_param_setting(buf_cstr(&msg)) != NULL) {
			const char *setting = modelcat_param_setting(buf_cstr(&msg));

			/* What tandem knew of the model was wrong: ask again next time. */
			modelcat_forget(a->cat, a->model);
			model_caps_release(&a->caps);
			modelcat_get(a->cat, a->model, &a->caps);
			(void)modelcat_refresh(a->cat, a->model, agent_models_done, a);
			agent_drop_stream(a);
			agent_fail(a, "the model server refused a parameter of the request (HTTP 400: %s); "
			    "the setting \"%s\" controls it (`tandem config` shows where it is set)",
			    buf_cstr(&msg), setting);
			goto out;
		}
		if (a->status == 404 && strcmp(buf_cstr(&type), "not_found_error") == 0 &&
		    strstr(buf_cstr(&msg), "model") != NULL) {
			agent_drop_stream(a);
			agent_fail(a, "the model server does not know the model \"%s\" (HTTP 404: %s); "
			    "`tandem models` lists the models it offers", a->model, buf_cstr(&msg));
			goto out;
		}
		/* x-should-retry, when the server sends it, decides. */
		if (http_header(req, "x-should-retry") != NULL ?
		    strcmp(http_header(req, "x-should-retry"), "true") != 0 :
		    !agent_retryable_status(a->status)) {
			agent_drop_stream(a);
			agent_fail(a, "the model server answered HTTP %ld: %s", a->status, buf_cstr(&msg));
			goto out;
		}
		{
			struct buf m2 = BUF_INIT(64 * 1024);

			buf_printf(&m2, "HTTP %ld: %s", a->status, buf_cstr(&msg));
			buf_reset(&msg);
			buf_puts(&msg, buf_cstr(&m2));
			buf_release(&m2);
		}
		agent_retry(a, req, buf_cstr(&msg));
		goto out;
	} else if (stream_not_sse(a->stream)) {
		const char *et = stream_error_type(a->stream);

		/*
		 * An empty body is retried; a page or text will be the same the next
		 * time (a portal, a proxy, a wrong base_url); a JSON error is
		 * retried unless its type says the request itself is at fault.
		 */
		buf_printf(&msg, "%s (HTTP %ld from %s)", stream_error(a->stream), a->status,
		    a->base_url);
		if (strcmp(et, "not_event_stream") == 0 || strcmp(et, "invalid_request_error") == 0 ||
		    strcmp(et, "authentication_error") == 0 || strcmp(et, "permission_error") == 0) {
			agent_drop_stream(a);
			agent_fail(a, "%s", buf_cstr(&msg));
			goto out;
		}
	} else if (stream_error(a->stream) != NULL) {
		const char *et = stream_error_type(a->stream);

		buf_printf(&msg, "the model server reported an error mid-stream: %s%s%s%s",
		    stream_error(a->stream), et ? " (" : "", et ? et : "", et ? ")" : "");
		/* Some errors cannot go away by asking again. */
		if (compact_is_overflow(0, et, stream_error(a->stream)) && !a->overflow_retried &&
		    stream_output_bytes(a->stream) == 0) {
			struct compact_outcome o;
			char *sys = agent_system_text(a);

			a->overflow_retried = true;
			agent_drop_stream(a);
			compact_overflow(a->conv.messages, sys, a->tools, &o);
			free(sys);
			if (o.stage != COMPACT_NONE) {
				agent_compacted(a, o.stage, o.tokens_before, o.tokens_after);
				agent_call_model(a);
				goto out;
			}
			agent_fail(a, "%s; nothing more can be compacted", buf_cstr(&msg));
			goto out;
		}
		if (et != NULL && (strcmp(et, "invalid_request_error") == 0 ||
		    strcmp(et, "authentication_error") == 0 || strcmp(et, "permission_error") == 0)) {
			agent_drop_stream(a);
			agent_fail(a, "%s", buf_cstr(&msg));
			goto out;
		}
	} else if (!stream_complete(a->stream)) {
		buf_puts(&msg, "the answer stream ended before it was complete");
	} else {
		const char *sr = stream_stop_reason(a->stream);

		agent_response_done(a, sr != NULL ? sr : "end_turn");
		goto out;
	}
	/* A broken transfer or stream.  Tool calls that completed are kept. */
	{
		const cJSON *b;

		cJSON_ArrayForEach(b, stream_content(a->stream))
			if (strcmp(json_str(b, "type", ""), "tool_use") == 0 &&
			    !json_bool(b, "_incomplete", false))
				ntools++;
	}
	if (ntools > 0) {
		event_error(a->bus, 0, "%s; continuing from the %d tool call%s it completed",
		    buf_cstr(&msg), ntools, ntools == 1 ? "" : "s");
		agent_response_done(a, "tool_use");
	} else {
		agent_retry(a, req, buf_cstr(&msg));
	}
out:
	buf_release(&msg);
	buf_release(&type);
}

/* --- context economy: compaction and the summary call -------------------- */

static char *
agent_system_text(const struct agent *a)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_puts(&b, a->sys_static);
	if (a->sys_dynamic != NULL) {
		buf_puts(&b, "\n\n");
		buf_puts(&b, a->sys_dynamic);
	}
	return buf_detach(&b, NULL);
}

/* The messages were compacted: log them, and say so.  A failed write is reported. */
static void
agent_compacted(struct agent *a, enum compact_stage stage, int64_t before, int64_t after)
{
	cJSON *rec = cJSON_CreateObject(), *ev;

	cJSON_AddStringToObject(rec, "k", "replace");
	cJSON_AddStringToObject(rec, "stage", compact_stage_name(stage));
	cJSON_AddItemToObject(rec, "messages", cJSON_Duplicate(a->conv.messages, 1));
	if (session_append(a->session, rec) == -1 || session_sync(a->session) == -1) {
		agent_unsaved(a);
		return;
	}
	crash_point("compaction");
	if (stage > a->stage)
		a->stage = stage;
	ev = event_new(a->bus, "compaction");
	cJSON_AddStringToObject(ev, "stage", compact_stage_name(stage));
	cJSON_AddNumberToObject(ev, "tokens_before", (double)before);
	cJSON_AddNumberToObject(ev, "tokens_after", (double)after);
	event_emit(a->bus, ev);
	ev = event_new(a->bus, "context");
	cJSON_AddNumberToObject(ev, "tokens", (double)agent_est_tokens(a, after));
	cJSON_AddNumberToObject(ev, "window", (double)agent_window(a));
	cJSON_AddStringToObject(ev, "stage", compact_stage_name(a->stage));
	event_emit(a->bus, ev);
}

static int64_t
agent_estimate(const struct agent *a)
{
	char *sys = agent_system_text(a);
	int64_t t = compact_estimate(sys, a->tools, a->conv.messages);

	free(sys);
	return t;
}

/*
 * A local OpenAI-compatible server (llama.cpp, Ollama on this machine) may
 * stream a token a second: no overall deadline unless one is set.
 */
static bool
agent_local_server(const struct agent *a)
{
	static const char *const local[] = { "localhost", "127.", "[::1]", "0.0.0.0" };
	const char *host = strstr(a->base_url, "://");
	size_t i;

	if (a->proto != STREAM_OPENAI || host == NULL)
		return false;
	host += 3;
	for (i = 0; i < sizeof local / sizeof local[0]; i++)
		if (strncmp(host, local[i], strlen(local[i])) == 0)
			return true;
	return false;
}

/* The timeouts of a model call that may write max_tokens tokens. */
static void
agent_timeouts(const struct agent *a, int max_tokens, bool stall_on_progress,
    struct http_timeouts *to)
{
	long long d = a->cfg->deadline_ms;

	to->connect_ms = a->cfg->connect_timeout_ms;
	to->first_byte_ms = a->cfg->first_byte_timeout_ms;
	to->stall_ms = a->cfg->stall_timeout_ms;
	to->stall_on_progress = stall_on_progress;
	if (d < 0)
		d = agent_local_server(a) ? 0 : (long long)a->cfg->first_byte_timeout_ms +
		    (long long)max_tokens * a->cfg->ms_per_token;
	to->deadline_ms = d > 86400000 ? 86400000 : (long)d;
}

static void
agent_sum_headers(void *arg, struct http_req *req, long status)
{
	struct agent *a = arg;

	a->sum.status = status;
}

static int
agent_sum_body(void *arg, struct http_req *req, const char *p, size_t n)
{
	struct agent *a = arg;

	if (a->sum.status != 200)
		return buf_append(&a->sum.errbody, p, n) == -1 ? -1 : 0;
	return stream_feed(a->sum.stream, p, n);
}

static void
agent_sum_finish(struct agent *a, const char *summary, const char *why)
{
	int64_t after;

	if (summary != NULL && compact_apply_summary(a->conv.messages, a->sum.keep, summary, NULL) > 0) {
		cJSON *rec = cJSON_CreateObject();

		cJSON_AddStringToObject(rec, "k", "summary");
		cJSON_AddStringToObject(rec, "text", summary);
		if (session_append(a->session, rec) == -1)
			agent_unsaved(a);
		a->summary_failures = 0;
		after = agent_estimate(a);
		agent_compacted(a, COMPACT_SUMMARY, a->sum.tokens_before, after);
	} else {
		a->summary_failures++;
		event_error(a->bus, 0, "the summary for compaction failed (%s); collapsing instead",
		    why != NULL ? why : "no summary came back");
		if (compact_collapse(a->conv.messages, a->sum.keep, NULL) > 0)
			agent_compacted(a, COMPACT_COLLAPSE, a->sum.tokens_before, agent_estimate(a));
		if (a->summary_failures >= COMPACT_MAX_SUMMARY_FAILURES)
			event_error(a->bus, 0, "automatic compaction stopped after %d failed summaries "
			    "in a row; use /compact to try again", a->summary_failures);
	}
}

static void
agent_sum_done(void *arg, struct http_req *req, const struct http_result *r)
{
	struct agent *a = arg;
	struct buf text = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(4096), type = BUF_INIT(256);
	const cJSON *b;
	bool then_call = a->sum.then_call;

	if (r->fail != HTTP_OK) {
		buf_puts(&why, r->error);
	} else if (a->sum.status != 200) {
		provider_error_text(buf_cstr(&a->sum.errbody), a->sum.errbody.len, a->sum.status, &why, &type);
	} else {
		stream_finish(a->sum.stream);
		if (stream_error(a->sum.stream) != NULL)
			buf_puts(&why, stream_error(a->sum.stream));
		cJSON_ArrayForEach(b, stream_content(a->sum.stream))
			if (strcmp(json_str(b, "type", ""), "text") == 0)
				buf_puts(&text, json_str(b, "text", ""));
		{
			bool has = false;
			struct usage u = stream_usage(a->sum.stream, &has);

			if (has) {
				a->totals.input += u.input;
				a->totals.output += u.output;
				a->totals.cache_write += u.cache_write;
				a->totals.cache_read += u.cache_read;
				a->cost += agent_cost(a, &u);
			}
		}
	}
	agent_sum_finish(a, why.len == 0 && text.len > 0 ? buf_cstr(&text) : NULL,
	    why.len > 0 ? buf_cstr(&why) : NULL);
	stream_free(a->sum.stream);
	a->sum.stream = NULL;
	a->sum.req = NULL;
	buf_release(&a->sum.errbody);
	buf_release(&text);
	buf_release(&why);
	buf_release(&type);
	a->compacting = false;
	if (then_call)
		agent_call_model(a);
	else
		event_emit(a->bus, event_new(a->bus, "compaction_done"));
}

/* Drop the summary call in flight; no callback comes from it after this. */
static void
agent_sum_cancel(struct agent *a)
{
	http_cancel(a->sum.req);
	a->sum.req = NULL;
	stream_free(a->sum.stream);
	a->sum.stream = NULL;
	buf_release(&a->sum.errbody);
	a->sum.then_call = false;
}

/* Ask the model for a summary of all but the newest keep turns. */
static int
agent_sum_start(struct agent *a, int keep, const char *focus, bool then_call)
{
	static const struct http_handler proto = { agent_sum_headers, agent_sum_body, agent_sum_done, NULL };
	struct stream_handler sh = { NULL, NULL, NULL, NULL };
	struct http_handler hh = proto;
	struct provider_request pr;
	struct http_timeouts to;
	struct curl_slist *headers = NULL;
	struct buf body = BUF_INIT(BUF_NOLIMIT);
	cJSON *msgs;
	char *url = NULL;

	msgs = compact_summary_request(a->conv.messages, keep, focus, (size_t)agent_est_window(a) * 2);
	if (msgs == NULL)
		return -1;
	memset(&pr, 0, sizeof pr);
	agent_auth(a, &pr);
	pr.model = a->model;
	agent_shape_request(a, &pr);
	/* A summary needs no thinking: only what the model would do anyway. */
	if (pr.thinking == PROVIDER_THINK_BUDGET)
		pr.thinking = PROVIDER_THINK_NONE;
	pr.system_static = compact_summary_system();
	pr.messages = msgs;
	provider_build(&pr, &url, &headers, &body);
	cJSON_Delete(msgs);
	agent_timeouts(a, pr.max_tokens, false, &to);
	hh.arg = a;
	a->sum.keep = keep;
	a->sum.then_call = then_call;
	a->sum.status = 0;
	a->sum.tokens_before = agent_estimate(a);
	buf_init(&a->sum.errbody, AGENT_ERRBODY_MAX);
	a->sum.stream = stream_new(a->proto, &sh);
	a->sum.req = http_post(a->http, url, headers, body.data, body.len, &to, &hh);
	free(url);
	buf_release(&body);
	return 0;
}

/*
 * Before a request: compact if the conversation has grown past a
 * threshold.  True when a summary call was started (it makes the request
 * when it is done).
 */
static bool
agent_auto_compact(struct agent *a)
{
	struct compact_outcome o;
	char *sys = agent_system_text(a);

	compact_auto(a->conv.messages, sys, a->tools, agent_est_window(a), &a->th,
	    a->summary_failures < COMPACT_MAX_SUMMARY_FAILURES, &o);
	free(sys);
	if (o.stage != COMPACT_NONE)
		agent_compacted(a, o.stage, o.tokens_before, o.tokens_after);
	if (o.need_summary && hooks_has(a->hooks, HOOK_PRE_COMPACT, "auto")) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "trigger", "auto");
		cJSON_AddStringToObject(f, "custom_instructions", "");
		hooks_run(a->hooks, HOOK_PRE_COMPACT, f, agent_hooks_ignored, a);
		cJSON_Delete(f);
	}
	if (o.need_summary && agent_sum_start(a, o.keep_turns, NULL, true) == 0)
		return true;
	return false;
}

static int64_t
agent_clock_ms(void)
{
	const char *s = getenv("TANDEM_CLOCK_OFFSET_MS");
	char *end;
	long long off = 0;

	if (s != NULL && *s != '\0') {
		off = strtoll(s, &end, 10);
		if (*end != '\0')
			off = 0;
	}
	{
		struct timespec ts;

		/* Wall-clock time: the cache's age must survive a restart (resume). */
		clock_gettime(CLOCK_REALTIME, &ts);
		return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000 + off;
	}
}

static void
agent_call_model(struct agent *a)
{
	static const struct http_handler handler_proto = {
		agent_on_headers, agent_on_body, agent_on_done, NULL
	};
	struct stream_handler sh = { agent_on_text, agent_on_thinking, agent_on_block, a };
	struct http_handler hh = handler_proto;
	struct provider_request pr;
	struct http_timeouts to;
	struct curl_slist *headers = NULL;
	struct buf body = BUF_INIT(BUF_NOLIMIT);
	char *url = NULL;

	if (session_error(a->session) != NULL) {
		agent_halt(a);
		return;
	}
	if (agent_wait_for_models(a))
		return;
	a->caps_sent = true;
	if (agent_auto_compact(a))
		return;
	/* Nothing goes out before the log that explains it is on disk. */
	if (session_sync(a->session) == -1) {
		agent_halt(a);
		return;
	}
	/* Nor a conversation the API would refuse, whatever put it in memory. */
	{
		struct buf why = BUF_INIT(4096);

		if (conv_check(&a->conv, &why) == -1) {
			agent_fail(a, "the conversation is not valid (%s), so it was not sent; go on "
			    "from an earlier turn with tandem --resume %s --fork --rewind-to N",
			    buf_cstr(&why), session_id(a->session));
			buf_release(&why);
			return;
		}
		buf_release(&why);
	}
	memset(&pr, 0, sizeof pr);
	agent_auth(a, &pr);
	pr.model = a->model;
	agent_shape_request(a, &pr);
	pr.system_static = a->sys_static;
	pr.system_dynamic = a->sys_dynamic;
	pr.tools = a->tools;
	pr.messages = a->conv.messages;
	pr.cache = a->proto == STREAM_ANTHROPIC;
	provider_build(&pr, &url, &headers, &body);
	cachewatch_before(a->cw, a->sys_static, a->tools, a->model, a->conv.messages, agent_clock_ms());
	{
		char *sys = agent_system_text(a);

		a->est_sent = compact_estimate(sys, a->tools, a->conv.messages);
		free(sys);
	}

	agent_timeouts(a, pr.max_tokens, true, &to);
	hh.arg = a;
	a->status = 0;
	a->stream_done = false;
	a->checkpoint_a = false;
	buf_init(&a->errbody, AGENT_ERRBODY_MAX);
	a->stream = stream_new(a->proto, &sh);
	a->req = http_post(a->http, url, headers, body.data, body.len, &to, &hh);
	crash_point("request-sent");
	free(url);
	buf_release(&body);
}

static void
agent_stop_hooked(void *arg, struct hook_outcome *o)
{
	struct agent *a = arg;

	a->hook_run = NULL;
	agent_hook_notes(a, o);
	if (o->decision != HOOK_BLOCK || a->hook_stop) {
		agent_end_turn(a, "end_turn", false);
		return;
	}
	if (a->stop_blocks >= AGENT_MAX_STOP_BLOCKS) {
		event_error(a->bus, 0, "Stop hooks kept the turn going %d times in a row; "
		    "stopping here", a->stop_blocks);
		agent_end_turn(a, "end_turn", false);
		return;
	}
	a->stop_blocks++;
	if (agent_add_text(a, o->reason) == -1) {
		agent_halt(a);
		return;
	}
	agent_next_call(a);
}

/* The model is done: Stop hooks may send it on.  True when they run (the turn waits). */
static bool
agent_stop_hooks(struct agent *a)
{
	cJSON *f;

	if (!hooks_has(a->hooks, HOOK_STOP, NULL))
		return false;
	f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "stop_hook_active", a->stop_blocks > 0);
	cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(a->mode));
	a->hook_run = hooks_run(a->hooks, HOOK_STOP, f, agent_stop_hooked, a);
	cJSON_Delete(f);
	return a->hook_run != NULL;
}

/* The response and all its tools are done: decide what comes next. */
static void
agent_proceed(struct agent *a)
{
	const char *sr = a->stop_reason != NULL ? a->stop_reason : "end_turn";
	bool had_tools = sched_count(a->sched) > 0;

	if (had_tools) {
		cJSON *last = conv_last(&a->conv);

		/* Results answer the tool_use blocks of the assistant message just recorded. */
		if (last != NULL && strcmp(json_str(last, "role", ""), "assistant") == 0 &&
		    session_error(a->session) == NULL &&
		    agent_add(a, "user", sched_results(a->sched)) == 0 &&
		    session_checkpoint(a->session, 'B', a->turn, a->calls, agent_tokens_used(a), NULL) == -1)
			agent_unsaved(a);
		sched_reset(a->sched);
	}
	if (session_error(a->session) != NULL) {
		agent_unsaved(a);
		agent_end_turn(a, "error", true);
		return;
	}
	if (a->interrupting) {
		agent_end_turn(a, a->failed ? "error" : "interrupted", a->failed);
		return;
	}
	if (a->hook_stop) {
		agent_end_turn(a, "stopped_by_hook", false);
		return;
	}
	if (strcmp(sr, "max_tokens") == 0) {
		if (a->continuations >= AGENT_MAX_CONTINUATIONS) {
			event_error(a->bus, 0, "the answer reached max_tokens %d times; stopping here",
			    a->continuations + 1);
			agent_end_turn(a, "max_tokens", false);
			return;
		}
		a->continuations++;
		event_error(a->bus, 0, "the answer reached the max_tokens limit; asking the model "
		    "to continue (%d of %d)", a->continuations, AGENT_MAX_CONTINUATIONS);
		/* After tool results the next answer starts afresh; after text it goes on. */
		a->continuing = !had_tools;
		if (agent_add_text(a, had_tools ? "Your answer was cut off by the output limit. "
		    "Continue where you stopped; resend any tool call that was cut off." :
		    "Your answer was cut off by the output limit. Continue exactly where you stopped.") == -1) {
			agent_halt(a);
			return;
		}
	} else if (strcmp(sr, "tool_use") == 0) {
		if (!had_tools) {
			agent_end_turn(a, "end_turn", false);
			return;
		}
	} else if (strcmp(sr, "pause_turn") == 0) {
		/* The server paused a long turn: send it back as it is; the rest joins it. */
		a->paused = a->continuing = true;
	} else {
		if (strcmp(sr, "refusal") == 0)
			event_error(a->bus, 0, "the model declined to answer this request");
		if (strcmp(sr, "end_turn") == 0 && agent_stop_hooks(a))
			return;
		agent_end_turn(a, sr, false);
		return;
	}
	agent_next_call(a);
}

/* One more model call for this turn, unless that would pass its cap (--max-turns). */
static bool
agent_next_call(struct agent *a)
{
	if (a->calls >= a->cfg->max_turns) {
		agent_fail(a, "this turn reached its cap of %d model calls (--max-turns); "
		    "send another prompt to go on", a->cfg->max_turns);
		return false;
	}
	a->calls++;
	a->attempt = 0;
	agent_call_model(a);
	return true;
}

/* --- the front end's calls ----------------------------------------------- */

/* The prompt (and what UserPromptSubmit hooks added) goes to the model. */
/* What agent_attach kept goes with the prompt, in order. */
static void
agent_attached(struct agent *a, cJSON *content)
{
	cJSON *b;

	while (a->attach != NULL && (b = cJSON_DetachItemFromArray(a->attach, 0)) != NULL)
		cJSON_AddItemToArray(content, b);
}

void
agent_attach(struct agent *a, const char *text)
{
	if (a->attach == NULL)
		a->attach = cJSON_CreateArray();
	cJSON_AddItemToArray(a->attach, agent_text_block(text));
}

struct usercmd *
agent_user_command(struct agent *a, const char *command, usercmd_output_fn *output,
    usercmd_done_fn *done, void *arg)
{
	return usercmd_start(a->loop, &a->env, command, output, done, arg);
}

static void
agent_start_prompt(struct agent *a, const char *prompt, const char *context)
{
	cJSON *content = cJSON_CreateArray();

	cJSON_AddItemToArray(content, agent_text_block(prompt));
	attach_mentions(&a->env, a->cfg->rules, a->mode, a->bus, a->caps.image_input, prompt, content);
	if (context != NULL)
		cJSON_AddItemToArray(content, agent_text_block(context));
	agent_attached(a, content);
	if (agent_add_user(a, content) == -1 || session_note_turn(a->session, a->turn, prompt) == -1) {
		agent_halt(a);
		return;
	}
	agent_build_dynamic(a);
	agent_next_call(a);
}

static void
agent_prompt_hooked(void *arg, struct hook_outcome *o)
{
	struct agent *a = arg;

	a->hook_run = NULL;
	agent_hook_notes(a, o);
	if (o->decision == HOOK_BLOCK || o->stop) {
		event_error(a->bus, 0, "a UserPromptSubmit hook blocked the prompt: %s",
		    o->reason != NULL ? o->reason : o->stop_reason != NULL ? o->stop_reason :
		    "no reason given");
		agent_end_turn(a, "blocked", true);
		return;
	}
	agent_start_prompt(a, a->turn_prompt, o->additional_context);
}

/* After SessionStart (if it still runs), UserPromptSubmit hooks see the prompt first. */
static void
agent_prompt_hooks(struct agent *a)
{
	cJSON *f;

	a->prompt_waits = a->start_run != NULL;
	if (a->prompt_waits)
		return;
	if (hooks_has(a->hooks, HOOK_USER_PROMPT_SUBMIT, NULL)) {
		f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "prompt", a->turn_prompt);
		cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(a->mode));
		a->hook_run = hooks_run(a->hooks, HOOK_USER_PROMPT_SUBMIT, f, agent_prompt_hooked, a);
		cJSON_Delete(f);
		if (a->hook_run != NULL)
			return;
	}
	agent_start_prompt(a, a->turn_prompt, NULL);
}

static void
agent_session_started(void *arg, struct hook_outcome *o)
{
	struct agent *a = arg;

	a->start_run = NULL;
	agent_hook_notes(a, o);
	free(a->session_context);
	a->session_context = o->additional_context;
	o->additional_context = NULL;
	if (a->busy && a->prompt_waits)
		agent_prompt_hooks(a);
}

/* SessionStart hooks (source: startup, resume, clear); their context joins the system prompt. */
static void
agent_session_start(struct agent *a, const char *source)
{
	cJSON *f;

	free(a->session_context);
	a->session_context = NULL;
	hooks_cancel(a->start_run);
	a->start_run = NULL;
	if (!hooks_has(a->hooks, HOOK_SESSION_START, source))
		return;
	f = cJSON_CreateObject();
	cJSON_AddStringToObject(f, "source", source);
	cJSON_AddStringToObject(f, "permission_mode", hooks_mode_name(a->mode));
	a->start_run = hooks_run(a->hooks, HOOK_SESSION_START, f, agent_session_started, a);
	cJSON_Delete(f);
}

/* Hooks nobody waits for (PreCompact, SessionEnd): their answer changes nothing. */
static void
agent_hooks_ignored(void *arg, struct hook_outcome *o)
{
}

/*
 * After a failed write, read the session again from disk (what really is
 * there, keeping its lock) and show that conversation.  0, or -1 with the
 * reason in report.
 */
static int
agent_reload(struct agent *a, struct buf *report)
{
	struct session *s = a->session;

	if (session_reopen(&s, report) == -1)
		return -1;
	a->session = NULL;
	agent_use_session(a, s);
	cJSON_Delete(a->conv.messages);
	a->conv.messages = session_take_messages(s);
	if (session_turns(s) > a->turn)
		a->turn = session_turns(s);
	a->unsaved_told = false;
	a->failed = false;
	if (session_note(s) != NULL)
		event_error(a->bus, 0, "%s", session_note(s));
	if (agent_reconcile(a) == -1) {
		buf_puts(report, session_error(s));
		return -1;
	}
	a->resumed = true;
	agent_replay(a);
	return 0;
}

int
agent_submit(struct agent *a, const char *prompt)
{
	cJSON *ev;

	if (a->busy)
		return -1;
	if (a->compacting)
		return -1;
	/* The session could not be saved: try again now, from what is on disk. */
	if (session_error(a->session) != NULL) {
		struct buf why = BUF_INIT(8192);

		if (agent_reload(a, &why) == -1) {
			a->unsaved_told = false;
			event_error(a->bus, 1, "%s", buf_cstr(&why));
			buf_release(&why);
			return -2;
		}
		buf_release(&why);
	}
	a->busy = true;
	a->interrupting = false;
	a->failed = false;
	a->overflow_retried = false;
	/* Turn numbers never repeat, also after a rewind: the log stays unambiguous. */
	if (session_turns(a->session) > a->turn)
		a->turn = session_turns(a->session);
	a->turn++;
	free(a->turn_prompt);
	a->turn_prompt = xstrdup(prompt);
	a->turn_started = ev_now_ms();
	cJSON_Delete(a->turn_tools);
	a->turn_tools = cJSON_CreateArray();
	a->turn_tokens = a->totals.input + a->totals.output + a->totals.cache_read +
	    a->totals.cache_write;
	a->calls = 0;
	a->continuations = 0;
	a->paused = a->continuing = false;
	buf_reset(&a->answer);
	a->attempt = 0;
	a->stop_blocks = 0;
	a->hook_stop = false;
	event_set_turn(a->bus, a->turn);
	ev = event_new(a->bus, "turn_start");
	cJSON_AddStringToObject(ev, "prompt", prompt);
	event_emit(a->bus, ev);
	agent_prompt_hooks(a);
	return 0;
}

void
agent_answer(struct agent *a, const char *id, enum approval decision, const char *reason,
    const cJSON *edited_input)
{
	struct sched_call *c = sched_find(a->sched, id);

	if (c == NULL || c->state != SCHED_WAITING)
		return;
	agent_emit_approval(a, id, decision == APPROVAL_DENY ? "deny" :
	    decision == APPROVAL_ALWAYS ? "always" : "allow", "user");
	if (decision == APPROVAL_ALWAYS) {
		struct buf err = BUF_INIT(4096), asked = BUF_INIT(4096);
		char **always = agent_explain(a, c, edited_input != NULL ? edited_input : c->input,
		    false, NULL, &asked);
		size_t i;

		for (i = 0; always[i] != NULL; i++) {
			buf_reset(&err);
			perm_rules_add(a->session_rules, PERM_LIST_ALLOW, always[i], &err);
			if (strcmp(c->name, "run_bash") == 0 &&
			    config_save_local_allow(a->cfg, always[i], &err) == -1)
				event_error(a->bus, 0, "could not save the rule %s: %s", always[i],
				    buf_cstr(&err));
		}
		perm_strv_free(always);
		buf_release(&err);
		buf_release(&asked);
	}
	if (strcmp(c->name, "run_bash") == 0 && decision != APPROVAL_DENY)
		a->fork_dry_run = false;
	sched_answer(a->sched, id, decision != APPROVAL_DENY, reason, edited_input);
}

void
agent_interrupt(struct agent *a)
{
	if (!a->busy || a->interrupting)
		return;
	a->interrupting = true;
	hooks_cancel_tools(a->hooks);
	if (a->hook_run != NULL || a->prompt_waits) {
		/* The prompt or the Stop hooks had not let the model go on yet. */
		agent_end_turn(a, "interrupted", false);
		return;
	}
	if (a->retry_timer != 0) {
		ev_timer_cancel(a->loop, a->retry_timer);
		a->retry_timer = 0;
	}
	if (a->models_timer != 0) {
		ev_timer_cancel(a->loop, a->models_timer);
		a->models_timer = 0;
	}
	/* A summary the next call waits for: the call will not come. */
	if (a->sum.req != NULL && a->sum.then_call)
		agent_sum_cancel(a);
	if (a->req != NULL) {
		cJSON *content;
		int ntools;

		http_cancel(a->req);
		a->req = NULL;
		/*
		 * Keep what was said: the blocks still open close as cut off (the
		 * text the user saw stays; a tool call still streaming is dropped),
		 * and every scheduled tool_use stays, to be answered.
		 */
		stream_finish(a->stream);
		agent_record_usage(a);
		content = agent_complete_blocks(stream_take_content(a->stream), &ntools);
		/* A failure is reported; agent_proceed then ends the turn as failed. */
		if (agent_record_response(a, content) == 0 && ntools > 0)
			agent_checkpoint_a(a);
		agent_drop_stream(a);
		a->stream_done = true;
	}
	if (a->stream == NULL)
		a->stream_done = true;
	if (sched_pending(a->sched) > 0)
		sched_interrupt(a->sched, "interrupted by the user before this call ran");
	else
		agent_proceed(a);
}

/* --- turns, rewind, redo, fork ------------------------------------------- */

cJSON *
agent_turns(struct agent *a)
{
	cJSON *out = cJSON_CreateArray(), *cur = NULL, *m, *b, *f, *t;
	int last = -1;

	cJSON_ArrayForEach(m, a->conv.messages) {
		int turn = (int)json_int(m, "_turn", 0);
		bool user = strcmp(json_str(m, "role", ""), "user") == 0;

		if (turn != last) {
			last = turn;
			cur = cJSON_CreateObject();
			cJSON_AddNumberToObject(cur, "turn", turn);
			cJSON_AddStringToObject(cur, "prompt", "");
			cJSON_AddArrayToObject(cur, "tools");
			cJSON_AddArrayToObject(cur, "files");
			cJSON_AddBoolToObject(cur, "bash", 0);
			cJSON_AddItemToArray(out, cur);
		}
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			const char *type = json_str(b, "type", "");

			if (user && strcmp(type, "text") == 0 && json_str(cur, "prompt", "")[0] == '\0')
				cJSON_ReplaceItemInObjectCaseSensitive(cur, "prompt",
				    cJSON_CreateString(json_str(b, "text", "")));
			if (!user && strcmp(type, "tool_use") == 0) {
				cJSON_AddItemToArray(json_get(cur, "tools"),
				    cJSON_CreateString(json_str(b, "name", "")));
				if (strcmp(json_str(b, "name", ""), "run_bash") == 0)
					cJSON_ReplaceItemInObjectCaseSensitive(cur, "bash", cJSON_CreateTrue());
			}
		}
	}
	cJSON_ArrayForEach(cur, out) {
		int turn = (int)json_int(cur, "turn", 0);

		cJSON_ArrayForEach(f, session_files(a->session)) {
			if (json_int(f, "turn", -1) != turn || json_bool(f, "undone", false))
				continue;
			cJSON_ArrayForEach(t, json_get(f, "files"))
				cJSON_AddItemToArray(json_get(cur, "files"),
				    cJSON_CreateString(json_str(t, "path", "")));
		}
		cJSON_ArrayForEach(t, session_turninfo(a->session)) {
			if (json_int(t, "turn", -1) != turn)
				continue;
			cJSON_DeleteItemFromObjectCaseSensitive(cur, "tokens");
			cJSON_DeleteItemFromObjectCaseSensitive(cur, "ms");
			cJSON_DeleteItemFromObjectCaseSensitive(cur, "time");
			cJSON_AddNumberToObject(cur, "tokens", json_num(t, "tokens", 0));
			cJSON_AddNumberToObject(cur, "ms", json_num(t, "ms", 0));
			cJSON_AddNumberToObject(cur, "time", json_num(t, "time", 0));
		}
	}
	return out;
}

/*
 * Put one file back to a state tandem recorded: from "have" (what tandem
 * left there) to "want" (a snapshot; NULL: no file).  A file whose content
 * is not "have" changed outside tandem: it is left alone unless force.
 * 0 done, 1 left alone, -1 failed.
 */
static int
agent_restore_file(struct agent *a, const char *path, const char *have, const char *want,
    bool force, struct buf *report)
{
	struct buf err = BUF_INIT(4096);
	struct sandbox sb = { a->cfg->root, (const char *const *)a->cfg->add_dirs, NULL };
	struct sandbox_at at;
	char *abs = NULL, *data = NULL, *now = NULL, hex[SHA256_HEX_LEN + 1];
	size_t len = 0, nowlen = 0;
	int rc = -1, h;

	/* What is there now, read through the walk: the check and the use see one file. */
	if (sandbox_walk(&sb, path, SANDBOX_EDIT, 0, &at, &err) == -1)
		goto out;
	abs = xstrdup(at.abs);
	h = at.exists ? fsutil_read_at(&at, FSUTIL_MAX_FILE, &now, &nowlen, &err) : FSUTIL_MISSING;
	sandbox_at_release(&at);
	if (h == -1)
		goto out;
	hex[0] = '\0';
	if (h == 0)
		sha256_hex(now, nowlen, hex);
	if (!force && (have != NULL ? h == FSUTIL_MISSING || strcmp(hex, have) != 0 :
	    h != FSUTIL_MISSING)) {
		buf_printf(report, "%s changed outside tandem since tandem last wrote it: left alone\n", path);
		rc = 1;
		goto out;
	}
	/* Whatever is there now is kept too, so nothing is ever lost: unkept, it stays. */
	if (h == 0) {
		int kept;

		errno = 0;
		kept = fsutil_snapshot(a->snap_dir, now, nowlen, hex, &err);
		if (kept == -1) {
			session_fail(a->session, "files/", errno != 0 ? errno : EIO);
			buf_reset(&err);
			buf_puts(&err, session_error(a->session));
			goto out;
		}
	}
	if (want == NULL) {
		rc = h == FSUTIL_MISSING ? 0 : fsutil_remove(a->cfg->root, abs, NULL, &err);
	} else if (fsutil_snapshot_load(a->snap_dir, want, &data, &len, &err) == 0) {
		char *dir = xstrdup(abs), *slash = strrchr(dir, '/');

		if (slash != NULL && slash != dir) {
			*slash = '\0';
			fsutil_mkdirs(a->cfg->root, dir, &err);
		}
		free(dir);
		rc = fsutil_write_atomic(a->cfg->root, abs, data, len, NULL, &err);
	}
	if (rc == 0)
		buf_printf(report, "%s %s\n", want == NULL ? "removed" : "restored", path);
out:
	if (rc == -1)
		buf_printf(report, "%s: %s\n", path, buf_cstr(&err));
	free(abs);
	free(data);
	free(now);
	buf_release(&err);
	return rc;
}

/*
 * Undo (or redo) the files records whose ids are in ids, newest first
 * when undoing.  Returns 1 if some file was left alone.
 */
static int
agent_restore_records(struct agent *a, const cJSON *ids, bool undo, bool force, struct buf *report)
{
	const cJSON *recs = session_files(a->session), *f, *id;
	int n = cJSON_GetArraySize(recs), i, conflicts = 0;

	for (i = undo ? n - 1 : 0; undo ? i >= 0 : i < n; i += undo ? -1 : 1) {
		const cJSON *rec = cJSON_GetArrayItem(recs, i);
		bool listed = false;
		int k, nf;

		cJSON_ArrayForEach(id, ids)
			if (strcmp(id->valuestring, json_str(rec, "id", "")) == 0)
				listed = true;
		if (!listed)
			continue;
		nf = cJSON_GetArraySize(json_get(rec, "files"));
		for (k = undo ? nf - 1 : 0; undo ? k >= 0 : k < nf; k += undo ? -1 : 1) {
			f = cJSON_GetArrayItem(json_get(rec, "files"), k);
			if (agent_restore_file(a, json_str(f, "path", ""),
			    json_str(f, undo ? "after" : "before", NULL),
			    json_str(f, undo ? "before" : "after", NULL), force, report) == 1)
				conflicts = 1;
		}
	}
	return conflicts;
}

static void
agent_emit_rewind(struct agent *a, const char *what, int turn)
{
	cJSON *ev = event_new(a->bus, "rewind");

	cJSON_AddStringToObject(ev, "what", what);
	cJSON_AddNumberToObject(ev, "to_turn", turn);
	event_emit(a->bus, ev);
	agent_replay_history(a);
}

int
agent_rewind(struct agent *a, int turn, enum rewind_what what, bool force, struct buf *report)
{
	cJSON *rec, *removed, *ids, *m, *f;
	int keep = -1, i = 0, n, nids, conflicts = 0;

	if (a->busy) {
		buf_puts(report, "a turn is running: interrupt it first\n");
		return -1;
	}
	if (session_error(a->session) != NULL) {
		buf_printf(report, "%s\n", session_error(a->session));
		return -1;
	}
	cJSON_ArrayForEach(m, a->conv.messages) {
		if (json_int(m, "_turn", 0) >= turn) {
			keep = i;
			break;
		}
		i++;
	}
	if (keep < 0) {
		buf_printf(report, "there is no turn %d in this conversation\n", turn);
		return -1;
	}
	ids = cJSON_CreateArray();
	if (what & REWIND_FILES)
		cJSON_ArrayForEach(f, session_files(a->session))
			if (json_int(f, "turn", 0) >= turn && !json_bool(f, "undone", false))
				cJSON_AddItemToArray(ids, cJSON_CreateString(json_str(f, "id", "")));
	if (cJSON_GetArraySize(ids) > 0)
		conflicts = agent_restore_records(a, ids, true, force, report);
	removed = cJSON_CreateArray();
	n = conv_count(&a->conv);
	if (what & REWIND_CONVERSATION) {
		for (i = keep; i < n; i++)
			cJSON_AddItemToArray(removed, cJSON_Duplicate(cJSON_GetArrayItem(a->conv.messages, i), 1));
	} else {
		keep = n;
	}
	nids = cJSON_GetArraySize(ids);
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "rewind");
	cJSON_AddNumberToObject(rec, "to_turn", turn);
	cJSON_AddNumberToObject(rec, "keep", keep);
	cJSON_AddItemToObject(rec, "removed", removed);
	cJSON_AddItemToObject(rec, "undone", ids);
	if (session_append(a->session, rec) == -1 || session_sync(a->session) == -1) {
		agent_unsaved(a);
		buf_printf(report, "%s\n", session_error(a->session));
		return -1;
	}
	while (conv_count(&a->conv) > keep)
		cJSON_DeleteItemFromArray(a->conv.messages, conv_count(&a->conv) - 1);
	if (what & REWIND_CONVERSATION)
		buf_printf(report, "the conversation is back to just before turn %d\n", turn);
	if ((what & REWIND_FILES) && nids == 0)
		buf_puts(report, "no file changes of tandem's tools to undo\n");
	if (what & REWIND_FILES)
		buf_puts(report, "changes made by run_bash are not tracked and were not undone\n");
	agent_emit_rewind(a, what == REWIND_BOTH ? "both" : what == REWIND_FILES ? "files" :
	    "conversation", turn);
	return conflicts;
}

int
agent_redo(struct agent *a, bool force, struct buf *report)
{
	const cJSON *rw = session_last_rewind(a->session), *m;
	cJSON *rec;
	int conflicts = 0;

	if (a->busy) {
		buf_puts(report, "a turn is running: interrupt it first\n");
		return -1;
	}
	if (rw == NULL) {
		buf_puts(report, "there is no rewind to redo\n");
		return -1;
	}
	if (json_int(rw, "keep", -1) != conv_count(&a->conv)) {
		buf_puts(report, "the conversation has moved on since the rewind: nothing to redo\n");
		return -1;
	}
	if (session_error(a->session) != NULL) {
		buf_printf(report, "%s\n", session_error(a->session));
		return -1;
	}
	conflicts = agent_restore_records(a, json_get(rw, "undone"), false, force, report);
	cJSON_ArrayForEach(m, json_get(rw, "removed"))
		conv_add(&a->conv, json_str(m, "role", "user"),
		    cJSON_Duplicate(json_get(m, "content"), 1), (int)json_int(m, "_turn", 0));
	buf_printf(report, "redone: back to where the rewind to turn %lld started\n",
	    (long long)json_int(rw, "to_turn", 0));
	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "k", "redo");
	/* after this, rw is gone */
	if (session_append(a->session, rec) == -1 || session_sync(a->session) == -1) {
		agent_unsaved(a);
		buf_printf(report, "%s\n", session_error(a->session));
		return -1;
	}
	agent_emit_rewind(a, "redo", 0);
	return conflicts;
}

int
agent_fork(struct agent *a, int turn, struct buf *report)
{
	struct buf err = BUF_INIT(4096);
	struct session *sess;
	const char *from = session_id(a->session);
	char *first;
	cJSON *m, *next;
	cJSON *ev;
	int rc;

	if (a->busy) {
		buf_puts(report, "a turn is running: interrupt it first\n");
		return -1;
	}
	sess = session_create(a->cfg->home, a->cfg->root, a->model, from, &err);
	if (sess == NULL) {
		buf_printf(report, "%s\n", buf_cstr(&err));
		buf_release(&err);
		return -1;
	}
	buf_release(&err);
	/* The fork holds the conversation through turn (0: all of it), on disk before it is used. */
	rc = 0;
	cJSON_ArrayForEach(m, a->conv.messages)
		if ((turn <= 0 || json_int(m, "_turn", 0) <= turn) && rc == 0)
			rc = session_log_message(sess, m);
	first = xstrdup(json_str(session_meta(a->session), "first_prompt", ""));
	if (rc == 0)
		rc = session_note_turn(sess, a->turn, first[0] != '\0' ? first : NULL);
	free(first);
	if (rc == 0)
		rc = session_sync(sess);
	if (rc == -1) {
		buf_printf(report, "%s\n", session_error(sess));
		session_close(sess);
		return -1;
	}
	for (m = a->conv.messages->child; m != NULL; m = next) {
		next = m->next;
		if (turn > 0 && json_int(m, "_turn", 0) > turn)
			cJSON_Delete(cJSON_DetachItemViaPointer(a->conv.messages, m));
	}
	buf_printf(report, "forked %s into %s\n", from, session_id(sess));
	agent_use_session(a, sess);
	a->fork_dry_run = true;
	a->resumed = true;
	ev = event_new(a->bus, "session");
	cJSON_AddStringToObject(ev, "id", session_id(a->session));
	cJSON_AddStringToObject(ev, "model", a->model);
	cJSON_AddStringToObject(ev, "provider", a->proto == STREAM_OPENAI ? "openai" : "anthropic");
	cJSON_AddStringToObject(ev, "cwd", a->cfg->root);
	cJSON_AddBoolToObject(ev, "resumed", 1);
	cJSON_AddStringToObject(ev, "forked_from", json_str(session_meta(a->session), "forked_from", ""));
	event_emit(a->bus, ev);
	agent_replay_history(a);
	return 0;
}

const char *
agent_forked_from(const struct agent *a)
{
	return json_str(session_meta(a->session), "forked_from", NULL);
}

int
agent_clear(struct agent *a)
{
	if (a->busy)
		return -1;
	struct buf err = BUF_INIT(4096);
	struct session *sess;

	sess = session_create(a->cfg->home, a->cfg->root, a->model, NULL, &err);
	if (sess == NULL) {
		event_error(a->bus, 0, "%s", buf_cstr(&err));
		buf_release(&err);
		return -1;
	}
	buf_release(&err);
	conv_clear(&a->conv);
	agent_use_session(a, sess);
	cachewatch_forget(a->cw);
	a->stage = COMPACT_NONE;
	a->summary_failures = 0;
	a->turn = 0;
	a->resumed = false;
	event_set_turn(a->bus, 0);
	agent_emit_session(a, false);
	agent_session_start(a, "clear");
	return 0;
}

int
agent_compact(struct agent *a, const char *focus)
{
	int keep;

	if (a->busy || a->compacting)
		return -1;
	compact_micro(a->conv.messages, COMPACT_KEEP_ROUNDS, NULL);
	keep = compact_summary_keep(a->conv.messages);
	if (keep < 0) {
		event_error(a->bus, 0, "nothing to compact yet");
		return 0;
	}
	/* Asked for by the user: summaries are on again. */
	a->summary_failures = 0;
	if (hooks_has(a->hooks, HOOK_PRE_COMPACT, "manual")) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "trigger", "manual");
		cJSON_AddStringToObject(f, "custom_instructions", focus != NULL ? focus : "");
		hooks_run(a->hooks, HOOK_PRE_COMPACT, f, agent_hooks_ignored, a);
		cJSON_Delete(f);
	}
	if (a->sys_dynamic == NULL)
		agent_build_dynamic(a);
	if (agent_sum_start(a, keep, focus, false) == -1) {
		event_error(a->bus, 0, "nothing to compact yet");
		return 0;
	}
	a->compacting = true;
	return 0;
}

void
agent_report(struct agent *a, const char *what, struct buf *out)
{

	if (strcmp(what, "cost") == 0) {
		buf_printf(out, "Session %s, model %s\n", session_id(a->session), a->model);
		buf_printf(out, "Last request: %lld in, %lld out, %lld cache read, %lld cache write\n",
		    (long long)a->last.input, (long long)a->last.output,
		    (long long)a->last.cache_read, (long long)a->last.cache_write);
		buf_printf(out, "Session total: %lld in, %lld out, %lld cache read, %lld cache write\n",
		    (long long)a->totals.input, (long long)a->totals.output,
		    (long long)a->totals.cache_read, (long long)a->totals.cache_write);
		buf_printf(out, "Cost: $%.4f\n", a->cost);
		if (prices_find(a->prices, a->model) == NULL)
			buf_printf(out, "No price is known for %s (the price file %s, or \"prices\" in "
			    "the settings)\n", a->model, a->prices->path != NULL ? a->prices->path : "(none)");
		else
			buf_printf(out, "Prices from %s, checked %s\n", a->prices->path != NULL ?
			    a->prices->path : "the settings", a->prices->checked != NULL ? a->prices->checked : "?");
	} else if (strcmp(what, "context") == 0) {
		int64_t used = a->last.input + a->last.cache_read + a->last.cache_write + a->last.output;

		buf_printf(out, "Context: %lld of %lld tokens (%.0f%%), %d messages\n",
		    (long long)used, (long long)agent_window(a),
		    agent_window(a) > 0 ? 100.0 * (double)used / (double)agent_window(a) : 0.0,
		    conv_count(&a->conv));
		buf_printf(out, "Next request: about %lld tokens (estimated)\n",
		    (long long)agent_est_tokens(a, agent_estimate(a)));
		buf_printf(out, "Model: %s, window %lld, output up to %lld, thinking %s, limits from %s%s%s\n",
		    a->model, (long long)agent_window(a), (long long)a->caps.max_output,
		    model_thinking_name(&a->caps),
		    a->caps.source == MODEL_SERVER ? "the server" : a->caps.source == MODEL_CACHE ?
		    "the server (cached)" : "tandem's table", a->models_note != NULL ? ": " : "",
		    a->models_note != NULL ? a->models_note : "");
		if (a->caps.calib > 0)
			buf_printf(out, "Token estimate: calibrated, %.2f tokens per estimated token\n",
			    a->caps.calib);
		buf_printf(out, "Compaction: stage %s; thresholds micro %.0f%%, collapse %.0f%%, "
		    "summary %.0f%%%s\n", compact_stage_name(a->stage), a->th.micro * 100,
		    a->th.collapse * 100, a->th.summary * 100,
		    a->summary_failures >= COMPACT_MAX_SUMMARY_FAILURES ?
		    " (automatic summaries stopped after failures)" : "");
		cachewatch_report(a->cw, out);
	} else if (strcmp(what, "memory") == 0) {
		buf_puts(out, a->memory_report != NULL ? a->memory_report : "");
	} else {
		buf_printf(out, "Nothing to report for \"%s\".\n", what);
	}
}

/*
 * A tool call the log shows but whose result it does not (the process died
 * while tools ran): the ledger's result; a read-only tool runs again; a
 * side-effecting one gets an error saying its state is unknown.
 */
static cJSON *
agent_reconcile_one(struct agent *a, const cJSON *use)
{
	const char *id = json_str(use, "id", ""), *name = json_str(use, "name", "");
	const struct tool_def *tool = tool_find(name);
	const cJSON *fx = session_effect_find(a->session, id);
	cJSON *r = cJSON_CreateObject();
	struct tool_out out;

	tool_out_init(&out);
	if (fx != NULL) {
		buf_puts(&out.text, json_str(fx, "result", ""));
		out.is_error = json_bool(fx, "is_error", false);
	} else if (tool != NULL && tool->cls == TOOL_READ_ONLY && tool->run != NULL) {
		tool->run(&a->env, json_get(use, "input"), &out);
	} else {
		tool_out_error(&out, "interrupted: tandem stopped while this %s call was running, "
		    "so its state is unknown; check what it did before retrying it", name);
	}
	cJSON_AddStringToObject(r, "type", "tool_result");
	cJSON_AddStringToObject(r, "tool_use_id", id);
	json_add_str_n(r, "content", buf_cstr(&out.text), out.text.len);
	if (out.is_error)
		cJSON_AddBoolToObject(r, "is_error", 1);
	tool_out_release(&out);
	return r;
}

static int
agent_reconcile(struct agent *a)
{
	cJSON *last = conv_last(&a->conv), *results, *b;
	bool any = false;

	if (last == NULL || strcmp(json_str(last, "role", ""), "assistant") != 0)
		return 0;
	results = cJSON_CreateArray();
	cJSON_ArrayForEach(b, json_get(last, "content")) {
		if (strcmp(json_str(b, "type", ""), "tool_use") != 0)
			continue;
		cJSON_AddItemToArray(results, agent_reconcile_one(a, b));
		any = true;
	}
	if (!any) {
		cJSON_Delete(results);
		return 0;
	}
	if (agent_add(a, "user", results) == -1 ||
	    session_checkpoint(a->session, 'B', a->turn, 0, 0, NULL) == -1 ||
	    session_sync(a->session) == -1)
		return -1;
	return 0;
}

static int
agent_start_session(struct agent *a, const char *resume_id, bool fork, char *err, size_t err_size)
{
	struct buf e = BUF_INIT(4096);
	struct session *old = NULL, *sess;
	const cJSON *m;

	if (resume_id != NULL) {
		/* A fork only reads its source: that may be in use, or damaged (--rewind-to repairs). */
		old = session_open(a->cfg->home, resume_id,
		    fork ? SESSION_OPEN_READ_ONLY | SESSION_OPEN_DAMAGED_OK : 0, &e);
		if (old == NULL)
			goto fail;
	}
	if (old != NULL && !fork) {
		sess = old;
		old = NULL;
	} else {
		sess = session_create(a->cfg->home, a->cfg->root, a->model,
		    old != NULL ? session_id(old) : NULL, &e);
		if (sess == NULL)
			goto fail;
	}
	agent_use_session(a, sess);
	if (resume_id != NULL) {
		cJSON_Delete(a->conv.messages);
		a->conv.messages = session_take_messages(old != NULL ? old : sess);
		if (old != NULL)
			cJSON_ArrayForEach(m, a->conv.messages)
				if (session_log_message(a->session, m) == -1)
					break;
		a->turn = old != NULL ? session_turns(old) : session_turns(sess);
		if (old != NULL)
			session_note_turn(a->session, a->turn, json_str(session_meta(old), "first_prompt", ""));
		event_set_turn(a->bus, a->turn);
		if (session_error(a->session) == NULL)
			agent_reconcile(a);
		a->fork_dry_run = old != NULL;
	}
	if (session_error(a->session) != NULL) {
		buf_puts(&e, session_error(a->session));
		goto fail;
	}
	session_close(old);
	buf_release(&e);
	return 0;
fail:
	snprintf(err, err_size, "%s", buf_cstr(&e));
	session_close(old);
	buf_release(&e);
	return -1;
}

void
agent_replay(struct agent *a)
{
	agent_emit_session(a, a->resumed);
	if (conv_count(&a->conv) > 0)
		agent_replay_history(a);
}

int
agent_resume(struct agent *a, const char *id, struct buf *report)
{
	struct buf err = BUF_INIT(4096);
	struct session *sess;

	if (a->busy || a->compacting) {
		buf_puts(report, "a turn is running: interrupt it first");
		return -1;
	}
	if (strcmp(id, session_id(a->session)) == 0) {
		buf_printf(report, "already in session %s", id);
		return -1;
	}
	sess = session_open(a->cfg->home, id, 0, &err);
	if (sess == NULL) {
		buf_puts(report, buf_cstr(&err));
		buf_release(&err);
		return -1;
	}
	buf_release(&err);
	cJSON_Delete(a->conv.messages);
	a->conv.messages = session_take_messages(sess);
	agent_use_session(a, sess);
	a->turn = session_turns(sess);
	a->unsaved_told = false;
	event_set_turn(a->bus, a->turn);
	if (session_note(sess) != NULL)
		event_error(a->bus, 0, "%s", session_note(sess));
	if (agent_reconcile(a) == -1)
		agent_unsaved(a);
	/* What was said and allowed in the other conversation does not carry over. */
	perm_rules_free(a->session_rules);
	a->session_rules = perm_rules_new();
	a->fork_dry_run = false;
	memset(&a->last, 0, sizeof a->last);
	a->stage = COMPACT_NONE;
	a->summary_failures = 0;
	cachewatch_forget(a->cw);
	agent_load_cache_state(a);
	a->resumed = true;
	agent_session_start(a, "resume");
	agent_replay(a);
	return 0;
}

/* Show a resumed conversation to the front end, as the events that made it. */
static void
agent_replay_history(struct agent *a)
{
	const cJSON *m, *b;
	int turn = -1;

	cJSON_ArrayForEach(m, a->conv.messages) {
		bool user = strcmp(json_str(m, "role", ""), "user") == 0;
		int t = (int)json_int(m, "_turn", 0);
		cJSON *ev;

		event_set_turn(a->bus, t);
		cJSON_ArrayForEach(b, json_get(m, "content")) {
			const char *type = json_str(b, "type", "");

			if (user && strcmp(type, "text") == 0 && t != turn) {
				turn = t;
				ev = event_new(a->bus, "turn_start");
				cJSON_AddStringToObject(ev, "prompt", json_str(b, "text", ""));
				cJSON_AddBoolToObject(ev, "replay", 1);
				event_emit(a->bus, ev);
			} else if (!user && strcmp(type, "text") == 0) {
				ev = event_new(a->bus, "text");
				cJSON_AddStringToObject(ev, "text", json_str(b, "text", ""));
				cJSON_AddBoolToObject(ev, "replay", 1);
				event_emit(a->bus, ev);
			} else if (!user && strcmp(type, "tool_use") == 0) {
				ev = event_new(a->bus, "tool_use");
				cJSON_AddStringToObject(ev, "id", json_str(b, "id", ""));
				cJSON_AddStringToObject(ev, "name", json_str(b, "name", ""));
				cJSON_AddItemToObject(ev, "input", cJSON_Duplicate(json_get(b, "input"), 1));
				cJSON_AddBoolToObject(ev, "replay", 1);
				event_emit(a->bus, ev);
			} else if (user && strcmp(type, "tool_result") == 0) {
				const cJSON *c = json_get(b, "content");

				ev = event_new(a->bus, "tool_result");
				cJSON_AddStringToObject(ev, "id", json_str(b, "tool_use_id", ""));
				cJSON_AddStringToObject(ev, "name", "");
				cJSON_AddBoolToObject(ev, "is_error", json_bool(b, "is_error", false));
				cJSON_AddStringToObject(ev, "content", cJSON_IsString(c) ? c->valuestring : "");
				cJSON_AddNumberToObject(ev, "duration_ms", 0);
				cJSON_AddBoolToObject(ev, "replay", 1);
				event_emit(a->bus, ev);
			}
		}
		if (!user) {
			ev = event_new(a->bus, "turn_end");
			cJSON_AddStringToObject(ev, "stop_reason", "end_turn");
			cJSON_AddBoolToObject(ev, "replay", 1);
			event_emit(a->bus, ev);
		}
	}
	event_set_turn(a->bus, a->turn);
}

struct agent *
agent_new(struct ev_loop *loop, struct event_bus *bus, const struct config *cfg,
    const char *resume_id, bool fork, bool interactive, char *err, size_t err_size)
{
	static const struct sched_ops ops_proto = {
		agent_gate, agent_started, agent_progress, agent_finished, agent_tools_idle, NULL
	};
	struct sched_ops ops = ops_proto;
	struct agent *a = xcalloc(1, sizeof *a);

	buf_init(&a->answer, BUF_NOLIMIT);
	a->loop = loop;
	a->bus = bus;
	a->cfg = cfg;
	a->interactive = interactive;
	a->proto = cfg->provider != NULL && strcmp(cfg->provider, "openai") == 0 ?
	    STREAM_OPENAI : STREAM_ANTHROPIC;
	a->model = xstrdup(cfg->model);
	a->base_url = xstrdup(cfg->base_url != NULL ? cfg->base_url : provider_default_base(a->proto));
	a->mode = cfg->mode;
	a->session_rules = perm_rules_new();
	buf_init(&a->progress_redact.hold, BUF_NOLIMIT);
	a->hooks = hooks_new(loop, cfg);
	hooks_attach(a->hooks, bus);
	{
		struct buf mem = BUF_INIT(BUF_NOLIMIT), report = BUF_INIT(BUF_NOLIMIT);

		memory_load(cfg, &mem, &report);
		a->memory = buf_detach(&mem, NULL);
		a->memory_report = buf_detach(&report, NULL);
	}
	/* Retry jitter must differ between processes that fail together. */
	{
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		srand((unsigned)ts.tv_nsec ^ (unsigned)ts.tv_sec ^ ((unsigned)getpid() << 16));
	}
	a->http = http_new(loop);
	if (a->http == NULL) {
		snprintf(err, err_size, "libcurl could not be started");
		agent_free(a);
		return NULL;
	}
	{
		struct modelcat_opts mo;
		struct buf perr = BUF_INIT(4096);

		memset(&mo, 0, sizeof mo);
		mo.loop = loop;
		mo.http = a->http;
		mo.proto = a->proto;
		mo.base_url = a->base_url;
		mo.home = cfg->home;
		mo.headers = agent_auth_headers;
		mo.headers_arg = a;
		a->cat = modelcat_new(&mo);
		modelcat_get(a->cat, a->model, &a->caps);
		a->prices = prices_load(NULL, cfg->prices, &perr);
		if (a->prices == NULL) {
			snprintf(err, err_size, "%s", buf_cstr(&perr));
			buf_release(&perr);
			agent_free(a);
			return NULL;
		}
		buf_release(&perr);
		a->effort = cfg->effort != NULL ? xstrdup(cfg->effort) : NULL;
	}
	if (cfg->api_key_helper != NULL) {
		struct buf kerr = BUF_INIT(4096);

		if (agent_run_key_helper(a, &kerr) == -1) {
			snprintf(err, err_size, "%s", buf_cstr(&kerr));
			buf_release(&kerr);
			agent_free(a);
			return NULL;
		}
		buf_release(&kerr);
	}
	/* In the background: the first frame never waits for the provider. */
	(void)modelcat_refresh(a->cat, a->model, agent_models_done, a);
	a->sys_static = xstrdup(system_static);
	a->tools = agent_tools_json(cfg);
	{
		const char *ttl = getenv("TANDEM_CACHE_TTL_MS");
		char *end;
		long long v = ttl != NULL ? strtoll(ttl, &end, 10) : 0;

		a->cw = cachewatch_new(cfg->cache_ttl_ms > 0 ? cfg->cache_ttl_ms :
		    ttl != NULL && *end == '\0' && v > 0 ? v : 0);
	}
	a->th.micro = cfg->compact_micro;
	a->th.collapse = cfg->compact_collapse;
	a->th.summary = cfg->compact_summary;
	conv_init(&a->conv);
	if (agent_start_session(a, resume_id, fork, err, err_size) == -1) {
		agent_free(a);
		return NULL;
	}
	ops.arg = a;
	a->sched = sched_new(loop, &a->env, &ops);
	a->resumed = resume_id != NULL;
	/* A front end that subscribes later asks for the replay (agent_replay). */
	agent_emit_session(a, a->resumed);
	if (session_note(a->session) != NULL)
		event_error(a->bus, 0, "%s", session_note(a->session));
	if (resume_id != NULL && !fork)
		agent_load_cache_state(a);
	agent_session_start(a, resume_id != NULL ? "resume" : "startup");
	return a;
}

void
agent_free(struct agent *a)
{
	if (a == NULL)
		return;
	if (a->retry_timer != 0)
		ev_timer_cancel(a->loop, a->retry_timer);
	if (a->models_timer != 0)
		ev_timer_cancel(a->loop, a->models_timer);
	a->models_timer = 0;
	if (a->req != NULL)
		http_cancel(a->req);
	stream_free(a->stream);
	buf_release(&a->errbody);
	if (a->sum.req != NULL)
		http_cancel(a->sum.req);
	a->retry_timer = 0;
	a->req = NULL;
	a->sum.req = NULL;
	/* SessionEnd hooks get a few seconds; nothing may start a request meanwhile. */
	a->interrupting = true;
	hooks_cancel_tools(a->hooks);
	hooks_cancel(a->hook_run);
	hooks_cancel(a->start_run);
	a->hook_run = a->start_run = NULL;
	if (hooks_has(a->hooks, HOOK_SESSION_END, "exit")) {
		cJSON *f = cJSON_CreateObject();

		cJSON_AddStringToObject(f, "reason", "exit");
		hooks_run(a->hooks, HOOK_SESSION_END, f, agent_hooks_ignored, a);
		cJSON_Delete(f);
		hooks_drain(a->hooks, AGENT_SESSION_END_MS);
	}
	hooks_free(a->hooks);
	a->hooks = NULL;
	stream_free(a->sum.stream);
	buf_release(&a->sum.errbody);
	cachewatch_free(a->cw);
	sched_free(a->sched);
	modelcat_free(a->cat);
	model_caps_release(&a->caps);
	prices_free(a->prices);
	free(a->effort);
	free(a->helper_key);
	free(a->models_note);
	http_free(a->http);
	conv_release(&a->conv);
	cJSON_Delete(a->tools);
	perm_rules_free(a->session_rules);
	redact_stream_release(&a->progress_redact);
	free(a->sys_static);
	free(a->sys_dynamic);
	free(a->model);
	free(a->base_url);
	session_close(a->session);
	free(a->snap_dir);
	free(a->stop_reason);
	buf_release(&a->answer);
	free(a->turn_prompt);
	cJSON_Delete(a->turn_tools);
	cJSON_Delete(a->attach);
	free(a->session_context);
	free(a->memory);
	free(a->memory_report);
	free(a);
}
