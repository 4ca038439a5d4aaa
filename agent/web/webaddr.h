/*
 * webaddr: which addresses a fetch may reach without asking.
 *
 * Classifies an IPv4 or IPv6 address (a v4-mapped, v4-compatible, NAT64
 * or 6to4 IPv6 address is judged by the IPv4 address inside it) as
 * public, or as one of the ranges tandem asks about every time: loopback,
 * private (RFC 1918, carrier-grade NAT, unique local), link-local,
 * unspecified (0.0.0.0, ::), cloud metadata endpoints, and the rest that
 * is no host on the internet (multicast, broadcast, reserved).  Reads a
 * URL's host the way resolvers do: dotted, decimal, octal and hex IPv4
 * forms ("2130706433", "0177.1", "0x7f.0.0.1"), bracketed IPv6.  Owns
 * nothing.
 */
#ifndef TANDEM_WEBADDR_H
#define TANDEM_WEBADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

enum webaddr_class {
	WEBADDR_PUBLIC,
	WEBADDR_LOOPBACK,
	WEBADDR_PRIVATE,
	WEBADDR_LINK_LOCAL,
	WEBADDR_UNSPECIFIED,
	WEBADDR_METADATA,
	WEBADDR_RESERVED
};

/* The class of a socket address (AF_INET or AF_INET6; anything else is reserved). */
enum webaddr_class webaddr_classify(const struct sockaddr *sa);
/* "loopback", "private", ...: for the sentences the user and the model read. */
const char	*webaddr_class_name(enum webaddr_class);
/*
 * A URL host (without brackets or with them) that is an address literal in
 * any form a resolver accepts: 0 with *out filled, or -1 for a name.
 */
int		 webaddr_parse_host(const char *host, struct sockaddr_storage *out);
/* The address as text (dotted IPv4, IPv6), into out. */
void		 webaddr_text(const struct sockaddr *sa, char *out, size_t size);

#endif
