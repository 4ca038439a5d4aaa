/* The Agent Client Protocol agent: see acp.h. */
#include "autoconf.h"

#include <stdio.h>

#include "acp.h"

int
acp_run(struct ev_loop *loop, struct config *base)
{
	(void)loop;
	(void)base;
	fputs("tandem: acp is not built yet\n", stderr);
	return 1;
}
