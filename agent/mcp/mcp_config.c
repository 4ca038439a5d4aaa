/* The MCP servers' configuration: see mcp_config.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "buf.h"
#include "config/config.h"
#include "json.h"
#include "mcp_config.h"
#include "redact.h"
#include "sha256.h"
#include "xalloc.h"

#define MCP_FILE_MAX	(1024 * 1024)
#define MCP_LIST_MAX	256		/* args, env entries or headers of one server */

void
mcp_config_init(struct mcp_config *mc)
{
	mc->v = NULL;
	mc->n = 0;
}

static void
mcp_strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

void
mcp_server_cfg_release(struct mcp_server_cfg *s)
{
	free(s->name);
	free(s->key);
	free(s->command);
	mcp_strv_free(s->args);
	mcp_strv_free(s->env);
	free(s->cwd);
	free(s->url);
	mcp_strv_free(s->headers);
	free(s->source);
	free(s->error);
	memset(s, 0, sizeof *s);
}

void
mcp_config_release(struct mcp_config *mc)
{
	size_t i;

	for (i = 0; i < mc->n; i++)
		mcp_server_cfg_release(&mc->v[i]);
	free(mc->v);
	mcp_config_init(mc);
}

char *
mcp_sanitize(const char *s, bool squeeze, size_t max)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const char *ok = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-";

	for (; *s != '\0' && b.len < max; s++) {
		int c = strchr(ok, *s) != NULL ? *s : '_';

		if (squeeze && c == '_' && b.len > 0 && b.data[b.len - 1] == '_')
			continue;
		buf_putc(&b, c);
	}
	if (b.len == 0)
		buf_putc(&b, '_');
	return buf_detach(&b, NULL);
}

int
mcp_expand(const char *s, struct buf *out, struct buf *err)
{
	const char *p = s, *close, *dflt;
	char name[256];
	size_t nlen;

	while (*p != '\0') {
		if (p[0] != '$' || p[1] != '{' || (close = strchr(p + 2, '}')) == NULL) {
			buf_putc(out, *p++);
			continue;
		}
		dflt = strstr(p + 2, ":-");
		if (dflt != NULL && dflt > close)
			dflt = NULL;
		nlen = (size_t)((dflt != NULL ? dflt : close) - (p + 2));
		if (nlen == 0 || nlen >= sizeof name) {
			buf_putc(out, *p++);
			continue;
		}
		memcpy(name, p + 2, nlen);
		name[nlen] = '\0';
		if (getenv(name) != NULL && (dflt == NULL || getenv(name)[0] != '\0'))
			buf_puts(out, getenv(name));
		else if (dflt != NULL)
			buf_append(out, dflt + 2, (size_t)(close - (dflt + 2)));
		else {
			buf_printf(err, "the environment variable %s is not set (write ${%s:-default} "
			    "for a default)", name, name);
			return -1;
		}
		p = close + 1;
	}
	return 0;
}

/* A string member, expanded; NULL when absent.  -1 on a wrong type or unset variable. */
static int
mcp_get_str(const cJSON *o, const char *key, char **out, struct buf *err)
{
	const cJSON *v = json_get(o, key);
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v)) {
		buf_printf(err, "\"%s\" must be a string", key);
		return -1;
	}
	if (mcp_expand(v->valuestring, &b, err) == -1) {
		buf_release(&b);
		return -1;
	}
	*out = buf_detach(&b, NULL);
	return 0;
}

/* args: an array of strings; env and headers: an object of strings joined by sep. */
static int
mcp_get_list(const cJSON *o, const char *key, const char *sep, char ***out, struct buf *err)
{
	const cJSON *v = json_get(o, key), *it;
	size_t n = 0;
	char **list;

	*out = NULL;
	if (v == NULL || cJSON_IsNull(v))
		return 0;
	if (sep == NULL ? !cJSON_IsArray(v) : !cJSON_IsObject(v)) {
		buf_printf(err, "\"%s\" must be %s", key, sep == NULL ? "an array of strings" :
		    "an object of strings");
		return -1;
	}
	if (cJSON_GetArraySize(v) > MCP_LIST_MAX) {
		buf_printf(err, "\"%s\" has more than %d entries", key, MCP_LIST_MAX);
		return -1;
	}
	list = xcalloc((size_t)cJSON_GetArraySize(v) + 1, sizeof *list);
	cJSON_ArrayForEach(it, v) {
		struct buf b = BUF_INIT(BUF_NOLIMIT);

		if (!cJSON_IsString(it)) {
			buf_printf(err, "\"%s\" must hold only strings", key);
			goto fail;
		}
		if (sep != NULL)
			buf_printf(&b, "%s%s", it->string, sep);
		if (mcp_expand(it->valuestring, &b, err) == -1) {
			buf_release(&b);
			goto fail;
		}
		list[n++] = buf_detach(&b, NULL);
	}
	*out = list;
	return 0;
fail:
	mcp_strv_free(list);
	return -1;
}

