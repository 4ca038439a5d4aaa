/*
 * modelset: the model the agent talks to and how a request is shaped for it.
 *
 * Owns the model and effort in use, what is known of the model (its caps
 * from the catalogue, the bounded wait for them), the window and the
 * calibration of the token estimate, the credentials (the key, the
 * apiKeyHelper's key, gateway headers), the request's output, thinking
 * and effort fields, the call's timeouts, and the price of a usage.
 */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "context/cachewatch.h"
#include "context/compact.h"
#include "config/config.h"
#include "context/conv.h"
#include "ev.h"
#include "fsutil.h"
#include "event.h"
#include "model/http.h"
#include "hooks.h"
#include "json.h"
#include "context/memory.h"
#include "model/modelcat.h"
#include "model/models.h"
#include "rules/perm.h"
#include "proc.h"
#include "model/provider.h"
#include "redact.h"
#include "sandbox.h"
#include "sched.h"
#include "store/session.h"
#include "model/stream.h"
#include "xalloc.h"
#include "turn_int.h"
#include "claude/claude.h"
#include "mcp/mcp.h"
#include "call.h"
#include "compaction.h"
#include "gate.h"
#include "modelset.h"
#include "prompt.h"
#include "record.h"
#include "resume.h"
#include "timeline.h"

static void modelset_models_listed(void *arg, cJSON *list, const char *err);
static void modelset_note_setting(struct conversation *cv, const char *setting, const char *why);
static void modelset_emit_window(struct conversation *cv);
static void modelset_models_waited(struct ev_loop *loop, void *arg);
static bool modelset_local_server(const struct conversation *cv);

/* What the session knows of its model (modelset.c's), held by the session. */
struct modelset {
	struct modelcat		*cat;
	struct model_caps	 caps;		/* of the model, as best known now */
	struct prices		*prices;
	char			*effort;	/* /effort, else the setting; NULL: none */
	char			*helper_key;	/* apiKeyHelper's output */
	bool			 models_waited;	/* the first request of the model waited once */
	bool			 caps_sent;	/* a request of the model went out with caps */
	bool			 think_noted;	/* the note about an unused setting was given */
	cJSON			*held_said;	/* "definition\nmodel" of each project model held back and said */
	char			*models_note;	/* why the limits come from the table */

	/* The model in use: its protocol, its name (/model changes it), its server. */
	enum stream_proto	 proto;
	char			*model;
	char			*base_url;
};

struct modelset *
modelset_new(const struct config *cfg)
{
	struct modelset *ms = xcalloc(1, sizeof *ms);

	ms->proto = cfg->provider != NULL && strcmp(cfg->provider, "openai") == 0 ?
	    STREAM_OPENAI : STREAM_ANTHROPIC;
	ms->model = xstrdup(cfg->model);
	ms->base_url = xstrdup(cfg->base_url != NULL ? cfg->base_url : provider_default_base(ms->proto));
	return ms;
}

void
modelset_free(struct modelset *ms)
{
	if (ms == NULL)
		return;
	modelcat_free(ms->cat);
	model_caps_release(&ms->caps);
	prices_free(ms->prices);
	free(ms->effort);
	free(ms->helper_key);
	free(ms->models_note);
	free(ms->model);
	free(ms->base_url);
	cJSON_Delete(ms->held_said);
	free(ms);
}

const char *
agent_model(const struct agent *a)
{
	return agent_modelset(a)->model;
}

enum stream_proto
agent_proto(const struct agent *a)
{
	return agent_modelset(a)->proto;
}

const char *
modelset_base_url(const struct agent *a)
{
	return agent_modelset(a)->base_url;
}

void
agent_emit_session(struct conversation *cv, bool resumed)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	emit_session(conversation_bus(cv), session_id(agent_session(a)), ms->model,
	    ms->proto == STREAM_OPENAI ? "openai" : "anthropic", agent_config(a)->root, resumed, NULL);
}

void
modelset_caps_used(struct conversation *cv)
{
	agent_modelset(conversation_agent(cv))->caps_sent = true;
}

