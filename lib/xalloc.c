/* Allocation wrappers: see xalloc.h. */
#include "autoconf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static void (*fatal_hook)(void);

void
xalloc_set_fatal_hook(void (*hook)(void))
{
	fatal_hook = hook;
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	if (fatal_hook != NULL) {
		void (*hook)(void) = fatal_hook;

		fatal_hook = NULL;
		hook();
	}
	fputs("tandem: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void *
xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		fatal("out of memory allocating %zu bytes", n);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void *p;

	if (nmemb == 0 || size == 0)
		nmemb = size = 1;
	p = calloc(nmemb, size);
	if (p == NULL)
		fatal("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *
xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);

	if (q == NULL)
		fatal("out of memory allocating %zu bytes", n);
	return q;
}

void *
xreallocarray(void *p, size_t nmemb, size_t size)
{
	if (size != 0 && nmemb > SIZE_MAX / size)
		fatal("allocation size overflow (%zu x %zu)", nmemb, size);
	return xrealloc(p, nmemb * size);
}

char *
xstrdup(const char *s)
{
	return xmemdup(s, strlen(s));
}

char *
xstrndup(const char *s, size_t n)
{
	return xmemdup(s, strnlen(s, n));
}

char *
xmemdup(const void *p, size_t n)
{
	char *q;

	if (n == SIZE_MAX)
		fatal("allocation size overflow");
	q = xmalloc(n + 1);
	if (n > 0)
		memcpy(q, p, n);
	q[n] = '\0';
	return q;
}
