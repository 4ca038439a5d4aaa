/*
 * The ways out of the sandbox to a host's Unix socket, tried one by one
 * (tests/it/sandbox_routes.sh compiles it with the system's cc).
 *
 *	sandbox_routes STREAM_PATH DGRAM_PATH ABSTRACT_NAME
 *		one line per route: "NAME REACHED", "NAME SENT" or
 *		"NAME REFUSED errno"
 *	sandbox_routes nested HIDDEN_DIR READONLY_DIR
 *		as root of a new user and mount namespace (capabilities held,
 *		no exec between): unmount HIDDEN_DIR, remount READONLY_DIR
 *		writable and write in it; "nested-umount", "nested-remount",
 *		"nested-write" lines as above (DONE when it worked)
 *	sandbox_routes session SECRET PROGRAM ARGS...
 *		a new session keyring holding the user key "tandem:probe"
 *		(SECRET), then exec PROGRAM in it
 *
 * STREAM_PATH is a listener that answers "PONG"; DGRAM_PATH a datagram
 * socket whose receiver logs what comes; ABSTRACT_NAME an abstract
 * listener that answers "PONG".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <linux/keyctl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#ifndef AF_VSOCK
#define AF_VSOCK 40
#endif

static socklen_t
addr_of(struct sockaddr_un *sa, const char *path, int abstract)
{
	size_t n = strlen(path);

	memset(sa, 0, sizeof *sa);
	sa->sun_family = AF_UNIX;
	if (n + 2 > sizeof sa->sun_path)
		exit(2);
	memcpy(sa->sun_path + (abstract ? 1 : 0), path, n);
	/* a path's ending NUL, or an abstract name's leading one */
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
}

/* A connected stream socket: read its answer. */
static void
say_answer(const char *name, int s)
{
	char b[8] = { 0 };

	if (read(s, b, 4) == 4 && memcmp(b, "PONG", 4) == 0)
		printf("%s REACHED\n", name);
	else
		printf("%s REFUSED %d\n", name, errno);
}

static void
try_socket(const char *name, const char *path, int abstract)
{
	struct sockaddr_un sa;
	socklen_t n = addr_of(&sa, path, abstract);
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	if (s == -1 || connect(s, (struct sockaddr *)&sa, n) == -1) {
		printf("%s REFUSED %d\n", name, errno);
		return;
	}
	say_answer(name, s);
	close(s);
}

/* io_uring: IORING_OP_SOCKET, then IORING_OP_CONNECT, with no socket(2) and no connect(2). */
struct ring {
	int			 fd;
	unsigned		*sq_tail, *sq_mask, *sq_array, *cq_head, *cq_tail, *cq_mask;
	struct io_uring_sqe	*sqes;
	struct io_uring_cqe	*cqes;
};

static int
ring_run(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned t = *r->sq_tail, h;
	int res;

	r->sqes[t & *r->sq_mask] = *sqe;
	r->sq_array[t & *r->sq_mask] = t & *r->sq_mask;
	__atomic_store_n(r->sq_tail, t + 1, __ATOMIC_RELEASE);
	if (syscall(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, NULL, 0) == -1)
		return -errno;
	h = *r->cq_head;
	if (h == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
		return -EAGAIN;
	res = r->cqes[h & *r->cq_mask].res;
	__atomic_store_n(r->cq_head, h + 1, __ATOMIC_RELEASE);
	return res;
}

static void
try_uring(const char *path)
{
	struct io_uring_params p;
	struct io_uring_sqe sqe;
	struct sockaddr_un sa;
	socklen_t n = addr_of(&sa, path, 0);
	struct ring r;
	char *sq, *cq;
	int s, c;

	memset(&p, 0, sizeof p);
	if ((r.fd = (int)syscall(__NR_io_uring_setup, 4, &p)) == -1) {
		printf("io_uring REFUSED %d\n", errno);
		return;
	}
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * sizeof(unsigned), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, r.fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * sizeof(struct io_uring_cqe),
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r.fd, IORING_OFF_CQ_RING);
	r.sqes = mmap(NULL, p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_POPULATE, r.fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r.sqes == MAP_FAILED) {
		printf("io_uring REFUSED %d\n", errno);
		return;
	}
	r.sq_tail = (unsigned *)(sq + p.sq_off.tail);
	r.sq_mask = (unsigned *)(sq + p.sq_off.ring_mask);
	r.sq_array = (unsigned *)(sq + p.sq_off.array);
	r.cq_head = (unsigned *)(cq + p.cq_off.head);
	r.cq_tail = (unsigned *)(cq + p.cq_off.tail);
	r.cq_mask = (unsigned *)(cq + p.cq_off.ring_mask);
	r.cqes = (struct io_uring_cqe *)(cq + p.cq_off.cqes);
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = IORING_OP_SOCKET;
	sqe.fd = AF_UNIX;
	sqe.off = SOCK_STREAM;
	if ((s = ring_run(&r, &sqe)) < 0) {
		printf("io_uring REFUSED %d\n", -s);
		return;
	}
	memset(&sqe, 0, sizeof sqe);
	sqe.opcode = IORING_OP_CONNECT;
	sqe.fd = s;
	sqe.addr = (uint64_t)(uintptr_t)&sa;
	sqe.off = n;
	if ((c = ring_run(&r, &sqe)) < 0) {
		printf("io_uring REFUSED %d\n", -c);
		return;
	}
	say_answer("io_uring", s);
}

