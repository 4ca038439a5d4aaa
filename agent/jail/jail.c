/* The command sandbox: see jail.h. */
#include "autoconf.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <net/if.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "buf.h"
#include "event.h"
#include "jail.h"
#include "json.h"
#include "xalloc.h"

/* Landlock, as the kernel defines it (the C library's header may be older). */
#define JAIL_LL_FS_EXECUTE	(1ULL << 0)
#define JAIL_LL_FS_WRITE_FILE	(1ULL << 1)
#define JAIL_LL_FS_READ_FILE	(1ULL << 2)
#define JAIL_LL_FS_READ_DIR	(1ULL << 3)
#define JAIL_LL_FS_ABI1		((1ULL << 13) - 1)	/* execute .. make_sym */
#define JAIL_LL_FS_REFER	(1ULL << 13)		/* ABI 2 */
#define JAIL_LL_FS_TRUNCATE	(1ULL << 14)		/* ABI 3 */
#define JAIL_LL_FS_IOCTL_DEV	(1ULL << 15)		/* ABI 5 */
#define JAIL_LL_NET_BIND_TCP	(1ULL << 0)		/* ABI 4 */
#define JAIL_LL_NET_CONNECT_TCP	(1ULL << 1)
#define JAIL_LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)		/* ABI 6 */
#define JAIL_LL_SCOPE_SIGNAL	(1ULL << 1)
#define JAIL_LL_RULE_PATH	1
#define JAIL_LL_VERSION		(1U << 0)

struct jail_ll_ruleset {
	uint64_t	fs, net, scoped;
};

struct jail_ll_path {
	uint64_t	allowed;
	int32_t		fd;
} __attribute__((packed));

/*
 * What each Landlock ABI adds, and what a kernel without it would leave to
 * the mount namespace alone.  Below JAIL_LANDLOCK_MIN the sandbox is not used.
 */
static const struct {
	int		 abi;
	const char	*adds;
	const char	*without;
} jail_abis[] = {
	{ 1, "file access", "nothing: no Landlock layer at all" },
	{ 2, "renaming and linking across directories (REFER)",
	  "every rename or link across directories is refused" },
	{ 3, "truncate (TRUNCATE)", "truncate() outside the writable places is not covered" },
	{ 4, "TCP bind and connect", "only the network namespace keeps the network off" },
	{ 5, "ioctl on devices (IOCTL_DEV)", "ioctls on device files are not covered" },
	{ 6, "abstract Unix sockets and signals scoped to the sandbox",
	  "abstract sockets and signals outside rest on the network and PID namespaces" },
	{ 7, "audit logging controls", "nothing the sandbox relies on" },
};

/* Inside the workspace and read-only whatever the mode: hooks, settings, servers, memory. */
static const char *const jail_protected[] = {
	".git", ".tandem", ".mcp.json", "AGENTS.md", "CLAUDE.md", "TANDEM.md",
	/* and what else protect.h guards in the root, when it exists */
	"CLAUDE.local.md", ".claude", ".envrc", ".vscode", ".idea", NULL
};

/* Gone from a sandboxed command's environment: ways out to the user's session. */
static const char *const jail_unset[] = {
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "DBUS_SESSION_BUS_ADDRESS", "DBUS_SYSTEM_BUS_ADDRESS",
	"XDG_RUNTIME_DIR", "GPG_AGENT_INFO", "WAYLAND_DISPLAY", "TMUX", "TMUX_PANE", NULL
};
/* The host's service sockets, hidden: through them a command would run things outside. */
static const char *const jail_hidden[] = {
	"/run/systemd", "/run/dbus", "/run/docker.sock", "/run/containerd", "/run/podman",
	"/run/user", "/var/run/docker.sock", NULL
};
static const char *const jail_set[] = { "TMPDIR=/tmp", "TANDEM_SANDBOX=1", NULL };

/* Device files a sandboxed command may write (Landlock; the rest of /dev is read-only). */
static const char *const jail_devices[] = {
	"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", NULL
};

static const char *const jail_mode_names[] = { "off", "read-only", "workspace-write" };

struct jail {
	enum jail_mode	 mode;
	bool		 network, auto_allow, unix_sockets;
	char		*root;
	char		**allow_write;	/* absolute, NULL-ended */
	char		**deny_read;
	int		 landlock_abi;	/* 0: none */
	bool		 landlock_forced;	/* lowered by TANDEM_LANDLOCK_ABI */
	bool		 sc_unknown;	/* no seccomp filter for this build's architecture */
	bool		 said;		/* jail_announce has said why it cannot run */
	char		*unusable;	/* why a set mode cannot run; NULL: fine */
	uid_t		 uid;
	gid_t		 gid;
};

/* --- settings -------------------------------------------------------------- */

const char *
jail_mode_name(enum jail_mode m)
{
	return (unsigned)m < sizeof jail_mode_names / sizeof jail_mode_names[0] ?
	    jail_mode_names[m] : "?";
}

static int
jail_mode_parse(const char *s, enum jail_mode *m)
{
	size_t i;

	for (i = 0; i < sizeof jail_mode_names / sizeof jail_mode_names[0]; i++)
		if (strcmp(s, jail_mode_names[i]) == 0) {
			*m = (enum jail_mode)i;
			return 0;
		}
	return -1;
}