/* A string as its length, then its bytes; NULL apart from "". */
static void
mcp_identity_str(struct buf *out, const char *s)
{
	if (s == NULL) {
		buf_puts(out, "-\n");
		return;
	}
	buf_printf(out, "%zu:", strlen(s));
	buf_puts(out, s);
	buf_putc(out, '\n');
}

static void
mcp_identity_list(struct buf *out, const char *tag, char **v)
{
	size_t i, n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	buf_printf(out, "%s %zu\n", tag, n);
	for (i = 0; i < n; i++)
		mcp_identity_str(out, v[i]);
}

void
mcp_server_identity(const struct mcp_server_cfg *s, struct buf *out)
{
	buf_puts(out, "tandem mcp server 2\n");
	buf_puts(out, s->type == MCP_STDIO ? "stdio\n" : s->type == MCP_HTTP ? "http\n" : "sse\n");
	buf_puts(out, "command ");
	mcp_identity_str(out, s->command);
	mcp_identity_list(out, "args", s->args);
	mcp_identity_list(out, "env", s->env);
	buf_puts(out, "cwd ");
	mcp_identity_str(out, s->cwd);
	buf_puts(out, "url ");
	mcp_identity_str(out, s->url);
	mcp_identity_list(out, "headers", s->headers);
}

/*
 * The approval's key: everything that decides what runs and what it is
 * sent, each field framed by its length so that no two servers share an
 * encoding (an argument cannot pass for an environment entry).
 */
static void
mcp_server_hash(struct mcp_server_cfg *s)
{
	struct buf id = BUF_INIT(BUF_NOLIMIT);
	struct sha256_ctx *h = sha256_begin();

	mcp_server_identity(s, &id);
	sha256_update(h, id.data != NULL ? id.data : "", id.len);
	sha256_end(h, s->hash);
	buf_release(&id);
}

/* One "  key: value" line, the value's control bytes shown as '?' and tandem's secrets redacted. */
static void
mcp_describe_line(struct buf *out, const char *key, const char *value)
{
	struct buf v = BUF_INIT(BUF_NOLIMIT);
	size_t i;

	redact_text(value, strlen(value), &v);
	for (i = 0; i < v.len; i++)
		if ((unsigned char)v.data[i] < 0x20 || v.data[i] == 0x7f)
			v.data[i] = '?';
	buf_printf(out, "  %s: %s\n", key, buf_cstr(&v));
	buf_release(&v);
}

void
mcp_server_describe(const struct mcp_server_cfg *s, struct buf *out)
{
	size_t i;

	mcp_describe_line(out, "type", s->type == MCP_STDIO ? "stdio" :
	    s->type == MCP_HTTP ? "http" : "sse");
	if (s->type == MCP_STDIO) {
		struct buf cmd = BUF_INIT(BUF_NOLIMIT);

		buf_puts(&cmd, s->command != NULL ? s->command : "?");
		for (i = 0; s->args != NULL && s->args[i] != NULL; i++)
			buf_printf(&cmd, " '%s'", s->args[i]);
		mcp_describe_line(out, "command", buf_cstr(&cmd));
		buf_release(&cmd);
		mcp_describe_line(out, "cwd", s->cwd != NULL ? s->cwd : "(the workspace root)");
	} else
		mcp_describe_line(out, "url", s->url != NULL ? s->url : "?");
	for (i = 0; s->env != NULL && s->env[i] != NULL; i++)
		mcp_describe_line(out, "env", s->env[i]);
	for (i = 0; s->headers != NULL && s->headers[i] != NULL; i++)
		mcp_describe_line(out, "header", s->headers[i]);
}