void
modelset_report_prices(const struct conversation *cv, struct buf *out)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);
	const struct prices *p = ms->prices;

	if (prices_find(p, ms->model) == NULL)
		buf_printf(out, "No price is known for %s (the price file %s, or \"prices\" in "
		    "the settings)\n", ms->model, p->path != NULL ? p->path : "(none)");
	else
		buf_printf(out, "Prices from %s, checked %s\n", p->path != NULL ?
		    p->path : "the settings", p->checked != NULL ? p->checked : "?");
}

void
modelset_report_model(const struct conversation *cv, struct buf *out)
{
	struct agent *a = conversation_agent(cv);
	const struct modelset *ms = agent_modelset(a);

	buf_printf(out, "Model: %s, window %lld, output up to %lld, thinking %s, limits from %s%s%s\n",
	    agent_modelset(a)->model, (long long)modelset_window(cv), (long long)ms->caps.max_output,
	    model_thinking_name(&ms->caps),
	    ms->caps.source == MODEL_SERVER ? "the server" : ms->caps.source == MODEL_CACHE ?
	    "the server (cached)" : "tandem's table", ms->models_note != NULL ? ": " : "",
	    ms->models_note != NULL ? ms->models_note : "");
	if (ms->caps.calib > 0)
		buf_printf(out, "Token estimate: calibrated, %.2f tokens per estimated token\n",
		    ms->caps.calib);
}

void
agent_set_model(struct agent *a, const char *model)
{
	struct modelset *ms = agent_modelset(a);
	struct conversation *cv = agent_main(a);
	int64_t before = modelset_window(cv);

	free(ms->model);
	ms->model = xstrdup(model);
	model_caps_release(&ms->caps);
	modelcat_get(ms->cat, ms->model, &ms->caps);
	ms->models_waited = false;
	ms->caps_sent = false;
	ms->think_noted = false;
	/* The next request is shaped, and compacted, for the new model's window. */
	(void)modelcat_refresh(ms->cat, ms->model, modelset_models_done, cv);
	if (modelset_window(cv) != before)
		modelset_emit_window(cv);
}

bool
agent_project_model_held(struct agent *a, const char *model, struct buf *why)
{
	struct modelset *ms = agent_modelset(a);

	if (model == NULL || agent_config(a)->trusted || !prices_dearer(ms->prices, model, ms->model))
		return false;
	buf_printf(why, "%s than the session's %s", prices_find(ms->prices, model) == NULL ?
	    "has no price (the price file, your \"prices\") and may cost more" :
	    "costs more per token", ms->model);
	return true;
}

const char *
agent_project_model(struct agent *a, const char *def, const char *model)
{
	struct modelset *ms = agent_modelset(a);
	struct buf key = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(BUF_NOLIMIT);
	const cJSON *said;
	bool again = false;

	if (!agent_project_model_held(a, model, &why)) {
		buf_release(&why);
		return model;
	}
	buf_printf(&key, "%s\n%s", def, model);
	if (ms->held_said == NULL)
		ms->held_said = cJSON_CreateArray();
	cJSON_ArrayForEach(said, ms->held_said)
		again = again || (cJSON_IsString(said) && strcmp(said->valuestring, buf_cstr(&key)) == 0);
	if (!again) {
		cJSON_AddItemToArray(ms->held_said, cJSON_CreateString(buf_cstr(&key)));
		event_error(agent_bus(a), 0, "%s asks for the model %s, which %s; "
		    "a project's choice of a dearer model waits for trust, so %s answers (rerun with "
		    "--trust to honour it)", def, model, buf_cstr(&why), ms->model);
	}
	buf_release(&key);
	buf_release(&why);
	return NULL;
}

void
agent_set_effort(struct agent *a, const char *level)
{
	struct modelset *ms = agent_modelset(a);

	free(ms->effort);
	ms->effort = level != NULL && level[0] != '\0' ? xstrdup(level) : NULL;
	ms->think_noted = false;
}