static void
jail_strv_free(char **v)
{
	size_t i;

	for (i = 0; v != NULL && v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

static size_t
jail_strv_len(char *const *v)
{
	size_t n = 0;

	while (v != NULL && v[n] != NULL)
		n++;
	return n;
}

static void
jail_strv_push(char ***v, const char *s)
{
	size_t n = jail_strv_len(*v);

	*v = xreallocarray(*v, n + 2, sizeof **v);
	(*v)[n] = xstrdup(s);
	(*v)[n + 1] = NULL;
}

static void
jail_layer_release(struct jail_layer *L)
{
	jail_strv_free(L->allow_write);
	jail_strv_free(L->deny_read);
	free(L->source);
	memset(L, 0, sizeof *L);
}

void
jail_config_release(struct jail_config *c)
{
	int i;

	for (i = 0; i < JAIL_NLAYERS; i++)
		jail_layer_release(&c->layers[i]);
}

static void
jail_set_source(struct jail_layer *L, const char *source)
{
	free(L->source);
	L->source = xstrdup(source);
}

/* Set one key of a layer from its JSON value: 0, or -1 with what is wrong in why. */
static int
jail_layer_set(struct jail_layer *L, const char *key, const cJSON *v, struct buf *why)
{
	const cJSON *it;
	char ***list;

	if (strcmp(key, "mode") == 0) {
		if (!cJSON_IsString(v) || jail_mode_parse(v->valuestring, &L->mode) == -1) {
			buf_puts(why, "must be \"off\", \"read-only\" or \"workspace-write\"");
			return -1;
		}
		L->has_mode = true;
		return 0;
	}
	if (strcmp(key, "network") == 0 || strcmp(key, "auto_allow") == 0 ||
	    strcmp(key, "unix_sockets") == 0 || strcmp(key, "project_loosens") == 0) {
		if (!cJSON_IsBool(v)) {
			buf_puts(why, "must be true or false");
			return -1;
		}
		if (key[0] == 'p') {
			L->project_loosens = cJSON_IsTrue(v);
			L->has_project_loosens = true;
		} else if (key[0] == 'n') {
			L->network = cJSON_IsTrue(v);
			L->has_network = true;
		} else if (key[0] == 'u') {
			L->unix_sockets = cJSON_IsTrue(v);
			L->has_unix_sockets = true;
		} else {
			L->auto_allow = cJSON_IsTrue(v);
			L->has_auto_allow = true;
		}
		return 0;
	}
	if (strcmp(key, "allow_write") == 0 || strcmp(key, "deny_read") == 0) {
		list = key[0] == 'a' ? &L->allow_write : &L->deny_read;
		if (cJSON_IsString(v)) {
			jail_strv_push(list, v->valuestring);
			return 0;
		}
		if (!cJSON_IsArray(v)) {
			buf_puts(why, "must be an array of paths");
			return -1;
		}
		cJSON_ArrayForEach(it, v)
			if (!cJSON_IsString(it) || it->valuestring[0] == '\0') {
				buf_puts(why, "must be an array of paths");
				return -1;
			}
		cJSON_ArrayForEach(it, v)
			jail_strv_push(list, it->valuestring);
		return 0;
	}
	buf_puts(why, "is not a sandbox setting");
	return -1;
}

/* One warning line; a key's control bytes must not break it into lines. */
static void
jail_warn(struct buf *warnings, const char *path, const char *key, const char *why)
{
	size_t i;

	if (warnings == NULL)
		return;
	buf_printf(warnings, "%s: ", path);
	i = warnings->len;
	buf_printf(warnings, "\"sandbox%s%s\" %s (ignored)", key != NULL ? "." : "",
	    key != NULL ? key : "", why);
	for (; i < warnings->len; i++)
		if ((unsigned char)warnings->data[i] < 0x20 || warnings->data[i] == 0x7f)
			warnings->data[i] = '?';
	buf_putc(warnings, '\n');
}

void
jail_config_apply(struct jail_config *c, const cJSON *v, const char *path, bool project,
    struct buf *warnings)
{
	struct jail_layer *L = &c->layers[project ? JAIL_LAYER_PROJECT : JAIL_LAYER_USER];
	struct buf why = BUF_INIT(1024);
	const cJSON *m;

	if (!cJSON_IsObject(v)) {
		jail_warn(warnings, path, NULL, "must be an object");
		return;
	}
	cJSON_ArrayForEach(m, v) {
		buf_reset(&why);
		if (project && strcmp(m->string, "project_loosens") == 0) {
			jail_warn(warnings, path, m->string, "is the user's to set, not a project's");
			continue;
		}
		if (jail_layer_set(L, m->string, m, &why) == -1) {
			jail_warn(warnings, path, m->string, buf_cstr(&why));
			continue;
		}
		jail_set_source(L, path);
	}
	buf_release(&why);
}

int
jail_config_flag(struct jail_config *c, const char *key, const char *value, struct buf *err)
{
	struct jail_layer *L = &c->layers[JAIL_LAYER_FLAG];
	struct buf why = BUF_INIT(1024);
	cJSON *v;
	int r;

	if (strcmp(key, "network") == 0 || strcmp(key, "auto_allow") == 0 ||
	    strcmp(key, "unix_sockets") == 0 || strcmp(key, "project_loosens") == 0) {
		v = strcmp(value, "true") == 0 || strcmp(value, "on") == 0 ? cJSON_CreateTrue() :
		    strcmp(value, "false") == 0 || strcmp(value, "off") == 0 ? cJSON_CreateFalse() :
		    cJSON_CreateString(value);
	} else
		v = cJSON_CreateString(value);
	r = jail_layer_set(L, key, v, &why);
	cJSON_Delete(v);
	if (r == -1)
		buf_printf(err, "sandbox.%s \"%s\" is not valid: it %s", key, value, buf_cstr(&why));
	else
		jail_set_source(L, "flag");
	buf_release(&why);
	return r;
}

/* The effective settings; src names the layer each came from. */
struct jail_eff {
	enum jail_mode	 mode;
	bool		 network, auto_allow, unix_sockets, project_loosens;
	const char	*mode_src, *network_src, *auto_src, *unix_src;
	char		**allow_write, **deny_read;	/* owned */
};

/* How tightly a mode confines: a project may only raise it. */
static int
jail_mode_rank(enum jail_mode m)
{
	return m == JAIL_READ_ONLY ? 2 : m == JAIL_WORKSPACE_WRITE ? 1 : 0;
}

/* Whether the user's own settings or flags let a trusted project loosen the sandbox. */
static bool
jail_user_lets_loosen(const struct jail_config *c)
{
	const struct jail_layer *u = &c->layers[JAIL_LAYER_USER], *f = &c->layers[JAIL_LAYER_FLAG];

	if (f->has_project_loosens)
		return f->project_loosens;
	return u->has_project_loosens && u->project_loosens;
}

/*
 * The layers in order, later winning.  A project may only tighten what
 * confines a command (a stricter mode, the network and Unix sockets off,
 * more deny_read), trusted or not: in yolo a project's "off" would run
 * every command unconfined.  Only the user's sandbox.project_loosens
 * lets a trusted project loosen them.  Auto-allow is about prompts, not
 * confinement: a project turns it on (or turns a mode on with it) only
 * once trusted, like its allow rules.
 */
static void
jail_effective(const struct jail_config *c, bool trusted, struct jail_eff *e)
{
	bool may_loosen = trusted && jail_user_lets_loosen(c);
	bool mode_by_user = false;
	int i;
	size_t k;

	memset(e, 0, sizeof *e);
	e->mode_src = e->network_src = e->auto_src = e->unix_src = "default";
	e->project_loosens = jail_user_lets_loosen(c);
	for (i = 0; i < JAIL_NLAYERS; i++) {
		const struct jail_layer *L = &c->layers[i];
		bool project = i == JAIL_LAYER_PROJECT;
		bool loosen_ok = !project || may_loosen;

		if (L->has_mode && (loosen_ok || jail_mode_rank(L->mode) >= jail_mode_rank(e->mode))) {
			e->mode = L->mode;
			e->mode_src = L->source;
			/* Auto-allow's default follows a mode the project set only under trust. */
			if (!project || trusted)
				mode_by_user = L->mode != JAIL_OFF;
		}
		if (L->has_network && (loosen_ok || !L->network)) {
			e->network = L->network;
			e->network_src = L->source;
		}
		if (L->has_auto_allow && (!project || trusted || !L->auto_allow)) {
			e->auto_allow = L->auto_allow;
			e->auto_src = L->source;
		}
		if (L->has_unix_sockets && (loosen_ok || !L->unix_sockets)) {
			e->unix_sockets = L->unix_sockets;
			e->unix_src = L->source;
		}
		for (k = 0; loosen_ok && L->allow_write != NULL && L->allow_write[k] != NULL; k++)
			jail_strv_push(&e->allow_write, L->allow_write[k]);
		for (k = 0; L->deny_read != NULL && L->deny_read[k] != NULL; k++)
			jail_strv_push(&e->deny_read, L->deny_read[k]);
	}
	/* auto_allow defaults to on once the user (or a trusted project) sets a mode. */
	if (strcmp(e->auto_src, "default") == 0)
		e->auto_allow = e->mode != JAIL_OFF && mode_by_user;
}

static void
jail_print_line(struct buf *out, const char *key, const char *value, const char *src)
{
	buf_printf(out, "%-24s %s  [%s]\n", key, value, src);
}

static void
jail_print_list(struct buf *out, const char *key, char **v)
{
	size_t i;

	if (v == NULL || v[0] == NULL) {
		jail_print_line(out, key, "[]", "default");
		return;
	}
	for (i = 0; v[i] != NULL; i++)
		jail_print_line(out, key, v[i], "settings");
}

void
jail_config_print(const struct jail_config *c, bool trusted, struct buf *out)
{
	struct jail_eff e;

	jail_effective(c, trusted, &e);
	jail_print_line(out, "sandbox.mode", jail_mode_name(e.mode), e.mode_src);
	jail_print_line(out, "sandbox.network", e.network ? "true" : "false", e.network_src);
	jail_print_line(out, "sandbox.auto_allow", e.auto_allow ? "true" : "false", e.auto_src);
	jail_print_line(out, "sandbox.unix_sockets", e.unix_sockets ? "true" : "false", e.unix_src);
	jail_print_line(out, "sandbox.project_loosens", e.project_loosens ? "true" : "false",
	    e.project_loosens ? "settings" : "default");
	jail_print_list(out, "sandbox.allow_write", e.allow_write);
	jail_print_list(out, "sandbox.deny_read", e.deny_read);
	jail_strv_free(e.allow_write);
	jail_strv_free(e.deny_read);
}

/* --- what the kernel can do ------------------------------------------------ */

static int
jail_ll_abi(void)
{
	long v = syscall(SYS_landlock_create_ruleset, NULL, 0, JAIL_LL_VERSION);

	return v > 0 ? (int)v : 0;
}

/* 1 when Ubuntu's AppArmor restriction on unprivileged user namespaces is on. */
static int
jail_apparmor_restricts(void)
{
	char c = '0';
	int fd = open("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return 0;
	if (read(fd, &c, 1) != 1)
		c = '0';
	close(fd);
	return c == '1';
}

static int
jail_write_file(const char *path, const char *text)
{
	size_t n = strlen(text);
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t w;

	if (fd == -1)
		return -1;
	w = write(fd, text, n);
	close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

/* In a child: the namespaces and the uid map, as a command's set-up makes them. */
static int
jail_unshare(uid_t uid, gid_t gid, bool network, struct buf *err)
{
	char map[64];
	int flags = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | (network ? 0 : CLONE_NEWNET);
	int n;

	if (unshare(flags) == -1) {
		buf_printf(err, "the kernel refuses new user, mount, PID and network namespaces (%s)",
		    strerror(errno));
		if (jail_apparmor_restricts())
			buf_puts(err, "; AppArmor restricts unprivileged user namespaces "
			    "(kernel.apparmor_restrict_unprivileged_userns = 1)");
		return -1;
	}
	n = snprintf(map, sizeof map, "%lu %lu 1\n", (unsigned long)uid, (unsigned long)uid);
	if (n < 0 || (size_t)n >= sizeof map || jail_write_file("/proc/self/uid_map", map) == -1 ||
	    jail_write_file("/proc/self/setgroups", "deny") == -1) {
		buf_printf(err, "cannot map the user id into the sandbox (%s)", strerror(errno));
		return -1;
	}
	n = snprintf(map, sizeof map, "%lu %lu 1\n", (unsigned long)gid, (unsigned long)gid);
	if (n < 0 || (size_t)n >= sizeof map || jail_write_file("/proc/self/gid_map", map) == -1) {
		buf_printf(err, "cannot map the group id into the sandbox (%s)", strerror(errno));
		return -1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1) {
		buf_printf(err, "cannot make the sandbox's mounts private (%s)", strerror(errno));
		if (jail_apparmor_restricts())
			buf_puts(err, "; AppArmor restricts unprivileged user namespaces "
			    "(kernel.apparmor_restrict_unprivileged_userns = 1)");
		return -1;
	}
	return 0;
}

/* Try, in a throw-away child, what every command will need: -1 with the reason. */
static int
jail_probe(uid_t uid, gid_t gid, struct buf *why)
{
	int p[2], status;
	char msg[512];
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1) {
		buf_printf(why, "cannot create a pipe (%s)", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		buf_printf(why, "cannot fork (%s)", strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		struct buf err = BUF_INIT(sizeof msg - 1);

		close(p[0]);
		if (jail_unshare(uid, gid, false, &err) == -1 ||
		    (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "size=64k") == -1 &&
		    buf_printf(&err, "cannot mount in the sandbox (%s)", strerror(errno)) >= 0)) {
			(void)!write(p[1], buf_cstr(&err), err.len);
			_exit(1);
		}
		_exit(0);
	}
	close(p[1]);
	n = read(p[0], msg, sizeof msg - 1);
	close(p[0]);
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	msg[n > 0 ? n : 0] = '\0';
	buf_puts(why, n > 0 ? msg : "the namespace check failed");
	return -1;
}

/* A setting's path as an absolute one: "~/x" below home, relative below root. */
static char *
jail_abs(const char *p, const char *root, const char *home)
{
	struct buf b = BUF_INIT(8192);

	if (p[0] == '~' && (p[1] == '/' || p[1] == '\0') && home != NULL)
		buf_printf(&b, "%s%s", home, p + 1);
	else if (p[0] == '/')
		buf_puts(&b, p);
	else
		buf_printf(&b, "%s/%s", root, p);
	return buf_detach(&b, NULL);
}

static void
jail_simulate(struct jail *j)
{
	const char *s = getenv("TANDEM_SANDBOX_SIMULATE");
	char *end;
	long v;

	if (s == NULL || s[0] == '\0')
		return;
	if (strcmp(s, "nolandlock") == 0)
		j->landlock_abi = 0;
	else if (strcmp(s, "nouserns") == 0)
		j->unusable = xstrdup("the kernel refuses new user namespaces "
		    "(simulated by TANDEM_SANDBOX_SIMULATE=nouserns)");
	else if (strcmp(s, "unknownarch") == 0)
		j->sc_unknown = true;
	else if (strncmp(s, "landlock=", 9) == 0) {
		errno = 0;
		v = strtol(s + 9, &end, 10);
		if (errno == 0 && end != s + 9 && *end == '\0' && v >= 0 && v < 100)
			j->landlock_abi = (int)v;
	}
}

/*
 * TANDEM_LANDLOCK_ABI=N (0: none), for testing what each layer holds: the
 * sandbox uses Landlock ABI N at most, even below JAIL_LANDLOCK_MIN.  It
 * only lowers what the kernel offers, never raises it.
 */
static void
jail_force_abi(struct jail *j)
{
	const char *s = getenv("TANDEM_LANDLOCK_ABI");
	char *end;
	long v;

	if (s == NULL || s[0] == '\0')
		return;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || v < 0 || v >= j->landlock_abi)
		return;	/* not a lowering */
	j->landlock_abi = (int)v;
	j->landlock_forced = true;
}

static bool jail_sc_known(void);

static void
jail_check_kernel(struct jail *j)
{
	struct buf why = BUF_INIT(1024);

	j->landlock_abi = jail_ll_abi();
	jail_simulate(j);
	jail_force_abi(j);
	if (!jail_sc_known())
		j->sc_unknown = true;
	if (j->unusable != NULL)
		goto out;
	if (j->landlock_abi < JAIL_LANDLOCK_MIN && !j->landlock_forced) {
		if (j->landlock_abi == 0)
			buf_puts(&why, "the kernel has no Landlock");
		else
			buf_printf(&why, "the kernel's Landlock ABI is %d", j->landlock_abi);
		buf_printf(&why, "; the sandbox needs Landlock ABI %d or later (it adds %s)",
		    JAIL_LANDLOCK_MIN, jail_abis[JAIL_LANDLOCK_MIN - 1].adds);
		if (getenv("TANDEM_SANDBOX_SIMULATE") != NULL)
			buf_puts(&why, " (simulated by TANDEM_SANDBOX_SIMULATE)");
		j->unusable = buf_detach(&why, NULL);
		goto out;
	}
	if (jail_probe(j->uid, j->gid, &why) == -1)
		j->unusable = buf_detach(&why, NULL);
out:
	buf_release(&why);
}

struct jail *
jail_new(const struct jail_config *c, bool trusted, const char *root, const char *home)
{
	struct jail *j = xcalloc(1, sizeof *j);
	struct jail_eff e;
	size_t i;

	jail_effective(c, trusted, &e);
	j->mode = e.mode;
	j->network = e.network;
	j->auto_allow = e.auto_allow;
	j->unix_sockets = e.unix_sockets;
	j->root = xstrdup(root);
	j->uid = geteuid();
	j->gid = getegid();
	for (i = 0; e.allow_write != NULL && e.allow_write[i] != NULL; i++) {
		char *a = jail_abs(e.allow_write[i], root, home);

		jail_strv_push(&j->allow_write, a);
		free(a);
	}
	for (i = 0; e.deny_read != NULL && e.deny_read[i] != NULL; i++) {
		char *a = jail_abs(e.deny_read[i], root, home);

		jail_strv_push(&j->deny_read, a);
		free(a);
	}
	jail_strv_free(e.allow_write);
	jail_strv_free(e.deny_read);
	if (j->mode != JAIL_OFF)
		jail_check_kernel(j);
	/* A missing .tandem could be created, settings and all, by a command: it exists read-only. */
	if (j->mode == JAIL_WORKSPACE_WRITE && j->unusable == NULL) {
		struct buf d = BUF_INIT(8192);

		buf_printf(&d, "%s/.tandem", root);
		(void)mkdir(buf_cstr(&d), 0755);
		buf_release(&d);
	}
	return j;
}

void
jail_free(struct jail *j)
{
	if (j == NULL)
		return;
	free(j->root);
	jail_strv_free(j->allow_write);
	jail_strv_free(j->deny_read);
	free(j->unusable);
	free(j);
}

enum jail_mode
jail_mode(const struct jail *j)
{
	return j != NULL ? j->mode : JAIL_OFF;
}

bool
jail_usable(const struct jail *j)
{
	return j != NULL && j->mode != JAIL_OFF && j->unusable == NULL;
}

const char *
jail_unusable(const struct jail *j)
{
	return j != NULL && j->mode != JAIL_OFF ? j->unusable : NULL;
}

int
jail_landlock_abi(const struct jail *j)
{
	return j != NULL ? j->landlock_abi : 0;
}

void
jail_announce(struct jail *j, struct event_bus *bus)
{
	cJSON *ev;

	if (j == NULL || j->mode == JAIL_OFF)
		return;
	ev = event_new(bus, "sandbox");
	cJSON_AddStringToObject(ev, "mode", jail_mode_name(j->mode));
	cJSON_AddBoolToObject(ev, "active", j->unusable == NULL);
	cJSON_AddBoolToObject(ev, "network", j->network);
	cJSON_AddBoolToObject(ev, "auto_allow", j->auto_allow && !j->network);
	cJSON_AddNumberToObject(ev, "landlock_abi", j->landlock_abi);
	if (j->landlock_forced)
		cJSON_AddBoolToObject(ev, "landlock_forced", true);
	cJSON_AddBoolToObject(ev, "unix_sockets_confined", !j->unix_sockets && !j->sc_unknown);
	if (j->unusable != NULL)
		cJSON_AddStringToObject(ev, "reason", j->unusable);
	event_emit(bus, ev);
	if (j->said)
		return;
	j->said = true;
	if (j->unusable != NULL)
		event_error(bus, 0, "the sandbox (%s) cannot run here: %s; commands run unconfined "
		    "and are asked about as before", jail_mode_name(j->mode), j->unusable);
	else if (j->sc_unknown && !j->unix_sockets)
		event_error(bus, 0, "the sandbox has no seccomp filter for this build's "
		    "architecture, so it does not confine Unix sockets, io_uring or the keyring: "
		    "a sandboxed command can reach a host service's socket");
}

/* --- the gate -------------------------------------------------------------- */

bool
jail_applies(const struct jail *j, const cJSON *input)
{
	const cJSON *s = json_get(input, "sandbox");

	return jail_usable(j) && !cJSON_IsFalse(s);
}

bool
jail_auto_allow(const struct jail *j, const struct perm_rules *rules, enum perm_mode mode,
    const char *tool, const cJSON *input, struct buf *why)
{
	struct buf scratch = BUF_INIT(1024);
	struct perm_rules *asks;
	enum perm_verdict v;
	bool yes;
	int r;

	if (strcmp(tool, "run_bash") != 0 || !jail_applies(j, input) || !j->auto_allow ||
	    j->network || (mode != PERM_ASK && mode != PERM_ACCEPT_EDITS))
		return false;
	/* The ask rules alone, over an allow-everything: ALLOW means no ask rule covers it. */
	asks = perm_rules_new();
	perm_rules_merge_list(asks, rules, PERM_LIST_ASK);
	r = perm_rules_add(asks, PERM_LIST_ALLOW, "run_bash", &scratch);
	buf_release(&scratch);
	if (r == -1) {
		perm_rules_free(asks);
		return false;
	}
	v = perm_check(asks, PERM_ASK, tool, TOOL_HIGH_IMPACT, input, NULL);
	perm_rules_free(asks);
	yes = v == PERM_VERDICT_ALLOW;
	if (yes && why != NULL) {
		buf_reset(why);
		buf_printf(why, "sandbox (%s, no network): allowed without a prompt",
		    jail_mode_name(j->mode));
	}
	return yes;
}

void
jail_explain(const struct jail *j, const char *tool, const cJSON *input, struct buf *reason)
{
	if (j == NULL || j->mode == JAIL_OFF || strcmp(tool, "run_bash") != 0)
		return;
	if (jail_unusable(j) != NULL)
		buf_printf(reason, "%sthe sandbox cannot run here, so this runs unconfined",
		    reason->len > 0 ? "; " : "");
	else if (!jail_applies(j, input))
		buf_printf(reason, "%sthis runs OUTSIDE the sandbox, with all of your rights",
		    reason->len > 0 ? "; " : "");
	else if (j->network)
		buf_printf(reason, "%sruns in the sandbox (%s) with the network on",
		    reason->len > 0 ? "; " : "", jail_mode_name(j->mode));
}

const char *const *
jail_env_unset(void)
{
	return jail_unset;
}

const char *const *
jail_env_set(void)
{
	return jail_set;
}

/* --- the result ------------------------------------------------------------ */

static const char *const jail_net_signs[] = {
	"Network is unreachable", "Temporary failure in name resolution", "Could not resolve host",
	"Name or service not known", "No address associated with hostname",
	"Could not resolve hostname", "getaddrinfo", NULL
};

void
jail_note(const struct jail *j, int status, struct buf *text)
{
	const char *t = buf_cstr(text), *hit;
	size_t i;
	bool net = false, sock = false;

	if (!jail_usable(j))
		return;
	/* A refused write is said even when the command went on and ended well. */
	hit = strstr(t, "Read-only file system");
	for (i = 0; !j->network && hit == NULL && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
	    jail_net_signs[i] != NULL; i++)
		if (strstr(t, jail_net_signs[i]) != NULL)
			net = true;
	/* a socket(AF_UNIX) the seccomp filter refused */
	if (!j->unix_sockets && !j->sc_unknown && hit == NULL && !(WIFEXITED(status) && WEXITSTATUS(status) == 0) &&
	    (strstr(t, "Operation not permitted") != NULL || strstr(t, "EPERM") != NULL) &&
	    strcasestr(t, "sock") != NULL)
		sock = true;
	if (hit != NULL)
		buf_printf(text, "\n[sandbox: a write was refused (Read-only file system): in %s "
		    "mode commands write only %s/tmp%s; .git, .tandem, .mcp.json and the memory "
		    "files stay read-only.", jail_mode_name(j->mode),
		    j->mode == JAIL_WORKSPACE_WRITE ? "the workspace and " : "",
		    j->allow_write != NULL ? " and sandbox.allow_write" : "");
	else if (sock)
		buf_puts(text, "\n[sandbox: Unix sockets cannot be created inside the sandbox "
		    "(sandbox.unix_sockets is false), which is likely why this failed.");
	else if (net)
		buf_puts(text, "\n[sandbox: the network is off inside the sandbox "
		    "(sandbox.network is false), which is likely why this failed.");
	else
		return;
	buf_puts(text, " If it must run outside the sandbox, call run_bash again with the same "
	    "command and \"sandbox\": false; the user is asked first.]");
}

/* --- every command ---------------------------------------------------------- */

/*
 * CAP_SYS_PTRACE out of tandem's bounding, inheritable and ambient sets:
 * tandem keeps it (its permitted and effective sets are untouched), but no
 * program it starts gets it back at its exec, however started (proc's
 * spawn, apiKeyHelper's popen, the editor, MCP servers), so a command run as
 * root cannot read /proc/<tandem>/mem or attach to tandem.  Without
 * CAP_SETPCAP (not root) the set cannot change, and a command has no
 * capability to begin with.
 */
int
jail_drop_ptrace(struct buf *err)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];

	if (prctl(PR_CAPBSET_READ, CAP_SYS_PTRACE, 0, 0, 0) != 1)
		return 0;
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_PTRACE, 0, 0);
	if (syscall(SYS_capget, &h, d) == 0 && (d[0].inheritable & (1U << CAP_SYS_PTRACE))) {
		d[0].inheritable &= ~(1U << CAP_SYS_PTRACE);
		(void)syscall(SYS_capset, &h, d);
	}
	if (prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0) == -1 && errno != EPERM) {
		buf_printf(err, "cannot drop CAP_SYS_PTRACE from what commands may have (%s)",
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* --- the set-up, in the command's child ----------------------------------- */

/* Mount flags that a remount must keep (the kernel locks them). */
static unsigned long
jail_keep_flags(const char *path)
{
	static const struct { unsigned long st, ms; } map[] = {
		{ ST_NOSUID, MS_NOSUID }, { ST_NODEV, MS_NODEV }, { ST_NOEXEC, MS_NOEXEC },
		{ ST_NOATIME, MS_NOATIME }, { ST_NODIRATIME, MS_NODIRATIME },
		{ ST_RELATIME, MS_RELATIME },
	};
	struct statvfs sv;
	unsigned long f = 0;
	size_t i;

	if (statvfs(path, &sv) == -1)
		return 0;
	for (i = 0; i < sizeof map / sizeof map[0]; i++)
		if (sv.f_flag & map[i].st)
			f |= map[i].ms;
	return f;
}

static int
jail_remount(const char *path, bool ro, struct buf *err)
{
	unsigned long f = MS_REMOUNT | MS_BIND | jail_keep_flags(path) | (ro ? MS_RDONLY : 0);

	if (mount(NULL, path, NULL, f, NULL) == -1) {
		buf_printf(err, "cannot make %s %s in the sandbox (%s)", path,
		    ro ? "read-only" : "writable", strerror(errno));
		return -1;
	}
	return 0;
}

/* mountinfo escapes blanks and backslashes as \ooo. */
static void
jail_unescape(char *s)
{
	char *d = s;

	while (*s != '\0') {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*d++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 4;
		} else
			*d++ = *s++;
	}
	*d = '\0';
}

/* Every mount read-only: each one in /proc/self/mountinfo, remounted. */
static int
jail_all_readonly(struct buf *err)
{
	char line[8192];
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int r = 0;

	if (f == NULL) {
		buf_printf(err, "cannot read the mount table (%s)", strerror(errno));
		return -1;
	}
	while (r == 0 && fgets(line, sizeof line, f) != NULL) {
		char *fld = line, *mp = NULL;
		int i;

		/* id parent major:minor root mountpoint ... */
		for (i = 0; i < 4 && fld != NULL; i++)
			if ((fld = strchr(fld, ' ')) != NULL)
				fld++;
		if (fld == NULL)
			continue;
		mp = fld;
		if ((fld = strchr(mp, ' ')) != NULL)
			*fld = '\0';
		jail_unescape(mp);
		if (mount(NULL, mp, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | jail_keep_flags(mp),
		    NULL) == -1 && errno != ENOENT && errno != EACCES) {
			buf_printf(err, "cannot make %s read-only in the sandbox (%s)", mp,
			    strerror(errno));
			r = -1;
		}
	}
	fclose(f);
	return r;
}

/* mkdir -p of path's directories that do not exist (in a fresh tmpfs). */
static void
jail_mkdirs(const char *path, bool last_is_file)
{
	char *p = xstrdup(path), *s;

	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		(void)mkdir(p, 0755);
		*s = '/';
	}
	if (last_is_file)
		close(open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0644));
	else
		(void)mkdir(p, 0755);
	free(p);
}

