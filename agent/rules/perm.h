/*
 * perm: permission rules and the decision for one tool call.
 *
 * A rule is "tool" (any call of that tool) or "tool(pattern)".  tandem's
 * own tool names cover that one tool: an edit_file rule says nothing about
 * write_file.  Claude Code's names mean what they mean there: Edit covers
 * edit_file, write_file and apply_patch; Read covers read_file, grep, glob
 * and list_dir; Write, MultiEdit, Grep, Glob, LS and Bash cover the one tool
 * toolnames.h maps them to.  Claude Code tools tandem lacks (WebFetch,
 * mcp__..., ...) are accepted and cover nothing.
 *
 * run_bash patterns are globs over the command: '*' matches anything, "\*"
 * is a literal star.  A pattern ending in " *" also matches the words before
 * it alone ("rm *" matches "rm"); Claude Code's "cmd:*" means "cmd *".  Runs
 * of blanks count as one space.  A compound command is split into parts
 * outside quotes: at &&, ||, ;, |, &, newlines, subshells, $(...), `...`,
 * <(...), and the string given to bash -c, sh -c or eval; here-document
 * bodies and comments are not parts.  Allow rules must match EVERY part (a
 * rule without '*' may instead match the whole command exactly); deny and
 * ask rules match if ANY part matches, also with the program named by a path
 * or quoted ("/bin/rm", "\rm") and past leading VAR=value assignments and
 * wrappers such as sudo, env or xargs.  A part that redirects output into a
 * file is matched by an allow rule only if the rule itself holds '>'.  A
 * command nested too deeply to split is never allowed by a pattern, and is
 * denied when the tool has deny rules that could not be checked.
 *
 * File tools (read_file, edit_file, write_file, list_dir, glob, grep) take
 * path globs: '*' and '?' within one name, "**" across directories, [...]
 * classes, '\' escapes.  Anchors as Claude Code has them: "//abs" is an
 * absolute path, "~/path" one below $HOME, "/path" and "./path" start at the
 * workspace root (tandem's current directory); a pattern without '/'
 * matches any one name along the path ("*.c", ".env"); any other pattern
 * with '/' is anchored at the root.  A
 * pattern that matches a directory covers everything below it.  Paths are
 * taken relative to the root, and both the path as written and its real path
 * (symbolic links resolved) are checked: deny and ask match if either does,
 * allow only if both do.  For apply_patch every file the patch names counts.
 *
 * The decision (perm_check), in order: a deny rule denies (in every mode,
 * yolo included); plan mode refuses writes and commands (not the web tools,
 * which look things up and go on to ask as in ask mode); an ask rule asks
 * (except in yolo, which allows everything not denied); an allow rule
 * allows; then the mode decides: read-only tools are allowed; writes ask in
 * ask mode and are allowed in accept-edits and yolo; commands (high-impact)
 * ask in ask and accept-edits and are allowed in yolo.
 *
 * struct perm_rules owns copies of its rules; perm_rules_free frees them.
 */
#ifndef TANDEM_PERM_H
#define TANDEM_PERM_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "agent.h"
#include "tool.h"

struct buf;
struct perm_rules;

enum perm_verdict { PERM_VERDICT_ALLOW, PERM_VERDICT_ASK, PERM_VERDICT_DENY };
enum perm_list { PERM_LIST_ALLOW, PERM_LIST_ASK, PERM_LIST_DENY };

struct perm_rules *perm_rules_new(void);
/*
 * A number that changes whenever any rules change (one added, a root set,
 * rules freed): what holds a copy of tandem taken earlier (the tools'
 * fork server) knows its copy of the rules is the rules of now.
 */
unsigned long	 perm_rules_generation(void);
void		 perm_rules_free(struct perm_rules *);
/* A deep copy (rules and root). */
struct perm_rules *perm_rules_dup(const struct perm_rules *);
/*
 * The workspace root (a real path) that relative path patterns are taken
 * against; copied.  Without one, paths are compared as written.
 */
void		 perm_rules_set_root(struct perm_rules *, const char *root);
/*
 * Parse "tool" or "tool(pattern)" and add it to list; 0, or -1 with a
 * sentence in err for a bad rule (unknown tool, empty pattern, ...).
 * A rule already in the list is not added twice.
 */
int		 perm_rules_add(struct perm_rules *, enum perm_list, const char *rule,
		    struct buf *err);
/*
 * Does rule read differently from how tandem read it before it took Claude
 * Code's path anchors ("Read(/etc/x)" was absolute and is now at the project
 * root; "Read(./.env)" matched at any depth and is now at the root only)?
 * When it does, one sentence saying how, and what to write instead, is
 * appended to note.  A rule that does not parse is not reported here.
 */
bool		 perm_rule_changed(const char *rule, struct buf *note);
/* Add every rule of src to dst. */
void		 perm_rules_merge(struct perm_rules *dst, const struct perm_rules *src);
size_t		 perm_rules_count(const struct perm_rules *, enum perm_list);
/* The i-th rule of list as it was written; NULL past the end. */
const char	*perm_rules_get(const struct perm_rules *, enum perm_list, size_t i);
/* "allow", "ask", "deny". */
const char	*perm_list_name(enum perm_list);