const char *
agent_effort(const struct agent *a)
{
	return agent_modelset(a)->effort;
}

const struct model_caps *
agent_model_caps(const struct agent *a)
{
	return &agent_modelset(a)->caps;
}

struct modelset_models_req {
	struct conversation	*cv;
	agent_models_fn		*fn;
	void			*arg;
};

static void
modelset_models_listed(void *arg, cJSON *list, const char *err)
{
	struct modelset_models_req *r = arg;
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	if (list != NULL) {
		modelcat_format(list, agent_modelset(conversation_agent(r->cv))->prices,
		    agent_modelset(conversation_agent(r->cv))->model, &out);
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
	struct conversation *cv = agent_main(a);
	struct modelset_models_req *r = xcalloc(1, sizeof *r);

	r->cv = cv;
	r->fn = fn;
	r->arg = arg;
	modelcat_list_start(agent_modelset(a)->cat, modelset_models_listed, r);
}

/* The context window: the setting, else the model's. */
int64_t
modelset_window(const struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	return agent_config(a)->context_window > 0 ? agent_config(a)->context_window :
	    ms->caps.window > 0 ? ms->caps.window : 128000;
}

/*
 * The window in the units of compact_estimate (bytes / 4): the estimate is
 * calibrated per model by the usage the server reports, so thresholds hold
 * under a tokenizer that counts more tokens for the same text.
 */
int64_t
modelset_est_window(const struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);
	double c = ms->caps.calib > 0 ? ms->caps.calib : 1.0;

	return (int64_t)((double)modelset_window(cv) / c);
}

/* Tokens for an estimate of est (bytes / 4), calibrated. */
int64_t
modelset_est_tokens(const struct conversation *cv, int64_t est)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	return ms->caps.calib > 0 ? (int64_t)((double)est * ms->caps.calib) : est;
}

/*
 * apiKeyHelper's key without the blanks around it, in place; its length.
 * HTTP drops them from the header anyway, and the redaction must know the
 * key as it appears elsewhere, not with a helper's stray spaces.
 */
static size_t
modelset_key_trim(char *key)
{
	size_t n = strlen(key), skip = strspn(key, " \t");

	while (n > skip && (key[n - 1] == ' ' || key[n - 1] == '\t'))
		n--;
	memmove(key, key + skip, n - skip);
	key[n - skip] = '\0';
	return n - skip;
}

/* Who is asking: the key (apiKeyHelper's output first), a gateway token, headers. */
void
modelset_auth(const struct conversation *cv, struct provider_request *pr)
{
	struct agent *a = conversation_agent(cv);
	const struct config *cfg = agent_config(a);
	struct modelset *ms = agent_modelset(a);

	pr->proto = ms->proto;
	pr->base_url = ms->base_url;
	pr->api_key = ms->helper_key != NULL ? ms->helper_key : cfg->api_key;
	pr->auth_token = cfg->auth_token;
	pr->custom_headers = cfg->custom_headers;
}

struct curl_slist *
modelset_auth_headers(void *arg)
{
	struct provider_request pr;

	memset(&pr, 0, sizeof pr);
	modelset_auth(arg, &pr);
	return provider_auth_headers(&pr);
}

/* How much of the end of the helper's standard error is kept for its message. */
#define MODELSET_HELPER_ERR_MAX	4096
/* How much of it the message shows (its end, where the reason usually is). */
#define MODELSET_HELPER_ERR_SHOWN	300

/* One read of the helper's pipe into b; false once it is over. */
static bool
modelset_helper_read(int fd, struct buf *b, size_t keep)
{
	char chunk[4096];
	ssize_t n;

	do
		n = read(fd, chunk, sizeof chunk);
	while (n == -1 && errno == EINTR);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return true;
	if (n <= 0)
		return false;
	(void)buf_append(b, chunk, (size_t)n);
	if (keep > 0 && b->len > keep)
		buf_consume(b, b->len - keep);
	return true;
}

