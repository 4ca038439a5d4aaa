/*
 * patch: the one reader of patch text.  apply_patch applies what it reads
 * and the permission check (agent/perm.c) checks the names it reads, so the
 * two can never disagree about which files a patch touches.
 *
 * Formats: git diffs ("diff --git" with its extended header lines: quoted
 * names with C escapes, a/ b/ prefixes, new/deleted file mode, old/new mode,
 * rename from/to, copy from/to, similarity index, index; header-only
 * entries), plain unified diffs ("--- f.orig" / "+++ f", a/ b/ stripped
 * only when both sides have them), and the Codex envelope ("*** Begin
 * Patch" ... "*** End Patch" with Add File, Update File and its "@@"
 * context lines, Move to, Delete File, End of File).  Several sections may
 * name one file.
 *
 * Strict: a numbered hunk holds exactly the lines its header counts; a
 * line inside a hunk that starts with neither ' ', '-', '+' nor '\' is
 * read as a context line that lost its space only when the counts then
 * come out exactly (else refused); a hunk that ends early or runs long, an empty hunk, a binary patch, or
 * names that disagree between a section's header lines are refused with
 * one sentence naming the patch line.  Nothing is read from the disk.
 *
 * Ownership: the plan owns its names and hunks; hunk lines point into the
 * patch text, which must outlive the plan.
 */
#ifndef TANDEM_PATCH_H
#define TANDEM_PATCH_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

enum patch_op {
	PATCH_MODIFY,		/* old_name == new_name */
	PATCH_ADD,		/* new_name only */
	PATCH_DELETE,		/* old_name only */
	PATCH_RENAME,		/* old_name is removed, new_name written */
	PATCH_COPY		/* old_name is read, new_name written */
};

/* A git mode's file type bits. */
#define PATCH_MODE_TYPE		0170000u
#define PATCH_MODE_LINK		0120000u
#define PATCH_MODE_FILE		0100000u

struct patch_line {
	char		 kind;		/* ' ', '-' or '+' */
	const char	*text;		/* into the patch text, without its line end */
	size_t		 len;
	bool		 cr;		/* the patch line ended with "\r\n" */
	bool		 noeol;		/* "\ No newline at end of file" follows */
};

struct patch_hunk {
	long		 old_start, old_count, new_start, new_count;
	bool		 ranged;	/* the header had line numbers */
	bool		 at_eof;	/* Codex "*** End of File": the hunk ends the file */
	char		**anchors;	/* Codex "@@ text" lines, in order */
	size_t		 nanchors;
	struct patch_line *lines;
	size_t		 n, cap;
	size_t		 lineno;	/* the patch line of its header (1-based) */
	/*
	 * Context lines that had lost their leading space ("}" for " }"), read
	 * as context because the header's counts come out exactly that way.
	 */
	size_t		 recovered;
};

struct patch_file {
	enum patch_op	 op;
	char		*old_name;	/* NULL for PATCH_ADD */
	char		*new_name;	/* NULL for PATCH_DELETE */
	/*
	 * A plain diff whose "---" and "+++" names differ ("--- f.orig",
	 * "+++ f"): new_name is the file patched, alt_name the other name,
	 * patched instead when new_name does not exist.
	 */
	char		*alt_name;
	unsigned	 old_mode, new_mode;	/* git modes (0100644 ...); 0: not given */
	/*
	 * The mode at the end of an "index a..b 100644" line.  It tells a link
	 * from a file, but never sets permission bits: only old/new mode and
	 * new file mode lines change a mode, as with git apply and GNU patch.
	 */
	unsigned	 index_mode;
	bool		 git;		/* a "diff --git" section */
	bool		 codex;		/* a Codex envelope section */
	bool		 eol_exact;	/* some line of it carries "\r": endings are the patch's */
	struct patch_hunk *hunks;
	size_t		 nh, cap;
	size_t		 lineno;	/* the patch line where the section starts */
};

struct patch_plan {
	struct patch_file *files;
	size_t		 nf, cap;
	bool		 codex;		/* the whole patch was a Codex envelope */
};

/*
 * Read text (len bytes) into plan.  0, or -1 with one sentence in err and
 * the plan released.  The plan's lines point into text.
 */
int	patch_parse(const char *text, size_t len, struct patch_plan *plan, struct buf *err);
void	patch_plan_release(struct patch_plan *plan);

/* Lines a hunk takes from the old text (context and removed). */
long	patch_hunk_old_lines(const struct patch_hunk *h);
/* Added and removed lines of a section. */
void	patch_file_counts(const struct patch_file *f, long *added, long *removed);
/* The operation's name: "modify", "add", "delete", "rename", "copy". */
const char *patch_op_name(enum patch_op op);

#endif