/* Fill s from entry e; -1 with the problem in err (s keeps what it has). */
static int
mcp_server_parse(struct mcp_server_cfg *s, const cJSON *e, struct buf *err)
{
	const char *type = json_str(e, "type", NULL);
	static const char *const known[] = {
		"type", "command", "args", "env", "cwd", "url", "headers", "description", NULL
	};
	const cJSON *m;
	size_t i;

	if (!cJSON_IsObject(e)) {
		buf_puts(err, "a server must be an object");
		return -1;
	}
	cJSON_ArrayForEach(m, e) {
		for (i = 0; known[i] != NULL && strcmp(known[i], m->string) != 0; i++)
			;
		if (known[i] == NULL) {
			buf_printf(err, "unknown key \"%s\"", m->string);
			return -1;
		}
	}
	if (type == NULL)
		s->type = json_get(e, "url") != NULL && json_get(e, "command") == NULL ?
		    MCP_HTTP : MCP_STDIO;
	else if (strcmp(type, "stdio") == 0)
		s->type = MCP_STDIO;
	else if (strcmp(type, "http") == 0 || strcmp(type, "streamable-http") == 0 ||
	    strcmp(type, "streamableHttp") == 0)
		s->type = MCP_HTTP;
	else if (strcmp(type, "sse") == 0)
		s->type = MCP_SSE;
	else {
		buf_printf(err, "\"type\" \"%s\" is not stdio, http or sse", type);
		return -1;
	}
	if (mcp_get_str(e, "command", &s->command, err) == -1 ||
	    mcp_get_list(e, "args", NULL, &s->args, err) == -1 ||
	    mcp_get_list(e, "env", "=", &s->env, err) == -1 ||
	    mcp_get_str(e, "cwd", &s->cwd, err) == -1 ||
	    mcp_get_str(e, "url", &s->url, err) == -1 ||
	    mcp_get_list(e, "headers", ": ", &s->headers, err) == -1)
		return -1;
	if (s->type == MCP_STDIO && (s->command == NULL || s->command[0] == '\0')) {
		buf_puts(err, "a stdio server needs a \"command\"");
		return -1;
	}
	if (s->type != MCP_STDIO && (s->url == NULL ||
	    (strncmp(s->url, "http://", 7) != 0 && strncmp(s->url, "https://", 8) != 0))) {
		buf_puts(err, "an http or sse server needs a \"url\" starting with http:// or https://");
		return -1;
	}
	return 0;
}

/* The server named name, or a new one at the end. */
static struct mcp_server_cfg *
mcp_config_slot(struct mcp_config *mc, const char *name)
{
	size_t i;

	for (i = 0; i < mc->n; i++)
		if (strcmp(mc->v[i].name, name) == 0) {
			mcp_server_cfg_release(&mc->v[i]);
			return &mc->v[i];
		}
	mc->v = xreallocarray(mc->v, mc->n + 1, sizeof *mc->v);
	memset(&mc->v[mc->n], 0, sizeof mc->v[mc->n]);
	return &mc->v[mc->n++];
}

/* Give every server a distinct key: a collision gets _2, _3, ... */
static void
mcp_config_keys(struct mcp_config *mc)
{
	size_t i, k;

	for (i = 0; i < mc->n; i++) {
		char *base = mcp_sanitize(mc->v[i].name, true, 24);
		int suffix = 1;

		free(mc->v[i].key);
		mc->v[i].key = xstrdup(base);
		for (k = 0; k < i; k++) {
			if (strcmp(mc->v[k].key, mc->v[i].key) != 0)
				continue;
			{
				struct buf b = BUF_INIT(BUF_NOLIMIT);

				buf_printf(&b, "%s_%d", base, ++suffix);
				free(mc->v[i].key);
				mc->v[i].key = buf_detach(&b, NULL);
			}
			k = (size_t)-1;	/* check the new key against all again */
		}
		free(base);
	}
}

int
mcp_config_add_json(struct mcp_config *mc, const cJSON *doc, const char *source, bool project,
    struct buf *err)
{
	const cJSON *servers = json_get(doc, "mcpServers"), *e;

	if (!cJSON_IsObject(doc)) {
		buf_printf(err, "%s: MCP servers must be a JSON object like {\"mcpServers\": "
		    "{\"name\": {\"command\": \"...\"}}}", source);
		return -1;
	}
	if (servers == NULL)
		servers = doc;
	else if (!cJSON_IsObject(servers)) {
		buf_printf(err, "%s: \"mcpServers\" must be an object", source);
		return -1;
	}
	cJSON_ArrayForEach(e, servers) {
		struct mcp_server_cfg *s = mcp_config_slot(mc, e->string);
		struct buf why = BUF_INIT(4096);

		s->name = xstrdup(e->string);
		s->source = xstrdup(source);
		s->project = project;
		s->approved = !project;
		if (mcp_server_parse(s, e, &why) == -1) {
			struct buf msg = BUF_INIT(8192);

			buf_printf(&msg, "%s: server \"%s\": %s", source, e->string, buf_cstr(&why));
			s->error = buf_detach(&msg, NULL);
		}
		buf_release(&why);
		mcp_server_hash(s);
	}
	mcp_config_keys(mc);
	return 0;
}