/*
 * The helper's standard output and the end of its standard error, as proc
 * runs every child (under a keeper, so it does not outlive tandem; no
 * descriptor of tandem's; its own session).  Its standard error is never
 * tandem's: it may hold a key, and it would be written over the screen.
 * Returns its wait status, or -1 with err filled when it could not start.
 */
static int
modelset_helper_output(const char *command, struct buf *out, struct buf *errout,
    struct buf *err)
{
	const char *argv[] = { "/bin/sh", "-c", command, NULL };
	struct proc_spec spec = {
		.argv = argv, .in = PROC_IO_NULL, .out = PROC_IO_PIPE, .err = PROC_IO_PIPE,
	};
	struct proc p;
	int st = -1;

	if (proc_spawn(&spec, &p, err) == -1)
		return -1;
	while (p.out != -1 || p.err != -1) {
		struct pollfd pf[2] = { { p.out, POLLIN, 0 }, { p.err, POLLIN, 0 } };

		if (poll(pf, 2, -1) == -1 && errno != EINTR)
			break;
		if (pf[0].revents != 0 && !modelset_helper_read(p.out, out, 0)) {
			close(p.out);
			p.out = -1;
		}
		if (pf[1].revents != 0 &&
		    !modelset_helper_read(p.err, errout, MODELSET_HELPER_ERR_MAX)) {
			close(p.err);
			p.err = -1;
		}
	}
	if (p.out != -1)
		close(p.out);
	if (p.err != -1)
		close(p.err);
	while (waitpid(p.pid, &st, 0) == -1 && errno == EINTR)
		;
	proc_forget(p.pid);
	return st;
}

/*
 * "apiKeyHelper (command) failed ...": one sentence in err, with how it
 * ended and the end of what it said on one line, redacted (the secrets
 * tandem knows, and whatever is shaped like a key).
 */
static void
modelset_helper_failed(const char *command, int st, struct buf *said, struct buf *err)
{
	struct buf msg = BUF_INIT(BUF_NOLIMIT);
	size_t i, skip = 0;

	buf_printf(&msg, "apiKeyHelper (%s) ", command);
	if (WIFSIGNALED(st))
		buf_printf(&msg, "was killed by signal %d", WTERMSIG(st));
	else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		buf_printf(&msg, "failed with exit status %d", WEXITSTATUS(st));
	else
		buf_puts(&msg, "printed no key");
	for (i = 0; i < said->len; i++)
		if (said->data[i] == '\n' || said->data[i] == '\r' || said->data[i] == '\t')
			said->data[i] = ' ';
	while (said->len > 0 && said->data[said->len - 1] == ' ')
		buf_truncate(said, said->len - 1);
	while (skip < said->len && said->data[skip] == ' ')
		skip++;
	buf_consume(said, skip);
	if (said->len > MODELSET_HELPER_ERR_SHOWN)
		buf_consume(said, said->len - MODELSET_HELPER_ERR_SHOWN);
	if (said->len > 0)
		buf_printf(&msg, ": %s", buf_cstr(said));
	(void)redact_keylike(&msg);
	buf_puts(err, buf_cstr(&msg));
	buf_release(&msg);
}

int
agent_key_helper(const struct config *cfg, char **key, struct buf *err)
{
	struct buf out = BUF_INIT(64 * 1024), said = BUF_INIT(BUF_NOLIMIT), why = BUF_INIT(1024);
	size_t n;
	int st;

	*key = NULL;
	if (cfg->api_key_helper == NULL)
		return 0;
	st = modelset_helper_output(cfg->api_key_helper, &out, &said, &why);
	if (st == -1) {
		buf_printf(err, "apiKeyHelper could not be run: %s",
		    why.len > 0 ? buf_cstr(&why) : strerror(errno));
		goto fail;
	}
	n = strcspn(buf_cstr(&out), "\r\n");
	if (st != 0 || n == 0)
		goto failed;
	*key = xstrndup(buf_cstr(&out), n);
	if (modelset_key_trim(*key) == 0) {
		free(*key);
		*key = NULL;
		goto failed;
	}
	/* The helper's key is a secret like the environment's: never shown, logged or sent on. */
	redact_add(*key);
	buf_release(&out);
	buf_release(&said);
	buf_release(&why);
	return 0;
failed:
	modelset_helper_failed(cfg->api_key_helper, st, &said, err);
fail:
	buf_release(&out);
	buf_release(&said);
	buf_release(&why);
	return -1;
}

