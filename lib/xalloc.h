/*
 * xalloc: allocation wrappers that never return NULL.
 *
 * On exhaustion or size overflow they run the registered fatal hook (the TUI
 * uses it to restore the terminal), print one line and exit with status 1.
 * Everything they return is the caller's to free().
 */
#ifndef TANDEM_XALLOC_H
#define TANDEM_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t n);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *p, size_t n);
/* xreallocarray: resize to nmemb * size with the product checked for overflow. */
void *xreallocarray(void *p, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* xmemdup: copy n bytes and add a NUL after them. */
char *xmemdup(const void *p, size_t n);

/* Called once before exiting on a fatal allocation error (may be NULL). */
void xalloc_set_fatal_hook(void (*hook)(void));

/* fatal: restore what the hook restores, print "tandem: <message>" and exit(1). */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#endif