/* The file's text (at most MCP_FILE_MAX bytes); NULL with errno. */
static char *
mcp_read_file(const char *path)
{
	struct buf b = BUF_INIT(MCP_FILE_MAX);
	char chunk[8192];
	ssize_t r;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return NULL;
	while ((r = read(fd, chunk, sizeof chunk)) > 0)
		if (buf_append(&b, chunk, (size_t)r) == -1) {
			close(fd);
			errno = EFBIG;
			return NULL;
		}
	close(fd);
	if (r == -1) {
		buf_release(&b);
		return NULL;
	}
	return buf_detach(&b, NULL);
}

/* Add path's servers; a missing file is fine unless must. */
static int
mcp_config_add_file(struct mcp_config *mc, const char *path, bool project, bool must,
    bool whole, struct buf *err)
{
	char *text = mcp_read_file(path);
	int line = 0, col = 0, r = -1;
	cJSON *doc;

	if (text == NULL) {
		if (errno == ENOENT && !must)
			return 0;
		buf_printf(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	doc = json_parse_at(text, strlen(text), &line, &col);
	if (doc == NULL)
		buf_printf(err, "%s:%d:%d: not valid JSON", path, line, col);
	else if (!whole && json_get(doc, "mcpServers") == NULL)
		r = 0;	/* a settings file without servers */
	else
		r = mcp_config_add_json(mc, doc, path, project, err);
	cJSON_Delete(doc);
	free(text);
	return r;
}

int
mcp_config_add_arg(struct mcp_config *mc, const char *arg, struct buf *err)
{
	const char *p = arg;
	int line = 0, col = 0, r;
	cJSON *doc;

	while (*p == ' ' || *p == '\t' || *p == '\n')
		p++;
	if (*p != '{')
		return mcp_config_add_file(mc, arg, false, true, true, err);
	doc = json_parse_at(arg, strlen(arg), &line, &col);
	if (doc == NULL) {
		buf_printf(err, "--mcp-config: the inline JSON is not valid (line %d, column %d)",
		    line, col);
		return -1;
	}
	r = mcp_config_add_json(mc, doc, "--mcp-config", false, err);
	cJSON_Delete(doc);
	return r;
}

static char *
mcp_path(const char *dir, const char *name)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);

	buf_printf(&b, "%s/%s", dir, name);
	return buf_detach(&b, NULL);
}

/* The approved hashes under home, as an array (owned); an empty one when none. */
static cJSON *
mcp_approvals_read(const struct config *cfg)
{
	char *path = mcp_path(cfg->home, "mcp-approved.json"), *text;
	struct stat st;
	cJSON *j = NULL;

	/* A record somebody else could have written approves nothing. */
	if (stat(path, &st) == 0 && st.st_uid == geteuid() && (st.st_mode & 022) == 0 &&
	    (text = mcp_read_file(path)) != NULL) {
		j = cJSON_Parse(text);
		free(text);
	}
	free(path);
	if (!cJSON_IsArray(j)) {
		cJSON_Delete(j);
		j = cJSON_CreateArray();
	}
	return j;
}

/* The latest approval of hash in this root, or NULL. */
static const cJSON *
mcp_approvals_find(const cJSON *list, const struct config *cfg, const char *hash)
{
	const cJSON *it, *found = NULL;

	cJSON_ArrayForEach(it, list)
		if (strcmp(json_str(it, "hash", ""), hash) == 0 &&
		    strcmp(json_str(it, "root", ""), cfg->root) == 0)
			found = it;
	return found;
}

/*
 * The user's servers in Claude Code's ~/.claude.json: its "mcpServers" (the
 * user's scope) and projects[root].mcpServers (the local scope: the user's
 * own, for this project).  The rest of that file is Claude Code's state.
 */