int
modelset_run_key_helper(struct conversation *cv, struct buf *err)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);
	char *key;

	if (agent_key_helper(agent_config(a), &key, err) == -1)
		return -1;
	if (key != NULL) {
		free(ms->helper_key);
		ms->helper_key = key;
	}
	return 0;
}

/* Say once, as a notice, that a setting has no effect on this model. */
static void
modelset_note_setting(struct conversation *cv, const char *setting, const char *why)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	if (ms->think_noted)
		return;
	ms->think_noted = true;
	event_error(conversation_bus(cv), 0, "%s is not used: %s %s", setting, ms->model, why);
}

/*
 * What the request says of output length, thinking and effort: only what
 * this model takes (its caps), whatever the settings hold.
 */
void
modelset_shape_request(struct conversation *cv, struct provider_request *pr)
{
	struct agent *a = conversation_agent(cv);
	const struct config *cfg = agent_config(a);
	struct modelset *ms = agent_modelset(a);
	const struct model_caps *c = &ms->caps;
	const char *th = cfg->thinking != NULL ? cfg->thinking : "auto";
	bool adaptive = (c->thinking & MODEL_THINK_ADAPTIVE) != 0;
	bool budget = (c->thinking & MODEL_THINK_ENABLED) != 0;
	bool want_budget = strcmp(th, "enabled") == 0 ||
	    (strcmp(th, "auto") == 0 && cfg->thinking_budget > 0);

	pr->max_tokens = cfg->max_tokens;
	if (c->max_output > 0 && pr->max_tokens > c->max_output)
		pr->max_tokens = (int)c->max_output;
	pr->max_output = (long)c->max_output;
	pr->completion_tokens = ms->proto == STREAM_OPENAI && c->completion_tokens;
	pr->thinking = PROVIDER_THINK_NONE;
	if (ms->proto == STREAM_ANTHROPIC) {
		if (strcmp(th, "off") == 0)
			pr->thinking = adaptive && c->adaptive_default ? PROVIDER_THINK_OFF : PROVIDER_THINK_NONE;
		else if (want_budget && budget) {
			pr->thinking = PROVIDER_THINK_BUDGET;
			pr->thinking_budget = cfg->thinking_budget > 0 ? cfg->thinking_budget : 4096;
		} else if (want_budget && adaptive) {
			pr->thinking = PROVIDER_THINK_ADAPTIVE;
			modelset_note_setting(cv, "thinking_budget", "thinks adaptively and takes no "
			    "thinking budget; set effort instead");
		} else if (adaptive && strcmp(th, "enabled") != 0)
			pr->thinking = PROVIDER_THINK_ADAPTIVE;
	}
	pr->effort = NULL;
	if (ms->effort != NULL && (ms->proto == STREAM_ANTHROPIC || c->completion_tokens)) {
		if (ms->proto == STREAM_OPENAI || model_has_effort(c, ms->effort))
			pr->effort = ms->effort;
		else
			modelset_note_setting(cv, "effort", "does not list that level (`tandem models` "
			    "shows the levels it takes)");
	}
}

/* A context event for a window that changed (the status bar shows it). */
static void
modelset_emit_window(struct conversation *cv)
{
	const struct usage *l = conversation_last_usage(cv);

	emit_context(conversation_bus(cv), l->input + l->cache_write + l->cache_read + l->output,
	    modelset_window(cv), compact_stage_name(conv_stage(conversation_conv(cv))));
}

/*
 * What modelset keeps of one conversation's requests: the first request's
 * bounded wait for what the server says of the model, and the estimated
 * tokens of the request in flight (the calibration's).
 */
