/* The note on a call's changed input: see inputnote.h. */
#include "autoconf.h"

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "diff.h"
#include "inputnote.h"
#include "json.h"
#include "xalloc.h"

/* A value shown whole on one line when it is at most this long. */
#define INPUTNOTE_INLINE	200

static bool
inputnote_short(const cJSON *v)
{
	return !cJSON_IsString(v) || (strchr(v->valuestring, '\n') == NULL &&
	    strlen(v->valuestring) <= INPUTNOTE_INLINE);
}

static void
inputnote_value(struct buf *b, const cJSON *v)
{
	char *s;

	if (v == NULL) {
		buf_puts(b, "(absent)");
		return;
	}
	s = json_print(v);
	if (strlen(s) > INPUTNOTE_INLINE) {
		buf_append(b, s, INPUTNOTE_INLINE);
		buf_puts(b, "...");
	} else
		buf_puts(b, s);
	free(s);
}

/* One field that differs: inline when short, else a unified diff of its text. */
static void
inputnote_field(struct buf *b, const char *key, const cJSON *yours, const cJSON *ran)
{
	struct buf err = BUF_INIT(4096), lo = BUF_INIT(BUF_NOLIMIT), ln = BUF_INIT(BUF_NOLIMIT);
	struct diff *d = NULL;

	if (yours == NULL || ran == NULL || !cJSON_IsString(yours) || !cJSON_IsString(ran) ||
	    (inputnote_short(yours) && inputnote_short(ran))) {
		buf_printf(b, "\"%s\": you sent ", key);
		inputnote_value(b, yours);
		buf_puts(b, "; what ran: ");
		inputnote_value(b, ran);
		buf_putc(b, '\n');
		goto out;
	}
	d = diff_compute(yours->valuestring, strlen(yours->valuestring), ran->valuestring,
	    strlen(ran->valuestring), &err);
	buf_printf(&lo, "%s (yours)", key);
	buf_printf(&ln, "%s (what ran)", key);
	if (d == NULL || diff_format(d, buf_cstr(&lo), buf_cstr(&ln), b) != 0) {
		buf_printf(b, "\"%s\" that ran:\n", key);
		buf_puts(b, ran->valuestring);
		buf_putc(b, '\n');
	}
out:
	diff_free(d);
	buf_release(&err);
	buf_release(&lo);
	buf_release(&ln);
}

char *
inputnote_build(const cJSON *proposed, const cJSON *ran)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const cJSON *it;
	size_t cut, more;
	int changed = 0;

	if (proposed == NULL || ran == NULL || cJSON_Compare(proposed, ran, true))
		return NULL;
	buf_puts(&b, "The user changed this call before it ran: what ran is their version, "
	    "not the input you sent; work from it. The changes, yours (-) and what ran (+):\n");
	cJSON_ArrayForEach(it, ran) {
		const cJSON *mine = cJSON_GetObjectItemCaseSensitive(proposed, it->string);

		/* ask_user's answers are the person's reply, which its result gives, not a change */
		if (mine == NULL && strcmp(it->string, "answers") == 0)
			continue;
		if (mine == NULL || !cJSON_Compare(mine, it, true)) {
			inputnote_field(&b, it->string, mine, it);
			changed++;
		}
	}
	cJSON_ArrayForEach(it, proposed)
		if (cJSON_GetObjectItemCaseSensitive(ran, it->string) == NULL) {
			inputnote_field(&b, it->string, it, NULL);
			changed++;
		}
	if (changed == 0) {
		buf_release(&b);
		return NULL;
	}
	if (b.len > INPUTNOTE_MAX) {
		/* cut at a line's end, and say how much is left out */
		cut = INPUTNOTE_MAX;
		while (cut > 0 && b.data[cut - 1] != '\n')
			cut--;
		more = b.len - cut;
		buf_truncate(&b, cut);
		buf_printf(&b, "(%zu more bytes of the change are not shown: read the file to "
		    "see what it holds now)\n", more);
	}
	if (b.len > 0 && b.data[b.len - 1] == '\n')
		buf_truncate(&b, b.len - 1);
	return buf_detach(&b, NULL);
}
