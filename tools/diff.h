/*
 * diff: line diffs for the write tools' previews and the TUI's diff view.
 *
 * The engine is Myers' O(ND) algorithm in its linear-space form (middle
 * snake, divide and conquer).  Before it runs, the common leading and
 * trailing lines are cut off and lines that occur in only one of the two
 * texts are set aside as changed, so a small edit in a 100 MB file costs
 * a pass over the bytes and a diff of the few lines around the change.
 * The result is minimal unless the edit distance is huge; then a cost
 * bound splits the problem at the furthest point reached and the diff is
 * still correct, only perhaps not the shortest.  More than DIFF_MAX_LINES
 * differing lines are refused with a clear error.
 *
 * A line is its bytes up to and including '\n'; the last line may lack
 * one, and then it differs from the same text with a newline (as in
 * diff -u, which marks it "\ No newline at end of file").
 *
 * Ownership: diff_compute returns a struct diff the caller frees with
 * diff_free; its line texts point into storage the diff owns, so the
 * inputs can be freed at once.  Everything else appends to a caller's buf.
 */
#ifndef TANDEM_DIFF_H
#define TANDEM_DIFF_H

#include <stdbool.h>
#include <stddef.h>

struct buf;

/* Lines of context around each change, as diff -u. */
#define DIFF_CONTEXT	3
/* Refuse to diff more changed-region lines than this (both sides). */
#define DIFF_MAX_LINES	2000000

enum diff_kind {
	DIFF_CTX,	/* in both texts */
	DIFF_DEL,	/* only in the old text */
	DIFF_ADD	/* only in the new text */
};

struct diff_line {
	enum diff_kind	 kind;
	long		 old_no;	/* 1-based line in the old text; 0 for DIFF_ADD */
	long		 new_no;	/* 1-based line in the new text; 0 for DIFF_DEL */
	const char	*text;		/* the bytes without '\n' ('\r' kept); owned by the diff */
	size_t		 len;
	bool		 eol;		/* false: the text's last line, without a newline */
	/*
	 * A DEL paired with an ADD (the i-th deleted and i-th added line of one
	 * change): the bytes [span_start, span_end) of text are the part that
	 * differs from its partner, cut on UTF-8 character boundaries.
	 */
	bool		 has_span;
	size_t		 span_start, span_end;
};

struct diff_hunk {
	long	 old_start, old_count;	/* as in "@@ -old_start,old_count ..." */
	long	 new_start, new_count;
	size_t	 first, count;		/* its lines: lines[first .. first + count) */
};

struct diff {
	struct diff_hunk	*hunks;
	size_t			 nhunks;
	struct diff_line	*lines;
	size_t			 nlines;
	long			 added, removed;	/* ADD and DEL lines in all */
	char			*store;			/* the line texts */
};

/*
 * The diff from a to b with DIFF_CONTEXT lines of context.  Equal texts
 * give a diff with no hunks.  NULL with the reason in err when the change
 * is too large (more than DIFF_MAX_LINES lines).  The caller frees it.
 */
struct diff	*diff_compute(const char *a, size_t alen, const char *b, size_t blen,
		    struct buf *err);
void		 diff_free(struct diff *);

/*
 * Append d as unified diff text under "--- old_label" and "+++ new_label"
 * headers (nothing at all when d has no hunks).  The labels are written as
 * they are: "a/src/x.c", "b/src/x.c", "/dev/null".  0, or -1 when out's
 * limit is reached.
 */
int		 diff_format(const struct diff *d, const char *old_label,
		    const char *new_label, struct buf *out);

/*
 * The unified diff from a to b as "--- a/path" / "+++ b/path" appended to
 * out.  0, or -1 with the reason in err (too large, or out's limit).
 */
int		 diff_unified(const char *a, size_t alen, const char *b, size_t blen,
		    const char *path, struct buf *out, struct buf *err);

/*
 * Helpers for the write tools' error messages, which show the model the
 * lines really in a file.  Lines are numbered from 0 here; the texts shown
 * to the model number them from 1.
 */

/* The number of lines in text (a last line without '\n' counts). */
long		 diff_count_lines(const char *text, size_t len);

/*
 * The first line of the window of text most like want (compared line by
 * line, whitespace at either end ignored), or -1 when nothing in text
 * looks like it.  Bounded in cost for very large texts.
 */
long		 diff_nearest(const char *text, size_t len, const char *want,
		    size_t wantlen);

/*
 * Where want occurs in text when all whitespace is ignored: want's first
 * line may match the end of a line and its last line the start of one.
 * Returns the number of such places (stops counting at 100) and sets
 * *first_line to the first; 0 when there is none.
 */
long		 diff_find_loose(const char *text, size_t len, const char *want,
		    size_t wantlen, long *first_line);

/*
 * Append lines [first, first + n) of text (clipped to the text), each as
 * "<1-based number>\t<line>\n"; very long lines are shortened.
 */
int		 diff_excerpt(struct buf *out, const char *text, size_t len,
		    long first, long n);

#endif