struct modelset_conv {
	struct ev_loop	*loop;
	uint64_t	 timer;		/* the request's wait; 0: none */
	int64_t		 est_sent;
};

struct modelset_conv *
modelset_conv_new(struct ev_loop *loop)
{
	struct modelset_conv *mc = xcalloc(1, sizeof *mc);

	mc->loop = loop;
	return mc;
}

void
modelset_conv_free(struct modelset_conv *mc)
{
	if (mc == NULL)
		return;
	if (mc->timer != 0)
		ev_timer_cancel(mc->loop, mc->timer);
	free(mc);
}

void
modelset_wait_cancel(struct conversation *cv)
{
	struct modelset_conv *mc = conversation_mconv(cv);

	if (mc->timer != 0)
		ev_timer_cancel(agent_loop(conversation_agent(cv)), mc->timer);
	mc->timer = 0;
}

void
modelset_sending(struct conversation *cv, int64_t est)
{
	conversation_mconv(cv)->est_sent = est;
}

/* The catalogue answered for model: take the new caps, and send a request that waited. */
void
modelset_models_done(void *arg, const char *model, enum modelcat_outcome out, const char *note)
{
	struct conversation *cv = arg;
	struct modelset_conv *mc = conversation_mconv(cv);
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	int64_t before = modelset_window(cv);

	if (strcmp(model, ms->model) != 0)
		return;
	/*
	 * Once a request went out with what was known, the session keeps it
	 * (a change of thinking or max_tokens mid-session breaks the prompt
	 * cache); the answer is cached for the next session.
	 */
	if (ms->caps_sent) {
		if (mc->timer != 0) {
			ev_timer_cancel(agent_loop(a), mc->timer);
			mc->timer = 0;
			agent_call_model(cv);
		}
		return;
	}
	model_caps_release(&ms->caps);
	modelcat_get(ms->cat, ms->model, &ms->caps);
	if (modelset_window(cv) != before)
		modelset_emit_window(cv);
	free(ms->models_note);
	ms->models_note = out != MODELCAT_FOUND ? xstrdup(note) : NULL;
	if (out == MODELCAT_UNKNOWN_MODEL)
		event_error(conversation_bus(cv), 0, "%s", note);
	if (mc->timer != 0) {
		ev_timer_cancel(agent_loop(a), mc->timer);
		mc->timer = 0;
		agent_call_model(cv);
	}
}

static void
modelset_models_waited(struct ev_loop *loop, void *arg)
{
	struct conversation *cv = arg;

	(void)loop;
	conversation_mconv(cv)->timer = 0;
	agent_call_model(cv);
}

/*
 * With nothing known of the model but the table and its answer on the way,
 * the first request waits a bounded time for it.  True: it waits.
 */
bool
modelset_wait(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	if (ms->models_waited || ms->caps.source != MODEL_TABLE || agent_config(a)->models_wait_ms <= 0 ||
	    !modelcat_busy(ms->cat, ms->model))
		return false;
	ms->models_waited = true;
	conversation_mconv(cv)->timer = ev_timer_add(agent_loop(a), agent_config(a)->models_wait_ms,
	    modelset_models_waited, cv);
	return true;
}

/* Learn how many real tokens an estimated one is, from the usage of the last request. */
void
modelset_calibrate(struct conversation *cv, const struct usage *u)
{
	struct modelset_conv *mc = conversation_mconv(cv);
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);
	int64_t real = u->input + u->cache_read + u->cache_write;
	double r, c;

	if (mc->est_sent < 256 || real <= 0)
		return;
	r = (double)real / (double)mc->est_sent;
	if (r < 0.25 || r > 4.0)
		return;
	c = ms->caps.calib > 0 ? 0.5 * ms->caps.calib + 0.5 * r : r;
	ms->caps.calib = c;
	modelcat_calibrate(ms->cat, ms->model, c);
}

