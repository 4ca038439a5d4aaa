/* Secrets out of children's environments and out of text: see redact.h. */
#include "autoconf.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include "file.h"
#include "redact.h"
#include "xalloc.h"

extern char **environ;

const char *const redact_default_names[] = {
	"ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_CUSTOM_HEADERS", "OPENAI_API_KEY", NULL
};

struct redact_list {
	char	**v;
	size_t	  n, cap;
};

/* The registry (see redact.h for why it is process-wide). */
static struct redact_list redact_removes, redact_keeps, redact_secrets;
static struct redact_list redact_saved;		/* "NAME=value" of scrubbed variables */
static size_t redact_longest;			/* the longest secret, in bytes */
static size_t redact_originals;			/* the secrets added, their spellings aside */

static void
redact_list_push(struct redact_list *l, char *s)
{
	if (l->n == l->cap) {
		l->cap = l->cap ? l->cap * 2 : 8;
		l->v = xreallocarray(l->v, l->cap, sizeof(*l->v));
	}
	l->v[l->n++] = s;
}

static bool
redact_list_has(const struct redact_list *l, const char *s)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (strcmp(l->v[i], s) == 0)
			return true;
	return false;
}

static void
redact_list_clear(struct redact_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static bool
redact_list_matches(const struct redact_list *l, const char *name)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (fnmatch(l->v[i], name, 0) == 0)
			return true;
	return false;
}

void
redact_env_remove(const char *pattern)
{
	if (pattern != NULL && pattern[0] != '\0' && !redact_list_has(&redact_removes, pattern))
		redact_list_push(&redact_removes, xstrdup(pattern));
}

void
redact_env_keep(const char *pattern)
{
	if (pattern != NULL && pattern[0] != '\0' && !redact_list_has(&redact_keeps, pattern))
		redact_list_push(&redact_keeps, xstrdup(pattern));
}

bool
redact_env_removed(const char *name)
{
	size_t i;
	bool removed = false;

	for (i = 0; !removed && redact_default_names[i] != NULL; i++)
		removed = strcmp(redact_default_names[i], name) == 0;
	if (!removed)
		removed = redact_list_matches(&redact_removes, name);
	return removed && !redact_list_matches(&redact_keeps, name);
}

/* The name of environment entry e ("NAME=value"), the caller frees; NULL without '='. */
static char *
redact_env_name(const char *e)
{
	const char *eq = strchr(e, '=');

	return eq != NULL && eq != e ? xstrndup(e, (size_t)(eq - e)) : NULL;
}

size_t
redact_env_scrub(void)
{
	struct redact_list names = { NULL, 0, 0 };
	char **e, *name, *value;
	size_t i, n;

#ifdef __linux__
	/* Another process of this user cannot read /proc/PID/environ or attach. */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
#endif
	for (e = environ; e != NULL && *e != NULL; e++) {
		if ((name = redact_env_name(*e)) == NULL)
			continue;
		if (!redact_env_removed(name)) {
			free(name);
			continue;
		}
		value = *e + strlen(name) + 1;
		if (redact_env_saved(name) == NULL)
			redact_list_push(&redact_saved, xstrdup(*e));
		redact_add(value);
		/* The bytes of the original block are what /proc/PID/environ shows. */
		n = strlen(value);
		memset(value, 0, n);
		redact_list_push(&names, name);
	}
	for (i = 0; i < names.n; i++)
		unsetenv(names.v[i]);
	n = names.n;
	redact_list_clear(&names);
	return n;
}

const char *
redact_env_saved(const char *name)
{
	size_t i, len = strlen(name);

	for (i = 0; i < redact_saved.n; i++)
		if (strncmp(redact_saved.v[i], name, len) == 0 && redact_saved.v[i][len] == '=')
			return redact_saved.v[i] + len + 1;
	return NULL;
}

void
redact_env_child(void)
{
	char **e, *name;

	for (e = environ; e != NULL && *e != NULL;) {
		name = redact_env_name(*e);
		if (name != NULL && redact_env_removed(name)) {
			/* unsetenv moves the later entries down: look at *e again. */
			unsetenv(name);
			free(name);
			continue;
		}
		free(name);
		e++;
	}
}