/* Bind what fd names onto path, writable or read-only. */
static int
jail_bind_fd(int fd, const char *path, bool ro, struct buf *err)
{
	char src[64];
	int n = snprintf(src, sizeof src, "/proc/self/fd/%d", fd);
	struct stat st;

	if (n < 0 || (size_t)n >= sizeof src)
		return -1;
	if (stat(path, &st) == -1) {
		struct stat fst;

		jail_mkdirs(path, fstat(fd, &fst) == 0 && !S_ISDIR(fst.st_mode));
	}
	if (mount(src, path, NULL, MS_BIND | MS_REC, NULL) == -1) {
		buf_printf(err, "cannot bind %s into the sandbox (%s)", path, strerror(errno));
		return -1;
	}
	return jail_remount(path, ro, err);
}

/* The places a command may write, opened before the mounts hide them. */
struct jail_binds {
	const char	*path[64];
	int		 fd[64];
	bool		 ro[64];
	size_t		 n;
};

static void
jail_binds_add(struct jail_binds *b, const char *path, bool ro)
{
	int fd;

	if (b->n == sizeof b->fd / sizeof b->fd[0])
		return;
	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return;
	b->path[b->n] = path;
	b->fd[b->n] = fd;
	b->ro[b->n] = ro;
	b->n++;
}