static void
mcp_config_add_claude_json(struct mcp_config *mc, const struct config *cfg, struct buf *warnings)
{
	const char *home = getenv("HOME");
	struct buf err = BUF_INIT(8192);
	char *path, *text;
	const cJSON *local;
	cJSON *doc;

	if (home == NULL || home[0] != '/')
		return;
	path = mcp_path(home, ".claude.json");
	text = mcp_read_file(path);
	doc = text != NULL ? cJSON_Parse(text) : NULL;
	if (text == NULL && errno != ENOENT)
		buf_printf(warnings, "tandem: %s: %s\n", path, strerror(errno));
	else if (text != NULL && doc == NULL)
		buf_printf(warnings, "tandem: %s: not valid JSON; its MCP servers are not read\n", path);
	if (json_get(doc, "mcpServers") != NULL && mcp_config_add_json(mc, doc, path, false, &err) == -1)
		buf_printf(warnings, "tandem: %s\n", buf_cstr(&err));
	local = json_get(json_get(doc, "projects"), cfg->root);
	buf_reset(&err);
	if (json_get(local, "mcpServers") != NULL &&
	    mcp_config_add_json(mc, local, path, false, &err) == -1)
		buf_printf(warnings, "tandem: %s\n", buf_cstr(&err));
	cJSON_Delete(doc);
	free(text);
	free(path);
	buf_release(&err);
}

void
mcp_config_load(struct mcp_config *mc, const struct config *cfg, struct buf *warnings)
{
	struct buf err = BUF_INIT(8192);
	char *paths[4];
	bool project[4] = { false, true, false, true };
	cJSON *approved;
	size_t i;

	paths[0] = cfg->config_dir != NULL ? mcp_path(cfg->config_dir, "settings.json") : NULL;
	paths[1] = mcp_path(cfg->root, ".tandem/settings.json");
	paths[2] = mcp_path(cfg->root, ".tandem/settings.local.json");
	paths[3] = mcp_path(cfg->root, ".mcp.json");
	if (!(cfg->skip_layers & 1u))
		mcp_config_add_claude_json(mc, cfg, warnings);
	for (i = 0; i < 4; i++) {
		if (paths[i] == NULL)
			continue;
		/* A project's servers are not even read before the project is trusted. */
		if (project[i] && !cfg->trusted) {
			struct mcp_config held;

			mcp_config_init(&held);
			if (mcp_config_add_file(&held, paths[i], true, false, i == 3, &err) == 0 &&
			    held.n > 0)
				buf_printf(warnings, "tandem: %s defines MCP servers; they start once "
				    "the project is trusted (--trust) and each is approved "
				    "(tandem mcp approve)\n", paths[i]);
			mcp_config_release(&held);
			buf_reset(&err);
			free(paths[i]);
			continue;
		}
		if (mcp_config_add_file(mc, paths[i], project[i], false, i == 3, &err) == -1) {
			buf_printf(warnings, "tandem: %s\n", buf_cstr(&err));
			buf_reset(&err);
		}
		free(paths[i]);
	}
	approved = mcp_approvals_read(cfg);
	for (i = 0; i < mc->n; i++) {
		const cJSON *rec = mc->v[i].project ?
		    mcp_approvals_find(approved, cfg, mc->v[i].hash) : NULL;

		if (rec != NULL) {
			mc->v[i].approved = true;
			snprintf(mc->v[i].tools_hash, sizeof mc->v[i].tools_hash, "%s",
			    json_str(rec, "tools", ""));
		}
	}
	cJSON_Delete(approved);
	buf_release(&err);
}

int
mcp_config_record(const struct config *cfg, const struct mcp_server_cfg *srv,
    const char *tools_hash, struct buf *err)
{
	char *path = mcp_path(cfg->home, "mcp-approved.json");
	struct buf tmp = BUF_INIT(BUF_NOLIMIT);
	cJSON *list = mcp_approvals_read(cfg), *o = cJSON_CreateObject();
	char *text = NULL;
	size_t len;
	int fd = -1, r = -1;

	cJSON_AddStringToObject(o, "root", cfg->root);
	cJSON_AddStringToObject(o, "name", srv->name);
	cJSON_AddStringToObject(o, "hash", srv->hash);
	cJSON_AddStringToObject(o, "tools", tools_hash != NULL ? tools_hash : "");
	cJSON_AddItemToArray(list, o);
	(void)mkdir(cfg->home, 0700);
	text = cJSON_Print(list);
	len = strlen(text);
	buf_printf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(buf_cstr(&tmp), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1 || write(fd, text, len) != (ssize_t)len || fsync(fd) == -1) {
		buf_printf(err, "cannot record the approval in %s: %s", path, strerror(errno));
		if (fd != -1) {
			close(fd);
			unlink(buf_cstr(&tmp));
		}
		goto out;
	}
	if (close(fd) == -1 || rename(buf_cstr(&tmp), path) == -1) {
		buf_printf(err, "cannot record the approval in %s: %s", path, strerror(errno));
		unlink(buf_cstr(&tmp));
		goto out;
	}
	r = 0;
out:
	free(text);
	free(path);
	buf_release(&tmp);
	cJSON_Delete(list);
	return r;
}
