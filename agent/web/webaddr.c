/* Which addresses a fetch may reach without asking: see webaddr.h. */
#include "autoconf.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>

#include "web/webaddr.h"

/* An IPv4 range, host order. */
static const struct webaddr_range {
	uint32_t		 net;
	int			 bits;
	enum webaddr_class	 cls;
} webaddr_v4[] = {
	/* Most specific first: the metadata endpoints lie inside other ranges. */
	{ 0xa9fea9feu, 32, WEBADDR_METADATA },		/* 169.254.169.254 (AWS, GCP, Azure, ...) */
	{ 0xa9fea9fbu, 32, WEBADDR_METADATA },		/* 169.254.169.251 (Oracle) */
	{ 0xa83f8110u, 32, WEBADDR_METADATA },		/* 168.63.129.16 (Azure) */
	{ 0x646464c8u, 32, WEBADDR_METADATA },		/* 100.100.100.200 (Alibaba) */
	{ 0xffffffffu, 32, WEBADDR_RESERVED },		/* broadcast */
	{ 0x00000000u, 8,  WEBADDR_UNSPECIFIED },	/* 0.0.0.0/8, "this network" */
	{ 0x7f000000u, 8,  WEBADDR_LOOPBACK },
	{ 0x0a000000u, 8,  WEBADDR_PRIVATE },
	{ 0xac100000u, 12, WEBADDR_PRIVATE },
	{ 0xc0a80000u, 16, WEBADDR_PRIVATE },
	{ 0x64400000u, 10, WEBADDR_PRIVATE },		/* carrier-grade NAT */
	{ 0xa9fe0000u, 16, WEBADDR_LINK_LOCAL },
	{ 0xc0000000u, 24, WEBADDR_RESERVED },		/* IETF protocol assignments */
	{ 0xc6120000u, 15, WEBADDR_RESERVED },		/* benchmarking */
	{ 0xe0000000u, 4,  WEBADDR_RESERVED },		/* multicast */
	{ 0xf0000000u, 4,  WEBADDR_RESERVED },		/* reserved */
};

static enum webaddr_class
webaddr_classify_v4(uint32_t a)
{
	size_t i;

	for (i = 0; i < sizeof webaddr_v4 / sizeof webaddr_v4[0]; i++) {
		uint32_t mask = webaddr_v4[i].bits == 32 ? 0xffffffffu :
		    ~(0xffffffffu >> webaddr_v4[i].bits);

		if ((a & mask) == webaddr_v4[i].net)
			return webaddr_v4[i].cls;
	}
	return WEBADDR_PUBLIC;
}

static uint32_t
webaddr_v4_at(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static enum webaddr_class
webaddr_classify_v6(const uint8_t *b)
{
	static const uint8_t zero[16];
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	static const uint8_t nat64[12] = { 0, 0x64, 0xff, 0x9b };
	static const uint8_t aws[16] = { 0xfd, 0, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x02, 0x54 };

	if (memcmp(b, zero, 16) == 0)
		return WEBADDR_UNSPECIFIED;
	if (memcmp(b, zero, 15) == 0 && b[15] == 1)
		return WEBADDR_LOOPBACK;
	/* An IPv4 address inside: v4-mapped, v4-compatible (deprecated), NAT64. */
	if (memcmp(b, mapped, 12) == 0 || memcmp(b, zero, 12) == 0 || memcmp(b, nat64, 12) == 0)
		return webaddr_classify_v4(webaddr_v4_at(b + 12));
	if (b[0] == 0x20 && b[1] == 0x02)		/* 6to4 */
		return webaddr_classify_v4(webaddr_v4_at(b + 2));
	if (memcmp(b, aws, 16) == 0)
		return WEBADDR_METADATA;
	if ((b[0] & 0xfe) == 0xfc)			/* unique local */
		return WEBADDR_PRIVATE;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80)
		return WEBADDR_LINK_LOCAL;
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0)	/* site-local (deprecated) */
		return WEBADDR_PRIVATE;
	if (b[0] == 0xff)
		return WEBADDR_RESERVED;		/* multicast */
	return WEBADDR_PUBLIC;
}

enum webaddr_class
webaddr_classify(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;

		return webaddr_classify_v4(ntohl(in->sin_addr.s_addr));
	}
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;

		return webaddr_classify_v6(in6->sin6_addr.s6_addr);
	}
	return WEBADDR_RESERVED;
}

const char *
webaddr_class_name(enum webaddr_class c)
{
	static const char *const names[] = {
		"public", "loopback", "private", "link-local", "unspecified",
		"cloud metadata", "reserved"
	};

	return (size_t)c < sizeof names / sizeof names[0] ? names[c] : "reserved";
}

int
webaddr_parse_host(const char *host, struct sockaddr_storage *out)
{
	char tmp[64];
	size_t n = strlen(host);
	struct sockaddr_in *in = (struct sockaddr_in *)(void *)out;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)(void *)out;

	memset(out, 0, sizeof *out);
	if (n > 0 && host[0] == '[' && host[n - 1] == ']') {
		host++;
		n -= 2;
	}
	if (n == 0 || n >= sizeof tmp)
		return -1;
	memcpy(tmp, host, n);
	tmp[n] = '\0';
	/* A zone ("fe80::1%eth0") does not change the class. */
	if (strchr(tmp, ':') != NULL)
		tmp[strcspn(tmp, "%")] = '\0';
	if (inet_pton(AF_INET6, tmp, &in6->sin6_addr) == 1) {
		in6->sin6_family = AF_INET6;
		return 0;
	}
	/* inet_aton reads what resolvers read: 127.1, 2130706433, 0177.0.0.1, 0x7f.1. */
	if (n > 0 && tmp[n - 1] == '.')
		tmp[n - 1] = '\0';
	if (inet_aton(tmp, &in->sin_addr) == 1) {
		in->sin_family = AF_INET;
		return 0;
	}
	return -1;
}

void
webaddr_text(const struct sockaddr *sa, char *out, size_t size)
{
	const void *p = sa->sa_family == AF_INET ?
	    (const void *)&((const struct sockaddr_in *)(const void *)sa)->sin_addr :
	    (const void *)&((const struct sockaddr_in6 *)(const void *)sa)->sin6_addr;

	if (size > 0)
		out[0] = '\0';
	if (sa->sa_family == AF_INET || sa->sa_family == AF_INET6)
		inet_ntop(sa->sa_family, p, out, (socklen_t)size);
}