static int
jail_hide(const char *path, struct buf *err)
{
	struct stat st;

	if (stat(path, &st) == -1)
		return 0;
	if (S_ISDIR(st.st_mode)) {
		if (mount("tmpfs", path, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC,
		    "size=4k,mode=0555") == -1) {
			buf_printf(err, "cannot hide %s in the sandbox (%s)", path, strerror(errno));
			return -1;
		}
		return 0;
	}
	if (mount("/dev/null", path, NULL, MS_BIND, NULL) == -1) {
		buf_printf(err, "cannot hide %s in the sandbox (%s)", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int
jail_mounts(const struct jail *j, struct buf *err)
{
	struct jail_binds b = { .n = 0 };
	char run[64], prot[16][4096];
	size_t i, np = 0;
	int n, r = -1;

	/* The workspace is bound back (writable or not) in case /tmp's tmpfs covers it. */
	jail_binds_add(&b, j->root, j->mode != JAIL_WORKSPACE_WRITE);
	for (i = 0; j->mode == JAIL_WORKSPACE_WRITE && j->allow_write != NULL &&
	    j->allow_write[i] != NULL; i++)
		jail_binds_add(&b, j->allow_write[i], false);
	for (i = 0; jail_protected[i] != NULL && np < 16; i++) {
		n = snprintf(prot[np], sizeof prot[np], "%s/%s", j->root, jail_protected[i]);
		if (n > 0 && (size_t)n < sizeof prot[np] && access(prot[np], F_OK) == 0) {
			jail_binds_add(&b, prot[np], true);
			np++;
		}
	}
	if (jail_all_readonly(err) == -1)
		goto out;
	/* A private /tmp (TMPDIR) hides the host's. */
	if (mount("tmpfs", "/tmp", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777") == -1) {
		buf_printf(err, "cannot mount a private /tmp in the sandbox (%s)", strerror(errno));
		goto out;
	}
	n = snprintf(run, sizeof run, "/run/user/%lu", (unsigned long)j->uid);
	if (n > 0 && (size_t)n < sizeof run && jail_hide(run, err) == -1)
		goto out;
	for (i = 0; jail_hidden[i] != NULL; i++)
		if (jail_hide(jail_hidden[i], err) == -1)
			goto out;
	for (i = 0; i < b.n; i++)
		if (jail_bind_fd(b.fd[i], b.path[i], b.ro[i], err) == -1)
			goto out;
	for (i = 0; j->deny_read != NULL && j->deny_read[i] != NULL; i++)
		if (jail_hide(j->deny_read[i], err) == -1)
			goto out;
	r = 0;
out:
	for (i = 0; i < b.n; i++)
		close(b.fd[i]);
	return r;
}

static int
jail_lo_up(struct buf *err)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r = -1;

	if (s == -1) {
		buf_printf(err, "cannot open a socket in the sandbox (%s)", strerror(errno));
		return -1;
	}
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", "lo");
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) == 0)
			r = 0;
	}
	if (r == -1)
		buf_printf(err, "cannot bring up lo in the sandbox (%s)", strerror(errno));
	close(s);
	return r;
}

