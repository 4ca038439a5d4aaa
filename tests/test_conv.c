/*
 * Tests for agent/context/conv.c's held texts: what conv_pin_wires gives a
 * request in flight stays byte for byte what it was while the
 * conversation grows, is rewound, changed in place or cleared, and it
 * is the same text conv_append_wires copies.
 */
#include "autoconf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "context/conv.h"
#include "json.h"
#include "t.h"
#include "xalloc.h"

/* A message's text on the wire: the message as cJSON prints it. */
static int
wire(enum stream_proto proto, const cJSON *m, struct buf *out)
{
	char *s = cJSON_PrintUnformatted(m);
	int rc = buf_puts(out, s);

	(void)proto;
	free(s);
	return rc;
}

static void
add_round(struct conv *c, int i)
{
	char text[64];

	snprintf(text, sizeof text, "round %d, a line the model reads", i);
	conv_add_user_text(c, text, i);
	conv_add(c, "assistant", cJSON_CreateStringArray((const char *[]){ text }, 1), i);
}

/* What conv_append_wires copies now, as a string. */
static char *
copied(const struct conv *c)
{
	struct buf b = BUF_INIT(BUF_NOLIMIT);
	const cJSON *last;
	bool first = true;

	conv_append_wires(c, STREAM_ANTHROPIC, wire, &b, &first, &last);
	return buf_detach(&b, NULL);
}

T_TEST(held_texts_stay_while_the_conversation_changes)
{
	struct conv c;
	struct conv_text *t, *t2;
	const cJSON *last;
	size_t len, len2;
	char *want;
	int i;

	conv_init(&c);
	for (i = 0; i < 20; i++)
		add_round(&c, i);
	want = copied(&c);
	t = conv_pin_wires(&c, STREAM_ANTHROPIC, wire, &len, &last);
	T_OK(t != NULL);
	T_EQ_INT((int)len, (int)strlen(want));
	T_OK(t != NULL && memcmp(conv_text_data(t), want, len) == 0);
	T_OK(last == conv_last(&c));
	/* Growing: more texts behind the held ones, which may move but not change. */
	for (i = 20; i < 400; i++)
		add_round(&c, i);
	free(copied(&c));
	T_OK(memcmp(conv_text_data(t), want, len) == 0);
	/* A second request holds the longer texts, the same buffer. */
	t2 = conv_pin_wires(&c, STREAM_ANTHROPIC, wire, &len2, &last);
	T_OK(t2 == t && len2 > len);
	/* Rewound to before the held end and grown again: the held bytes are a copy's now. */
	while (cJSON_GetArraySize(c.messages) > 10)
		cJSON_Delete(cJSON_DetachItemFromArray(c.messages, cJSON_GetArraySize(c.messages) - 1));
	add_round(&c, 1000);
	add_round(&c, 1001);
	free(copied(&c));
	T_OK(memcmp(conv_text_data(t), want, len) == 0);
	/* Changed in place, then cleared. */
	conv_changed(&c);
	free(copied(&c));
	T_OK(memcmp(conv_text_data(t), want, len) == 0);
	conv_clear(&c);
	T_OK(memcmp(conv_text_data(t), want, len) == 0);
	conv_text_unref(t2);
	T_OK(memcmp(conv_text_data(t), want, len) == 0);
	conv_text_unref(t);
	free(want);
	conv_release(&c);
}

T_TEST(held_texts_of_a_short_conversation)
{
	struct conv c;
	const cJSON *last = (const cJSON *)&c;
	size_t len = 1;

	conv_init(&c);
	T_OK(conv_pin_wires(&c, STREAM_ANTHROPIC, wire, &len, &last) == NULL);
	T_EQ_INT((int)len, 0);
	T_OK(last == NULL);
	conv_add_user_text(&c, "only one", 1);
	T_OK(conv_pin_wires(&c, STREAM_ANTHROPIC, wire, &len, &last) == NULL);
	T_OK(last == conv_last(&c));
	conv_text_unref(NULL);
	conv_release(&c);
}

int
main(void)
{
	T_RUN(held_texts_stay_while_the_conversation_changes);
	T_RUN(held_texts_of_a_short_conversation);
	return t_done();
}