/* One more text to take out, the secret itself or one of its spellings. */
static void
redact_push(char *text)
{
	size_t n = strlen(text);

	if (n < REDACT_MIN || redact_list_has(&redact_secrets, text)) {
		free(text);
		return;
	}
	redact_list_push(&redact_secrets, text);
	if (n > redact_longest)
		redact_longest = n;
}

/*
 * The secret in base64 where it starts at byte off (0 to 2) of a group of
 * three: the characters that depend on its bytes alone (not the first
 * group's when off > 0, nor a last partial one), and the same in base64url.
 */
static void
redact_push_base64(const char *secret, size_t n, size_t off)
{
	static const char b64[] =
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t total = off + n, groups = total / 3, g, i;
	unsigned char in[3];
	char *out = xmalloc(groups * 4 + 1), *url, *p = out;

	for (g = off > 0 ? 1 : 0; g < groups; g++) {
		for (i = 0; i < 3; i++)
			in[i] = (unsigned char)secret[g * 3 + i - off];
		*p++ = b64[in[0] >> 2];
		*p++ = b64[((in[0] & 3) << 4) | (in[1] >> 4)];
		*p++ = b64[((in[1] & 15) << 2) | (in[2] >> 6)];
		*p++ = b64[in[2] & 63];
	}
	*p = '\0';
	url = xstrdup(out);
	for (p = url; *p != '\0'; p++)
		*p = *p == '+' ? '-' : *p == '/' ? '_' : *p;
	redact_push(out);
	redact_push(url);
}

/*
 * A secret and the spellings a command turns it into without effort
 * (base64 at each alignment, hex, reversed): "grep KEY ~/.bashrc | base64"
 * must not carry it out either.
 */
void
redact_add(const char *secret)
{
	static const char hex[] = "0123456789abcdef", HEX[] = "0123456789ABCDEF";
	char *lo, *up, *rev;
	size_t n, i;

	if (secret == NULL || (n = strlen(secret)) < REDACT_MIN ||
	    redact_list_has(&redact_secrets, secret))
		return;
	redact_push(xstrdup(secret));
	redact_originals++;
	for (i = 0; i < 3; i++)
		redact_push_base64(secret, n, i);
	lo = xmalloc(2 * n + 1);
	up = xmalloc(2 * n + 1);
	rev = xmalloc(n + 1);
	for (i = 0; i < n; i++) {
		lo[2 * i] = hex[(unsigned char)secret[i] >> 4];
		lo[2 * i + 1] = hex[(unsigned char)secret[i] & 15];
		up[2 * i] = HEX[(unsigned char)secret[i] >> 4];
		up[2 * i + 1] = HEX[(unsigned char)secret[i] & 15];
		rev[i] = secret[n - 1 - i];
	}
	lo[2 * n] = up[2 * n] = rev[n] = '\0';
	redact_push(lo);
	redact_push(up);
	redact_push(rev);
}

size_t
redact_count(void)
{
	return redact_originals;
}

void
redact_reset(void)
{
	redact_list_clear(&redact_removes);
	redact_list_clear(&redact_keeps);
	redact_list_clear(&redact_secrets);
	redact_list_clear(&redact_saved);
	redact_longest = 0;
	redact_originals = 0;
}

/* The length of the secret that starts at s (n bytes left), or 0. */
static size_t
redact_match(const char *s, size_t n)
{
	size_t i, len;

	for (i = 0; i < redact_secrets.n; i++) {
		len = strlen(redact_secrets.v[i]);
		if (len <= n && s[0] == redact_secrets.v[i][0] &&
		    memcmp(s, redact_secrets.v[i], len) == 0)
			return len;
	}
	return 0;
}

/* Could s (n bytes, all that is known yet) be the start of a secret? */
static bool
redact_may_start(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < redact_secrets.n; i++)
		if (strlen(redact_secrets.v[i]) > n && memcmp(s, redact_secrets.v[i], n) == 0)
			return true;
	return false;
}

/*
 * Redact s[0..n) into out; with hold, stop at the first position from which
 * the rest may begin a secret and return that position (else n).
 */
