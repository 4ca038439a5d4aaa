/* inbox: what the user adds to the next prompt besides its text (inbox.h). */
#include "autoconf.h"

#include <cjson/cJSON.h>

#include "agent.h"
#include "agent_int.h"
#include "attach.h"
#include "inbox.h"
#include "record.h"
#include "usercmd.h"

/* What agent_attach kept goes with the prompt, in order. */
void
inbox_take(struct agent *a, cJSON *content)
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
	cJSON_AddItemToArray(a->attach, record_text_block(text));
}

int
agent_attach_image(struct agent *a, const char *file, const char *name, struct buf *err)
{
	cJSON *b = attach_image_file(&a->env, file, name, err);

	if (b == NULL)
		return -1;
	if (a->attach == NULL)
		a->attach = cJSON_CreateArray();
	cJSON_AddItemToArray(a->attach, b);
	return 0;
}

struct usercmd *
agent_user_command(struct agent *a, const char *command, usercmd_output_fn *output,
    usercmd_done_fn *done, void *arg)
{
	return usercmd_start(a->loop, &a->env, command, output, done, arg);
}
