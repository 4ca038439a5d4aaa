/*
 * demo: `tandem --demo`, offline.  It lays out a small project in a
 * temporary directory, starts the mock model server in a child process on
 * loopback with a scripted walk through tandem's features, and points the
 * configuration at both.  Everything then runs through the real HTTP path.
 */
#ifndef TANDEM_DEMO_H
#define TANDEM_DEMO_H

#include <stddef.h>

struct config;
struct demo;

/* Start the demo server and workspace; cfg is changed to use them. NULL with err. */
struct demo	*demo_start(struct config *cfg, char *err, size_t errlen);
/* The prompt the demo sends first. */
const char	*demo_prompt(void);
/* Stop the server and remove the workspace; NULL is fine. */
void		 demo_stop(struct demo *);

#endif