double
modelset_cost(const struct conversation *cv, const struct usage *u)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	return prices_cost(prices_find(ms->prices,
	    conversation_model(cv) != NULL ? conversation_model(cv) : ms->model), u,
	    agent_config(a)->cache_ttl_ms > 300000);
}

double
modelset_break_cost(const struct conversation *cv, const struct cachewatch_break *br, const struct usage *u)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	return prices_break_cost(prices_find(ms->prices, ms->model), br->dropped_tokens,
	    u->input + u->cache_read + u->cache_write, agent_config(a)->cache_ttl_ms > 300000);
}

/*
 * A local OpenAI-compatible server (llama.cpp, Ollama on this machine) may
 * stream a token a second: no overall deadline unless one is set.
 */
static bool
modelset_local_server(const struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);
	static const char *const local[] = { "localhost", "127.", "[::1]", "0.0.0.0" };
	const char *host = strstr(ms->base_url, "://");
	size_t i;

	if (ms->proto != STREAM_OPENAI || host == NULL)
		return false;
	host += 3;
	for (i = 0; i < sizeof local / sizeof local[0]; i++)
		if (strncmp(host, local[i], strlen(local[i])) == 0)
			return true;
	return false;
}

/* The timeouts of a model call that may write max_tokens tokens. */
void
modelset_timeouts(const struct conversation *cv, int max_tokens, bool stall_on_progress,
    struct http_timeouts *to)
{
	struct agent *a = conversation_agent(cv);
	const struct config *cfg = agent_config(a);
	long long d = cfg->deadline_ms;

	to->connect_ms = cfg->connect_timeout_ms;
	to->first_byte_ms = cfg->first_byte_timeout_ms;
	to->stall_ms = cfg->stall_timeout_ms;
	to->stall_on_progress = stall_on_progress;
	if (d < 0)
		d = modelset_local_server(cv) ? 0 : (long long)cfg->first_byte_timeout_ms +
		    (long long)max_tokens * cfg->ms_per_token;
	to->deadline_ms = d > 86400000 ? 86400000 : (long)d;
}

void
modelset_forget(struct conversation *cv)
{
	struct agent *a = conversation_agent(cv);
	struct modelset *ms = agent_modelset(a);

	modelcat_forget(ms->cat, ms->model);
	model_caps_release(&ms->caps);
	modelcat_get(ms->cat, ms->model, &ms->caps);
	(void)modelcat_refresh(ms->cat, ms->model, modelset_models_done, cv);
}

int
modelset_init(struct conversation *cv, char *err, size_t err_size)
{
	struct agent *a = conversation_agent(cv);
	const struct config *cfg = agent_config(a);
	struct modelset *ms = agent_modelset(a);
	struct modelcat_opts mo;
	struct buf perr = BUF_INIT(4096);

	memset(&mo, 0, sizeof mo);
	mo.loop = agent_loop(a);
	mo.http = agent_http(a);
	mo.proto = ms->proto;
	mo.base_url = ms->base_url;
	mo.home = cfg->home;
	mo.headers = modelset_auth_headers;
	mo.headers_arg = cv;
	ms->cat = modelcat_new(&mo);
	modelcat_get(ms->cat, ms->model, &ms->caps);
	ms->prices = prices_load(NULL, cfg->prices, &perr);
	if (ms->prices == NULL) {
		snprintf(err, err_size, "%s", buf_cstr(&perr));
		buf_release(&perr);
		return -1;
	}
	buf_release(&perr);
	ms->effort = cfg->effort != NULL ? xstrdup(cfg->effort) : NULL;
	if (cfg->api_key_helper != NULL) {
		struct buf kerr = BUF_INIT(4096);

		if (modelset_run_key_helper(cv, &kerr) == -1) {
			snprintf(err, err_size, "%s", buf_cstr(&kerr));
			buf_release(&kerr);
			return -1;
		}
		buf_release(&kerr);
	}
	/* In the background: the first frame never waits for the provider. */
	(void)modelcat_refresh(ms->cat, ms->model, modelset_models_done, cv);
	return 0;
}