/*
 * The verdict for one call of tool_name (alias or tandem name) of class cls
 * with input (may be NULL).  A sentence naming the rule or the mode that
 * decided is appended to why (may be NULL): "denied by rule run_bash(rm *)",
 * "plan mode: no changes are made", ...
 */
enum perm_verdict perm_check(const struct perm_rules *, enum perm_mode, const char *tool_name,
		    enum tool_class cls, const cJSON *input, struct buf *why);

/*
 * Could a deny rule of rules catch this call although perm_check cannot
 * show that it does or does not?  True for a command whose program is known
 * only once bash expands it (or one that could not be split with
 * certainty) when a deny rule names its tool.  perm_check asks about such
 * a call; nothing but the person may then allow it: not the sandbox, not
 * the session's "always" answers, not a hook.
 */
bool		 perm_deny_unsure(const struct perm_rules *, const char *tool_name,
		    const cJSON *input);

/*
 * Could the command (run_bash's input) touch a file that a deny rule of
 * the file tools (a Read or Edit rule) covers, as far as its text shows?
 * True when one of its words or redirection targets names such a file
 * (after '=' too, through a glob it matches, from a folder a cd, pushd
 * or -C DIR moves to, or through /proc/.../cwd, root or fd), when a
 * program that reads a whole folder by itself (grep -r, rg, tar c, cp -r:
 * shparse_tree_reads) reads one that a Read deny rule's pattern reaches
 * (one matching a path at, above or below it, by name: the folder is not
 * walked), when a word holds a variable or a substitution, when it moves to a folder known only
 * then (cd -, cd "$d"), or when a part's program is named by an
 * expansion; false when there is no such deny rule.  The sandbox does not
 * hide those files, so such a command is not auto-allowed.  A sentence
 * saying so is appended to why (may be NULL) when true.
 */
bool		 perm_command_touches_denied(const struct perm_rules *, const cJSON *input,
		    struct buf *why);

/*
 * The rule an "always" answer should remember for this call: for run_bash
 * "run_bash(<exact command>)" when the command is one short line, else
 * "run_bash(<first two words> *)"; for file tools "<tool>(<path>)" with
 * glob characters escaped and the path anchored ("/name" for a name at the
 * root, "//abs" for an absolute path); for apply_patch its one file, or the directory
 * all its files share followed by a slash and "**".  NULL when no rule narrower than
 * the whole tool fits (an unknown tool, a patch naming no file or files with
 * nothing in common).  The caller frees.
 */
char		*perm_rule_for(const char *tool_name, const cJSON *input);

/*
 * Why perm_check asks about this call, as one sentence appended to reason:
 * the ask rule that matched ("rule run_bash(git push *) asks for
 * approval"), the parts of a command or the files no allow rule covers
 * ("the part `make test` matches no allow rule"), or the mode ("mode ask:
 * every edit asks").  Returns what an "always" answer should remember: the
 * narrowest rules that allow exactly what was not covered (for run_bash one
 * rule per such part, "run_bash(make test)"; otherwise perm_rule_for's rule,
 * for a file named from above the root its absolute path, or for a tool
 * that takes no command or path the tool's name); NULL-terminated;
 * perm_strv_free frees it.  Each rule read back as a deny rule catches the
 * call.  Empty for a command or file no rule can be written for (never the
 * whole of run_bash or of a file tool, which would allow every command or
 * every edit).
 */
char		**perm_explain(const struct perm_rules *, enum perm_mode, const char *tool_name,
		    enum tool_class cls, const cJSON *input, struct buf *reason);
void		 perm_strv_free(char **);
/*
 * The deny rules a "never" answer adds to the session: those of
 * perm_explain that catch the call, else a looser pattern of the whole
 * command (each run of blanks, control characters and backslashes a
 * '*'), else the tool's name.  Read back as deny rules they always deny
 * this call.  NULL-terminated, never empty; perm_strv_free frees it.
 */
char		**perm_never_rules(const struct perm_rules *, enum perm_mode, const char *tool_name,
		    enum tool_class cls, const cJSON *input);
/* The root relative path patterns are taken against, or NULL. */
const char	*perm_rules_root(const struct perm_rules *);
/* Add src's rules of one list to dst's (an "always" list joined with the allow rules). */
void		 perm_rules_merge_list(struct perm_rules *dst, const struct perm_rules *src,
		    enum perm_list);
/*
 * Does a deny rule cover path (relative to the workspace root, or
 * absolute) for access?  Asked as if read_file (SANDBOX_READ) or edit_file
 * (SANDBOX_EDIT) touched it: the tools ask it (through struct
 * sandbox_policy) about the path their descriptor walk really reached and
 * about every file a search or listing visits.
 */
bool		 perm_path_denied(const struct perm_rules *, enum sandbox_access,
		    const char *path);

#endif
