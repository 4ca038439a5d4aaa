/*
 * jail: the OS sandbox for the model's commands (run_bash).  Not to be
 * confused with tools/sandbox.c, which confines the file tools' paths.
 *
 * It owns the sandbox settings (the "sandbox" group of the settings files,
 * --sandbox), the check of what the kernel can do (once, at start), the
 * set-up run in the command's child before its exec (proc's pre-exec
 * hook), the auto-allow decision the gate asks for, and the note a
 * refused command's result gets.
 *
 * Modes: off; read-only (read anywhere, write only a private /tmp);
 * workspace-write (also the workspace and sandbox.allow_write, while
 * .git, .tandem, .mcp.json and the memory files stay read-only).  Inside:
 * a new user namespace (the user's uid and gid mapped to themselves, no
 * capabilities left by the exec), a mount namespace (every mount read-only,
 * the writable places bound back writable, a private tmpfs on /tmp, the
 * host's /run/user/UID and sandbox.deny_read hidden), a network namespace
 * with only lo (unless sandbox.network), a PID namespace whose init ends
 * everything the command started when the command ends, no_new_privs, and
 * Landlock (ABI 3 at least) as a second layer.  SSH_AUTH_SOCK, the DBus
 * addresses and XDG_RUNTIME_DIR are removed; TMPDIR is /tmp.
 *
 * struct jail_config is embedded in struct config and owns its strings;
 * struct jail is the caller's to free with jail_free.
 */
#ifndef TANDEM_JAIL_H
#define TANDEM_JAIL_H

#include <stdbool.h>

#include <cjson/cJSON.h>

#include "rules/perm.h"

struct buf;
struct event_bus;

/* The lowest Landlock ABI the sandbox runs on (truncate() is covered from 3 on). */
#define JAIL_LANDLOCK_MIN	3

enum jail_mode { JAIL_OFF = 0, JAIL_READ_ONLY, JAIL_WORKSPACE_WRITE };

/* One settings layer's sandbox group: the user's, the project's, the flags. */
struct jail_layer {
	bool		 has_mode, has_network, has_auto_allow, has_unix_sockets;
	bool		 has_project_loosens;
	enum jail_mode	 mode;
	bool		 network, auto_allow, unix_sockets;
	bool		 project_loosens;	/* the user's: a trusted project may loosen */
	char		**allow_write;	/* NULL-ended, owned; NULL: none */
	char		**deny_read;
	char		*source;	/* the file, or "flag" */
};

enum { JAIL_LAYER_USER, JAIL_LAYER_PROJECT, JAIL_LAYER_FLAG, JAIL_NLAYERS };

struct jail_config {
	struct jail_layer layers[JAIL_NLAYERS];
};

/*
 * Apply a settings file's "sandbox" object (v) to cfg's layer: bad values
 * append "PATH: ..." lines to warnings and are ignored.
 */
void	jail_config_apply(struct jail_config *, const cJSON *v, const char *path, bool project,
	    struct buf *warnings);
/* A flag: key "mode" (--sandbox MODE) or another key of the group; -1 with a sentence. */
int	jail_config_flag(struct jail_config *, const char *key, const char *value, struct buf *err);
/* The effective sandbox settings and their sources, for `tandem config`. */
void	jail_config_print(const struct jail_config *, bool trusted, struct buf *out);
void	jail_config_release(struct jail_config *);

const char *jail_mode_name(enum jail_mode);

struct jail;

/*
 * The sandbox for one workspace root, from the settings (the project's
 * loosening ones only when trusted), and what the kernel can do: a mode is
 * set but the kernel cannot sandbox (or TANDEM_SANDBOX_SIMULATE says so:
 * "nolandlock", "nouserns", "landlock=N") leaves the jail unusable, with
 * the reason in jail_unusable.  Never NULL.
 */
struct jail	*jail_new(const struct jail_config *, bool trusted, const char *root, const char *home);
void		 jail_free(struct jail *);
/* Tell bus what the sandbox is (a "sandbox" event) and, the first time only, why it cannot run. */
void		 jail_announce(struct jail *, struct event_bus *);
enum jail_mode	 jail_mode(const struct jail *);
/* Whether commands run sandboxed (a mode is set and the kernel can). */
bool		 jail_usable(const struct jail *);
/* Why a mode is set but cannot be used, or NULL. */
const char	*jail_unusable(const struct jail *);
int		 jail_landlock_abi(const struct jail *);

/* Whether this run_bash input runs in the sandbox (it may ask for "sandbox": false). */
bool		 jail_applies(const struct jail *, const cJSON *input);
/*
 * The gate's sandbox auto-allow: true when tool is run_bash, it will run
 * sandboxed with the network off, sandbox.auto_allow is on, mode is ask or
 * accept-edits, and no ask rule of rules covers it (deny rules were applied
 * before).  why gets the sentence for the approval record.
 */
bool		 jail_auto_allow(const struct jail *, const struct perm_rules *rules,
		    enum perm_mode mode, const char *tool, const cJSON *input, struct buf *why);
/* For an approval request: what running this call means for the sandbox, appended to reason. */
void		 jail_explain(const struct jail *, const char *tool, const cJSON *input,
		    struct buf *reason);

/*
 * Once, at start: no program tandem starts (sandboxed or not) may hold
 * CAP_SYS_PTRACE, so a root command cannot read tandem's memory.  -1 with a
 * sentence when it should have been dropped and could not.
 */
int		 jail_drop_ptrace(struct buf *err);
/* The pre-exec hook (proc_hook_fn) with the jail as arg, and the environment it needs. */
int		 jail_enter(void *jail, struct buf *err);
const char *const *jail_env_unset(void);
const char *const *jail_env_set(void);
/*
 * A sandboxed command ended: if its output (the model's text) shows the
 * sandbox refused something (a read-only file system, no network), append
 * a note saying so and how to run it outside.
 */
void		 jail_note(const struct jail *, int status, struct buf *text);

#endif