/* No capability survives the exec, even for uid 0 (the mapped root). */
static int
jail_drop_caps(struct buf *err)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	int c;

	for (c = 0; c <= 63; c++)
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) == -1 && errno != EINVAL) {
			buf_printf(err, "cannot drop capability %d (%s)", c, strerror(errno));
			return -1;
		}
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	memset(d, 0, sizeof d);
	if (syscall(SYS_capset, &h, d) == -1) {
		buf_printf(err, "cannot drop capabilities (%s)", strerror(errno));
		return -1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) {
		buf_printf(err, "cannot set no_new_privs (%s)", strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * The seccomp filter.  seccomp sees a call's number and its arguments'
 * values, never what a pointer or a descriptor names, so it closes the
 * routes it can see, at their start:
 *  - socket(AF_UNIX) fails with EPERM, so a command cannot reach a service
 *    by a socket's path (/run/postgresql, a docker or agent socket the
 *    hidden directories miss), nor by an abstract name; a family other
 *    than IPv4, IPv6, netlink and the kernel's crypto (AF_ALG) fails with
 *    EAFNOSUPPORT: AF_VSOCK reaches a virtual machine's host, and the others
 *    are no build's business;
 *  - socketpair only for stream and seqpacket ends, which are connected for
 *    good: a datagram end can be connect()ed or sendto() a path;
 *  - io_uring_setup, _enter and _register fail with EPERM: io_uring makes
 *    sockets and connects them without socket(2) (programs fall back);
 *  - add_key, request_key and keyctl fail with EPERM: the session keyring
 *    inherited from tandem holds the user's keys, and request_key runs a
 *    helper on the host, outside every namespace;
 *  - the other ABIs of the machine are filtered by their own numbers
 *    (i386 on x86_64, its socketcall refused whole since its arguments are
 *    in memory; AArch32 on arm64) or refused whole (x32, which no
 *    distribution's programs use).
 * With sandbox.unix_sockets true, Unix sockets, datagram pairs and io_uring
 * are allowed; the families, the keyring and the ABIs stay as they are.
 * On an architecture not listed here there is no filter, and the sandbox
 * says so (jail_sc_known).
 */
struct jail_sc_rule {
	uint32_t	nr;
	enum {
		JAIL_SC_REFUSE,		/* EPERM */
		JAIL_SC_REFUSE_UNIX,	/* EPERM unless sandbox.unix_sockets */
		JAIL_SC_SOCKET,		/* by the family */
		JAIL_SC_SOCKETPAIR,	/* by the type, unless sandbox.unix_sockets */
	} what;
};

/* One ABI: its AUDIT_ARCH, its rules, and whether it is refused whole. */
struct jail_sc_abi {
	uint32_t			 arch;
	const struct jail_sc_rule	*rules;
	size_t				 n;
};

#define JAIL_SC_KEYS(add)	{ (add), JAIL_SC_REFUSE }, { (add) + 1, JAIL_SC_REFUSE }, \
				{ (add) + 2, JAIL_SC_REFUSE }
/* io_uring has the same numbers on every architecture. */
#define JAIL_SC_URING		{ 425, JAIL_SC_REFUSE_UNIX }, { 426, JAIL_SC_REFUSE_UNIX }, \
				{ 427, JAIL_SC_REFUSE_UNIX }
#define JAIL_SC_N(a)		(sizeof (a) / sizeof (a)[0])

#if defined(__x86_64__)
#define JAIL_SC_ARCH_NAME	"x86_64"
static const struct jail_sc_rule jail_sc_native[] = {
	{ 41, JAIL_SC_SOCKET }, { 53, JAIL_SC_SOCKETPAIR }, JAIL_SC_URING, JAIL_SC_KEYS(248),
};
static const struct jail_sc_rule jail_sc_compat[] = {	/* i386 */
	{ 102, JAIL_SC_REFUSE }, { 359, JAIL_SC_SOCKET }, { 360, JAIL_SC_SOCKETPAIR },
	JAIL_SC_URING, JAIL_SC_KEYS(286),
};
static const struct jail_sc_abi jail_sc_abis[] = {
	{ AUDIT_ARCH_X86_64, jail_sc_native, JAIL_SC_N(jail_sc_native) },
	{ AUDIT_ARCH_I386, jail_sc_compat, JAIL_SC_N(jail_sc_compat) },
};
/* x32 calls come as x86_64's with this bit in the number: refused whole. */
#define JAIL_SC_X32_BIT		0x40000000U
#elif defined(__aarch64__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define JAIL_SC_ARCH_NAME	"aarch64"
static const struct jail_sc_rule jail_sc_native[] = {
	{ 198, JAIL_SC_SOCKET }, { 199, JAIL_SC_SOCKETPAIR }, JAIL_SC_URING, JAIL_SC_KEYS(217),
};
static const struct jail_sc_rule jail_sc_compat[] = {	/* AArch32 (EABI) */
	{ 102, JAIL_SC_REFUSE }, { 281, JAIL_SC_SOCKET }, { 288, JAIL_SC_SOCKETPAIR },
	JAIL_SC_URING, JAIL_SC_KEYS(309),
};
static const struct jail_sc_abi jail_sc_abis[] = {
	{ AUDIT_ARCH_AARCH64, jail_sc_native, JAIL_SC_N(jail_sc_native) },
	{ AUDIT_ARCH_ARM, jail_sc_compat, JAIL_SC_N(jail_sc_compat) },
};
#endif

#define JAIL_SC_MAX	160
#define JAIL_SC_RET(v)	BPF_STMT(BPF_RET | BPF_K, (v))
#define JAIL_SC_EPERM	(SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))
#define JAIL_SC_NOAF	(SECCOMP_RET_ERRNO | (EAFNOSUPPORT & SECCOMP_RET_DATA))

/* The socket families a command may open (IPv4 and IPv6 are the network namespace's). */
static const uint32_t jail_sc_families[] = { AF_INET, AF_INET6, AF_NETLINK, AF_ALG };

struct jail_sc_prog {
	struct sock_filter	f[JAIL_SC_MAX];
	size_t			n;
};

static void
jail_sc_put(struct jail_sc_prog *p, struct sock_filter ins)
{
	if (p->n < JAIL_SC_MAX)
		p->f[p->n] = ins;
	p->n++;
}

/* A jump that falls through on equal and skips skip instructions otherwise. */
static void
jail_sc_unless(struct jail_sc_prog *p, uint32_t k, size_t skip)
{
	jail_sc_put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, k, 0,
	    (unsigned char)skip));
}

