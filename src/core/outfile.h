/*
 * Output files that never clobber: what `record -o` and `export -o` write
 * goes to a new file beside the target and is renamed over it only once it
 * is complete, so a failed or killed run leaves what was there untouched
 * and never a half file under the final name. "-" is standard output; a
 * character device or FIFO (/dev/null, a pipe) is written in place.
 */
#ifndef XP_CORE_OUTFILE_H
#define XP_CORE_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct xp_outfile {
	const char *path;	/* the target, as given */
	char dest[4096];	/* what is replaced: the target, or what its link names */
	char tmp[4096];		/* the file being written beside it; "" when in place */
	int fd;
	FILE *f;		/* over fd, for stdio writers */
	bool is_stdout;
};

/*
 * Opens `path` for writing. An existing symlink at `path` is refused unless
 * `follow_symlink` (then its target is what gets replaced). The new file is
 * created 0644 & ~umask. 0, or -errno with a one-line reason in `why`.
 */
int xp_out_open(struct xp_outfile *o, const char *path, bool follow_symlink, char *why, size_t len);
/* Flushes, syncs and renames into place. 0, or -errno with `why`; the temporary file is gone. */
int xp_out_commit(struct xp_outfile *o, char *why, size_t len);
/* Drops what was written: the temporary file is removed, the target untouched. */
void xp_out_abort(struct xp_outfile *o);

#endif
