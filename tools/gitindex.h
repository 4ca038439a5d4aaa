/*
 * gitindex: a reader of git's index file (the staging area), to know
 * which paths git tracks without running git, since a git child in a
 * repository the model may have written reads that repository's
 * configuration (core.fsmonitor, aliases, hooks) and runs what it names.
 *
 * Read: the header ("DIRC", versions 2, 3 and 4, the entry count), every
 * entry's mode, flags (stage, the extended flag of version 3 and later
 * with skip-worktree and intent-to-add) and path (NUL-padded in versions 2
 * and 3, prefix-compressed in version 4), sparse-index directory entries
 * (mode 040000, a path ending in "/"), the extensions' frame (each one
 * skipped by its size; a "link" extension names the shared index of a
 * split index, whose entries are read too) and the trailing checksum,
 * checked (SHA-1, or SHA-256 for a repository of that object format; all
 * zeros when index.skipHash is set, as git allows).  Stat data and object
 * ids are not kept.
 *
 * Bounded for a hostile file: at most GITINDEX_MAX_BYTES are read (a
 * regular file only, never blocking on a FIFO), the entry count must fit
 * the file, decoded names are limited to four times the file's size (and
 * GITINDEX_MAX_NAMES) in all and PATH_MAX each, and every length is
 * checked against the bytes left.
 * An entry whose path git itself would refuse (empty, "." or ".."
 * components, a ".git" component in any case, a leading "/") is left out.
 *
 * Paths are relative to the repository's top, "/"-separated.  The caller
 * owns the struct gitindex and frees it with gitindex_free().
 */
#ifndef TANDEM_GITINDEX_H
#define TANDEM_GITINDEX_H

#include <stdbool.h>
#include <stddef.h>

struct buf;
struct gitindex;

#define GITINDEX_MAX_BYTES	((size_t)256 << 20)
#define GITINDEX_MAX_NAMES	((size_t)256 << 20)

/*
 * Parse an index held in data[0..len); hashlen is 20 (SHA-1) or 32
 * (SHA-256).  Returns the index, or NULL with one sentence in err.
 * *shared, when not NULL, gets the hex id of the shared index a "link"
 * extension names (the caller frees it), or NULL.
 */
struct gitindex *gitindex_parse(const void *data, size_t len, size_t hashlen, char **shared,
		    struct buf *err);

/*
 * Read gitdir/index (and the shared index of a split index beside it);
 * hashlen as above.  NULL with a sentence in err when there is none or it
 * cannot be used (then err says why; a missing index leaves err empty).
 */
struct gitindex *gitindex_read(const char *gitdir, size_t hashlen, struct buf *err);
void		 gitindex_free(struct gitindex *);

/* How many paths it holds (entries of one path at several stages count once). */
size_t		 gitindex_count(const struct gitindex *);
/* The i-th path in byte order (0 <= i < count). */
const char	*gitindex_path(const struct gitindex *, size_t i);
/* Does the index track the file (or link, or submodule) path[0..len)? */
bool		 gitindex_has(const struct gitindex *, const char *path, size_t len);
/* Does it track anything below the directory path[0..len) ("" is the top)? */
bool		 gitindex_has_below(const struct gitindex *, const char *path, size_t len);

#endif
