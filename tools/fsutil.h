/*
 * fsutil: careful file reading and writing for the tools that change code.
 *
 * Reads are bounded (a size cap with a clear error).  Writes are atomic: a
 * temporary file in the same directory, written in full, fsynced, renamed
 * over the target, then the directory fsynced; an existing file keeps its
 * mode (and owner when possible), a new one gets 0644 minus the umask.
 * The target is reached by sandbox_walk (sandbox.h) beneath the workspace
 * root and written through the directory descriptor of that walk
 * (openat, renameat, fsync of the directory): a symbolic link whose target
 * is outside the root is never written through (one inside the root is
 * followed to its target), and no name is looked up twice.  The functions
 * taking a root and an absolute path walk it themselves; the *_place and
 * *_at functions take the walk's result, so a tool that walked once (and
 * had the reached path checked against the deny rules) uses just that.
 *
 * Snapshots keep the content of files before the tools change them
 * (DESIGN.md §7): content-addressed by SHA-256, one file per content at
 * <snap_dir>/<64 hex digits>, mode 0600, in a directory created 0700.
 *
 * Preview and apply: a write tool's preview and its run each read the file
 * themselves, so a change made in between (by the user, an editor, another
 * tool) is seen by the run, which works on the new content or fails.  On
 * top of that, fsutil_write_atomic can check, right before the rename, that
 * the file still holds what the tool read.  The agent can also call
 * fsutil_hash_file at preview time and again before the run to tell the
 * user that the file changed after they saw the diff.
 *
 * Ownership: every char * result is the caller's to free.  Errors return
 * -1 (or FSUTIL_MISSING where documented) and append one sentence to err.
 */
#ifndef TANDEM_FSUTIL_H
#define TANDEM_FSUTIL_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "sandbox.h"
#include "sha256.h"

struct buf;

/* The largest file the write tools read, change and snapshot. */
#define FSUTIL_MAX_FILE		((size_t)128 << 20)

/* Returned when the file does not exist (err says so too). */
#define FSUTIL_MISSING		1

/*
 * Read the regular file at abs (symbolic links followed) into *data
 * (NUL-terminated; the caller frees) and *len.  Refuses directories,
 * devices and FIFOs, and files larger than cap.  0, FSUTIL_MISSING, or -1.
 */
int	fsutil_read_file(const char *abs, size_t cap, char **data, size_t *len,
	    struct buf *err);

/*
 * Read the regular file a walk reached (FSUTIL_MISSING when it does not
 * exist), through its directory descriptor; as fsutil_read_file.
 */
int	fsutil_read_at(const struct sandbox_at *, size_t cap, char **data, size_t *len,
	    struct buf *err);

/*
 * Does data look binary?  A NUL byte in the first 8 KB, or more than one
 * byte in ten there that is invalid UTF-8 or an unusual control character.
 */
bool	fsutil_is_binary(const char *data, size_t len);

/* SHA-256 of the file's content: 0, FSUTIL_MISSING (hex ""), or -1. */
int	fsutil_hash_file(const char *abs, char hex[SHA256_HEX_LEN + 1]);

/*
 * Write data to abs, a path inside root as sandbox_resolve gives it, as
 * described above.  expect says what the file must hold right before the
 * rename: NULL no check; "" the file must not exist; a hex digest its
 * content.  The parent directory must exist.  0 or -1.
 */
int	fsutil_write_atomic(const char *root, const char *abs, const void *data,
	    size_t len, const char *expect, struct buf *err);

/* fsutil_write_atomic for the name a walk reached (its parent must exist). */
int	fsutil_write_place(const struct sandbox_at *, const void *data, size_t len,
	    const char *expect, struct buf *err);

/* Remove the regular file abs (inside root) after the same checks.  0 or -1. */
int	fsutil_remove(const char *root, const char *abs, const char *expect,
	    struct buf *err);
int	fsutil_remove_place(const struct sandbox_at *, const char *expect, struct buf *err);

/*
 * Create the missing directories of dir, an absolute path inside root
 * (mode 0777 minus the umask).  Refuses to leave the root.  0 or -1.
 */
int	fsutil_mkdirs(const char *root, const char *dir, struct buf *err);

/*
 * Store data in snap_dir (created 0700 with its parents if missing) under
 * its SHA-256, which goes to hex.  Written atomically, once: content
 * already stored is not written again.  0 or -1.
 */
int	fsutil_snapshot(const char *snap_dir, const void *data, size_t len,
	    char hex[SHA256_HEX_LEN + 1], struct buf *err);

/*
 * Load the snapshot named hex (checked to be 64 hex digits, and the
 * content checked against it).  0 or -1; *data is the caller's.
 */
int	fsutil_snapshot_load(const char *snap_dir, const char *hex, char **data,
	    size_t *len, struct buf *err);

/*
 * One file changed by a write tool, in one step: snapshot old (when
 * snap_dir is not NULL and old is not NULL), then write new atomically
 * (new NULL: remove the file), checking the file still holds old (old
 * NULL: the file must not exist).  On success appends
 * {"path":rel,"before":sha|null,"after":sha|null} to the cJSON array
 * files (may be NULL).  0 or -1.
 */
int	fsutil_replace(const char *root, const char *snap_dir, const char *abs,
	    const char *rel, const char *old, size_t oldlen, const char *new,
	    size_t newlen, cJSON *files, struct buf *err);

/*
 * Symbolic links and modes (apply_patch), beneath the roots of a sandbox
 * (the workspace and its extra roots), through the descriptors of the walk:
 * fsutil_symlink_in creates (or replaces) the symbolic link path -> target
 * and fsutil_unlink_link_in removes the symbolic link path, both by name in
 * the directory the walk reached (the link itself is never followed);
 * fsutil_chmod_in sets mode & 0777 on the regular file path through a
 * descriptor of it.  0 or -1.
 */
int	fsutil_symlink_in(const struct sandbox *, const char *path, const char *target,
	    struct buf *err);
int	fsutil_unlink_link_in(const struct sandbox *, const char *path, struct buf *err);
int	fsutil_chmod_in(const struct sandbox *, const char *path, unsigned mode, struct buf *err);
/*
 * After path was removed: remove its directory, then its parents, while
 * they are empty and not a root (as git apply does).  How many went.
 */
int	fsutil_rmdir_empty_in(const struct sandbox *, const char *path);
/* fsutil_mkdirs beneath the roots of a sandbox. */
int	fsutil_mkdirs_in(const struct sandbox *, const char *dir, struct buf *err);
/*
 * Write (or remove) the file path beneath the roots of a sandbox, a
 * workspace path or one in an extra root, through one walk: missing parent
 * directories are created for a write.  expect as for fsutil_write_atomic.
 * 0 or -1.
 */
int	fsutil_write_in(const struct sandbox *, const char *path, const void *data, size_t len,
	    const char *expect, struct buf *err);
int	fsutil_remove_in(const struct sandbox *, const char *path, const char *expect,
	    struct buf *err);
/* The same with the workspace root alone. */
int	fsutil_symlink(const char *root, const char *abs, const char *target,
	    struct buf *err);
int	fsutil_unlink_link(const char *root, const char *abs, struct buf *err);
int	fsutil_chmod(const char *root, const char *abs, unsigned mode, struct buf *err);
int	fsutil_rmdir_empty(const char *root, const char *abs);
/* fsutil_replace for the name a walk reached; the record names at->rel. */
int	fsutil_replace_at(const struct sandbox_at *, const char *snap_dir, const char *old,
	    size_t oldlen, const char *new, size_t newlen, cJSON *files, struct buf *err);

#endif