static size_t
redact_scan(const char *s, size_t n, struct buf *out, bool hold)
{
	size_t i = 0, start = 0, len;

	while (i < n) {
		if ((len = redact_match(s + i, n - i)) > 0) {
			buf_append(out, s + start, i - start);
			buf_puts(out, REDACT_MARK);
			i += len;
			start = i;
		} else if (hold && n - i < redact_longest && redact_may_start(s + i, n - i)) {
			break;
		} else
			i++;
	}
	buf_append(out, s + start, i - start);
	return i;
}

void
redact_text(const char *s, size_t n, struct buf *out)
{
	if (redact_secrets.n == 0) {
		buf_append(out, s, n);
		return;
	}
	redact_scan(s, n, out, false);
}

bool
redact_buf(struct buf *b)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	bool changed;

	if (redact_secrets.n == 0 || b->len == 0)
		return false;
	redact_scan(b->data, b->len, &out, false);
	changed = out.len != b->len || memcmp(out.data, b->data, b->len) != 0;
	if (changed) {
		buf_reset(b);
		buf_append(b, out.data, out.len);
	}
	buf_release(&out);
	return changed;
}

static bool
redact_word_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '+' || c == '-' || c == '/' || c == '=' || c == '_';
}

/* Whether w[0..n) holds two of lower case, upper case and digits. */
static bool
redact_word_mixed(const char *w, size_t n)
{
	bool lower = false, upper = false, digit = false;
	size_t i;

	for (i = 0; i < n; i++) {
		lower |= w[i] >= 'a' && w[i] <= 'z';
		upper |= w[i] >= 'A' && w[i] <= 'Z';
		digit |= w[i] >= '0' && w[i] <= '9';
	}
	return (int)lower + (int)upper + (int)digit >= 2;
}

bool
redact_keylike(struct buf *b)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);
	bool changed = redact_buf(b);
	size_t i = 0, j, n = b->len;
	bool masked = false;

	while (i < n) {
		for (j = i; j < n && redact_word_char(b->data[j]); j++)
			;
		if (j - i >= REDACT_WORD_MIN && redact_word_mixed(b->data + i, j - i)) {
			buf_puts(&out, REDACT_MARK);
			masked = true;
		} else {
			buf_append(&out, b->data + i, j - i);
		}
		for (i = j; i < n && !redact_word_char(b->data[i]); i++)
			buf_putc(&out, b->data[i]);
	}
	if (masked) {
		buf_reset(b);
		buf_append(b, out.data, out.len);
	}
	buf_release(&out);
	return changed || masked;
}

void
redact_stream_feed(struct redact_stream *rs, const char *p, size_t n, struct buf *out)
{
	size_t used;
	char *all;

	if (redact_secrets.n == 0 && rs->hold.len == 0) {
		buf_append(out, p, n);
		return;
	}
	buf_append(&rs->hold, p, n);
	used = redact_scan(rs->hold.data, rs->hold.len, out, true);
	if (used == rs->hold.len) {
		buf_reset(&rs->hold);
		return;
	}
	all = rs->hold.data;
	memmove(all, all + used, rs->hold.len - used);
	buf_truncate(&rs->hold, rs->hold.len - used);
}

void
redact_stream_flush(struct redact_stream *rs, struct buf *out)
{
	if (rs->hold.len > 0)
		redact_text(rs->hold.data, rs->hold.len, out);
	buf_reset(&rs->hold);
}

/* Write all of b to fd; errors are dropped, as for the spill file they are. */
void
redact_stream_write(struct redact_stream *rs, int fd, const char *p, size_t n)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	redact_stream_feed(rs, p, n, &out);
	(void)file_write_all(fd, out.data != NULL ? out.data : "", out.len);
	buf_release(&out);
}

void
redact_stream_write_flush(struct redact_stream *rs, int fd)
{
	struct buf out = BUF_INIT(BUF_NOLIMIT);

	redact_stream_flush(rs, &out);
	(void)file_write_all(fd, out.data != NULL ? out.data : "", out.len);
	buf_release(&out);
}

void
redact_stream_release(struct redact_stream *rs)
{
	buf_release(&rs->hold);
}