/*
 * A datagram socketpair's end, sent to a path by sendto() or after
 * connect(); a SOCK_RAW pair is a datagram one to the kernel.
 */
static void
try_dgram(const char *name, int type, const char *path, int by_connect)
{
	const char *msg = type == SOCK_RAW ? "RAWSENT\n" : "SENDTO\n";
	struct sockaddr_un sa;
	socklen_t n = addr_of(&sa, path, 0);
	int sv[2];
	ssize_t w;

	if (socketpair(AF_UNIX, type | SOCK_CLOEXEC, 0, sv) == -1) {
		printf("%s REFUSED %d\n", name, errno);
		return;
	}
	if (by_connect)
		w = connect(sv[0], (struct sockaddr *)&sa, n) == -1 ? -1 :
		    write(sv[0], "CONNECT\n", 8);
	else
		w = sendto(sv[0], msg, strlen(msg), 0, (struct sockaddr *)&sa, n);
	if (w == -1)
		printf("%s REFUSED %d\n", name, errno);
	else
		printf("%s SENT\n", name);
}

/* What programs make between their own processes still works. */
static void
try_pairs(void)
{
	static const struct { const char *name; int type; } t[] = {
		{ "pair-stream", SOCK_STREAM }, { "pair-seqpacket", SOCK_SEQPACKET },
		{ "pair-stream-cloexec-nonblock", SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK },
		{ "pair-dgram-nonblock", SOCK_DGRAM | SOCK_NONBLOCK },
	};
	size_t i;
	int sv[2];
	char c;

	for (i = 0; i < sizeof t / sizeof t[0]; i++) {
		if (socketpair(AF_UNIX, t[i].type, 0, sv) == -1) {
			printf("%s REFUSED %d\n", t[i].name, errno);
			continue;
		}
		if (write(sv[0], "x", 1) == 1 && read(sv[1], &c, 1) == 1 && c == 'x')
			printf("%s WORKS\n", t[i].name);
		else
			printf("%s BROKEN %d\n", t[i].name, errno);
		close(sv[0]);
		close(sv[1]);
	}
}

static void
try_vsock(void)
{
	int s = socket(AF_VSOCK, SOCK_STREAM, 0);

	if (s == -1)
		printf("vsock REFUSED %d\n", errno);
	else
		printf("vsock MADE\n");
}

/* The session keyring inherited from tandem. */
static void
try_keyring(void)
{
	char b[64];
	long id = syscall(__NR_request_key, "user", "tandem:probe", NULL, 0);
	long n;

	if (id == -1) {
		printf("keyring REFUSED %d\n", errno);
		return;
	}
	n = syscall(__NR_keyctl, KEYCTL_READ, id, b, sizeof b - 1);
	if (n < 0) {
		printf("keyring REFUSED %d\n", errno);
		return;
	}
	b[n < (long)sizeof b ? n : (long)sizeof b - 1] = '\0';
	/* the secret itself is not printed: the test knows it and looks for the word */
	printf("keyring %s\n", strcmp(b, getenv("PROBE_SECRET") != NULL ?
	    getenv("PROBE_SECRET") : "") == 0 ? "READ" : "OTHER");
}

static int
session(char **argv)
{
	if (syscall(__NR_keyctl, KEYCTL_JOIN_SESSION_KEYRING, NULL) == -1 ||
	    syscall(__NR_add_key, "user", "tandem:probe", argv[0], strlen(argv[0]),
	    KEY_SPEC_SESSION_KEYRING) == -1) {
		perror("sandbox_routes: keyring");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror("sandbox_routes: exec");
	return 2;
}

static void
said(const char *name, int r)
{
	if (r == -1)
		printf("%s REFUSED %d\n", name, errno);
	else
		printf("%s DONE\n", name);
}

/* What root of a nested user namespace can undo of the sandbox's mounts. */
static int
nested(const char *hidden, const char *ro)
{
	char path[4096];
	int fd;

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == -1) {
		printf("nested-unshare REFUSED %d\n", errno);
		return 0;
	}
	said("nested-umount", umount2(hidden, MNT_DETACH));
	said("nested-remount", mount(NULL, ro, NULL, MS_REMOUNT | MS_BIND, NULL));
	snprintf(path, sizeof path, "%s/nested", ro);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	said("nested-write", fd);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "nested") == 0)
		return nested(argv[2], argv[3]);
	if (argc >= 4 && strcmp(argv[1], "session") == 0)
		return session(argv + 2);
	if (argc != 4) {
		fprintf(stderr, "usage: sandbox_routes STREAM_PATH DGRAM_PATH ABSTRACT_NAME\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	try_socket("unix-socket", argv[1], 0);
	try_uring(argv[1]);
	try_dgram("dgram-sendto", SOCK_DGRAM, argv[2], 0);
	try_dgram("dgram-connect", SOCK_DGRAM, argv[2], 1);
	try_dgram("raw-sendto", SOCK_RAW, argv[2], 0);
	try_pairs();
	try_vsock();
	try_keyring();
	try_socket("abstract", argv[3], 1);
	return 0;
}