/* Rule blocks, with the call's number in A: each ends in a return and is skipped unless nr matches. */
static void
jail_sc_refuse(struct jail_sc_prog *p, uint32_t nr)
{
	jail_sc_unless(p, nr, 1);
	jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(JAIL_SC_EPERM));
}

/* socket() by its domain, an int: the low half of the argument. */
static void
jail_sc_socket(struct jail_sc_prog *p, uint32_t nr, bool unix_ok)
{
	size_t i, nf = JAIL_SC_N(jail_sc_families);

	jail_sc_unless(p, nr, 4 + 2 * nf);
	jail_sc_put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, args[0])));
	jail_sc_unless(p, AF_UNIX, 1);
	jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(unix_ok ? SECCOMP_RET_ALLOW : JAIL_SC_EPERM));
	for (i = 0; i < nf; i++) {
		jail_sc_unless(p, jail_sc_families[i], 1);
		jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(SECCOMP_RET_ALLOW));
	}
	jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(JAIL_SC_NOAF));
}

/* socketpair() by its type, the flags masked off. */
static void
jail_sc_socketpair(struct jail_sc_prog *p, uint32_t nr)
{
	jail_sc_unless(p, nr, 7);
	jail_sc_put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
	    offsetof(struct seccomp_data, args[1])));
	jail_sc_put(p, (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K,
	    ~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC)));
	jail_sc_unless(p, SOCK_STREAM, 1);
	jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(SECCOMP_RET_ALLOW));
	jail_sc_unless(p, SOCK_SEQPACKET, 1);
	jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(SECCOMP_RET_ALLOW));
	jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(JAIL_SC_EPERM));
}

