/* Front matter of Markdown files: see fmatter.h. */
#include <stdbool.h>
#include <string.h>

#include "buf.h"
#include "fmatter.h"

static bool
fm_is_rule(const char *line, size_t n)
{
	while (n > 0 && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
		n--;
	return n == 3 && strncmp(line, "---", 3) == 0;
}

/* s[0..n) without blanks around it and one pair of quotes. */
static void
fm_value(const char *s, size_t n, struct buf *out)
{
	while (n > 0 && strchr(" \t", *s) != NULL) {
		s++;
		n--;
	}
	while (n > 0 && strchr(" \t\r", s[n - 1]) != NULL)
		n--;
	if (n >= 2 && (s[0] == '"' || s[0] == '\'') && s[n - 1] == s[0]) {
		s++;
		n -= 2;
	}
	buf_append(out, s, n);
}

static void
fm_set(cJSON *o, const char *key, size_t kn, struct buf *v)
{
	struct buf k = BUF_INIT(BUF_NOLIMIT);

	buf_append(&k, key, kn);
	buf_puts(&k, "");
	buf_puts(v, "");
	cJSON_DeleteItemFromObjectCaseSensitive(o, buf_cstr(&k));
	cJSON_AddStringToObject(o, buf_cstr(&k), buf_cstr(v));
	buf_release(&k);
}

cJSON *
fmatter_parse(const char *text, const char **body)
{
	cJSON *o = cJSON_CreateObject();
	struct buf v = BUF_INIT(BUF_NOLIMIT);
	const char *line, *end, *key = NULL, *colon;
	size_t kn = 0, n;

	*body = text;
	end = text + strcspn(text, "\n");
	if (!fm_is_rule(text, (size_t)(end - text)) || *end == '\0')
		goto out;
	for (line = end + 1; ; line = end + 1) {
		end = line + strcspn(line, "\n");
		n = (size_t)(end - line);
		if (fm_is_rule(line, n)) {
			if (key != NULL)
				fm_set(o, key, kn, &v);
			*body = *end != '\0' ? end + 1 : end;
			goto out;
		}
		if (n > 0 && (line[0] == ' ' || line[0] == '\t')) {
			/* A list item or a nested map under the key before. */
			const char *p = line;

			while (p < end && (*p == ' ' || *p == '\t'))
				p++;
			if (key != NULL && p < end) {
				if (v.len > 0)
					buf_puts(&v, ", ");
				if (*p == '-' && p + 1 < end && (p[1] == ' ' || p[1] == '\t'))
					fm_value(p + 2, (size_t)(end - p - 2), &v);
				else
					fm_value(p, (size_t)(end - p), &v);
			}
		} else if (n > 0 && line[0] != '#' && (colon = memchr(line, ':', n)) != NULL) {
			if (key != NULL)
				fm_set(o, key, kn, &v);
			buf_reset(&v);
			key = line;
			kn = (size_t)(colon - line);
			while (kn > 0 && strchr(" \t", key[kn - 1]) != NULL)
				kn--;
			{
				const char *p = colon + 1;

				while (p < end && (*p == ' ' || *p == '\t'))
					p++;
				if (p < end && (*p == '|' || *p == '>'))
					;	/* a block scalar: its lines follow, indented */
				else
					fm_value(colon + 1, (size_t)(end - colon - 1), &v);
			}
		}
		if (*end == '\0')
			break;
	}
	/* No closing "---": it was not a header after all. */
	cJSON_Delete(o);
	o = cJSON_CreateObject();
	*body = text;
out:
	buf_release(&v);
	return o;
}