/* One rule; unix_ok: sandbox.unix_sockets is on. */
static void
jail_sc_rule(struct jail_sc_prog *p, const struct jail_sc_rule *r, bool unix_ok)
{
	switch (r->what) {
	case JAIL_SC_REFUSE:
		jail_sc_refuse(p, r->nr);
		break;
	case JAIL_SC_REFUSE_UNIX:
		if (!unix_ok)
			jail_sc_refuse(p, r->nr);
		break;
	case JAIL_SC_SOCKET:
		jail_sc_socket(p, r->nr, unix_ok);
		break;
	case JAIL_SC_SOCKETPAIR:
		if (!unix_ok)
			jail_sc_socketpair(p, r->nr);
		break;
	}
}

/* The whole program: per ABI a block of rules; an arch not listed is killed. */
static int
jail_sc_build(struct jail_sc_prog *p, bool unix_ok)
{
	size_t a, i, start;

	p->n = 0;
	for (a = 0; a < JAIL_SC_N(jail_sc_abis); a++) {
		const struct jail_sc_abi *abi = &jail_sc_abis[a];

		jail_sc_put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)));
		start = p->n;
		jail_sc_put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, abi->arch,
		    0, 0));	/* the skip is set below, once the block's length is known */
		jail_sc_put(p, (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)));
#ifdef JAIL_SC_X32_BIT
		if (a == 0) {
			jail_sc_put(p, (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K,
			    JAIL_SC_X32_BIT, 0, 1));
			jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(JAIL_SC_EPERM));
		}
#endif
		for (i = 0; i < abi->n; i++)
			jail_sc_rule(p, &abi->rules[i], unix_ok);
		jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(SECCOMP_RET_ALLOW));
		if (p->n > JAIL_SC_MAX || p->n - start - 1 > 255)
			return -1;
		p->f[start].jf = (unsigned char)(p->n - start - 1);
	}
	jail_sc_put(p, (struct sock_filter)JAIL_SC_RET(SECCOMP_RET_KILL_PROCESS));
	return p->n > JAIL_SC_MAX ? -1 : 0;
}

/* Whether this build's architecture has a filter. */
static bool
jail_sc_known(void)
{
#ifdef JAIL_SC_ARCH_NAME
	return true;
#else
	return false;
#endif
}

static int
jail_seccomp(const struct jail *j, struct buf *err)
{
#ifdef JAIL_SC_ARCH_NAME
	struct jail_sc_prog p;
	struct sock_fprog prog;

	if (j->sc_unknown)
		return 0;
	if (jail_sc_build(&p, j->unix_sockets) == -1) {
		buf_puts(err, "the seccomp filter for Unix sockets does not fit its program");
		return -1;
	}
	prog.len = (unsigned short)p.n;
	prog.filter = p.f;
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) == -1) {
		buf_printf(err, "cannot install the seccomp filter for Unix sockets (%s)", strerror(errno));
		return -1;
	}
#else
	(void)j;
	(void)err;
#endif
	return 0;
}

static int
jail_ll_allow(int rs, const char *path, uint64_t access, struct buf *err)
{
	struct jail_ll_path pb;
	int fd = open(path, O_PATH | O_CLOEXEC);
	long r;

	if (fd == -1)
		return 0;	/* nothing there to allow */
	pb.allowed = access;
	pb.fd = fd;
	r = syscall(SYS_landlock_add_rule, rs, JAIL_LL_RULE_PATH, &pb, 0);
	close(fd);
	if (r == -1) {
		buf_printf(err, "cannot add the Landlock rule for %s (%s)", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Landlock: read and run anything; write only where the mounts let it. */
static int
jail_landlock(const struct jail *j, struct buf *err)
{
	struct jail_ll_ruleset ra = { 0, 0, 0 };
	uint64_t rx = JAIL_LL_FS_EXECUTE | JAIL_LL_FS_READ_FILE | JAIL_LL_FS_READ_DIR;
	uint64_t file_w = JAIL_LL_FS_WRITE_FILE;
	size_t size = sizeof ra.fs, i;
	int abi = j->landlock_abi, rs, r = -1;

	if (abi == 0)
		return 0;	/* TANDEM_LANDLOCK_ABI=0: the namespaces and seccomp alone */
	ra.fs = JAIL_LL_FS_ABI1;
	if (abi >= 2)
		ra.fs |= JAIL_LL_FS_REFER;
	if (abi >= 3) {
		ra.fs |= JAIL_LL_FS_TRUNCATE;
		file_w |= JAIL_LL_FS_TRUNCATE;
	}
	if (abi >= 5)
		ra.fs |= JAIL_LL_FS_IOCTL_DEV;
	if (abi >= 4 && !j->network) {
		ra.net = JAIL_LL_NET_BIND_TCP | JAIL_LL_NET_CONNECT_TCP;
		size = 2 * sizeof(uint64_t);
	}
	if (abi >= 6) {
		ra.scoped = JAIL_LL_SCOPE_ABSTRACT_UNIX | JAIL_LL_SCOPE_SIGNAL;
		size = sizeof ra;
	}
	rs = (int)syscall(SYS_landlock_create_ruleset, &ra, size, 0);
	if (rs == -1) {
		buf_printf(err, "cannot create the Landlock ruleset (%s)", strerror(errno));
		return -1;
	}
	if (jail_ll_allow(rs, "/", rx, err) == -1 || jail_ll_allow(rs, "/tmp", ra.fs, err) == -1)
		goto out;
	for (i = 0; jail_devices[i] != NULL; i++)
		if (jail_ll_allow(rs, jail_devices[i], file_w | JAIL_LL_FS_READ_FILE |
		    (abi >= 5 ? JAIL_LL_FS_IOCTL_DEV : 0), err) == -1)
			goto out;
	if (j->mode == JAIL_WORKSPACE_WRITE) {
		if (jail_ll_allow(rs, j->root, ra.fs, err) == -1)
			goto out;
		for (i = 0; j->allow_write != NULL && j->allow_write[i] != NULL; i++)
			if (jail_ll_allow(rs, j->allow_write[i], ra.fs, err) == -1)
				goto out;
	}
	if (syscall(SYS_landlock_restrict_self, rs, 0) == -1) {
		buf_printf(err, "cannot enforce the Landlock ruleset (%s)", strerror(errno));
		goto out;
	}
	r = 0;
out:
	close(rs);
	return r;
}

/* Close every descriptor from 3 on but keep (the pipe to tandem among them). */
static void
jail_close_others(int keep)
{
	if (keep > 3)
		close_range(3, (unsigned)keep - 1, 0);
	close_range((unsigned)keep + 1, ~0U, 0);
}

/* The outer child: wait for the sandbox's init, then end as it did. */
static void __attribute__((noreturn))
jail_relay(pid_t init, int status_fd)
{
	struct rlimit no_core = { 0, 0 };
	int st = 0, raw = 0;

	jail_close_others(status_fd);
	while (waitpid(init, &st, 0) == -1 && errno == EINTR)
		;
	if (read(status_fd, &raw, sizeof raw) == (ssize_t)sizeof raw)
		st = raw;
	if (WIFSIGNALED(st)) {
		setrlimit(RLIMIT_CORE, &no_core);
		signal(WTERMSIG(st), SIG_DFL);
		kill(getpid(), WTERMSIG(st));
	}
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 1);
}

/* PID 1 of the sandbox: reap everything; when the command ends, so does the namespace. */
static void __attribute__((noreturn))
jail_init(pid_t cmd, int status_fd)
{
	int st = 0;
	pid_t w;

	jail_close_others(status_fd);
	for (;;) {
		w = waitpid(-1, &st, 0);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == cmd || w == -1)
			break;
	}
	(void)!write(status_fd, &st, sizeof st);
	_exit(0);
}

int
jail_enter(void *arg, struct buf *err)
{
	const struct jail *j = arg;
	int sp[2];
	pid_t pid;

	if (jail_unshare(j->uid, j->gid, j->network, err) == -1 || jail_mounts(j, err) == -1)
		return -1;
	if (pipe2(sp, O_CLOEXEC) == -1) {
		buf_printf(err, "cannot create a pipe (%s)", strerror(errno));
		return -1;
	}
	if ((pid = fork()) == -1) {
		buf_printf(err, "cannot start the sandbox's init (%s)", strerror(errno));
		return -1;
	}
	if (pid > 0) {
		close(sp[1]);
		jail_relay(pid, sp[0]);
	}
	/* PID 1 from here on; it dies with the outer child, and everything with it. */
	close(sp[0]);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) == -1) {
		buf_printf(err, "cannot mount /proc in the sandbox (%s)", strerror(errno));
		return -1;
	}
	if (!j->network && jail_lo_up(err) == -1)
		return -1;
	if ((pid = fork()) == -1) {
		buf_printf(err, "cannot start the command in the sandbox (%s)", strerror(errno));
		return -1;
	}
	if (pid > 0)
		jail_init(pid, sp[1]);
	close(sp[1]);
	if (jail_drop_caps(err) == -1 || jail_landlock(j, err) == -1 || jail_seccomp(j, err) == -1)
		return -1;
	return 0;
}
