#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outfile.h"

/*
 * A link whose target does not exist yet (--force on a dangling link): the
 * new file is created where the link points, one level, relative to the
 * link's directory as the kernel would resolve it. 0, or -1 with errno.
 */
static int dangling_target(const char *link, char out[PATH_MAX])
{
	char text[PATH_MAX];
	const char *slash = strrchr(link, '/');
	ssize_t n = readlink(link, text, sizeof(text) - 1);

	if (n < 0)
		return -1;
	text[n] = '\0';
	if (text[0] == '/' || !slash)
		n = snprintf(out, PATH_MAX, "%s", text);
	else
		n = snprintf(out, PATH_MAX, "%.*s%s", (int)(slash - link + 1), link, text);
	if (n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

int xp_out_open(struct xp_outfile *o, const char *path, bool follow_symlink, char *why, size_t len)
{
	char resolved[PATH_MAX];
	const char *target = path, *slash;
	struct stat st;
	int err;

	memset(o, 0, sizeof(*o));
	o->path = path;
	o->fd = -1;
	if (!strcmp(path, "-")) {
		o->is_stdout = true;
		o->fd = STDOUT_FILENO;
		o->f = stdout;
		return 0;
	}
	if (!lstat(path, &st) && S_ISLNK(st.st_mode)) {
		if (!follow_symlink) {
			snprintf(why, len, "%s is a symbolic link; not replacing it (--force writes through it)", path);
			return -EEXIST;
		}
		if (!realpath(path, resolved) && (errno != ENOENT || dangling_target(path, resolved))) {
			err = -errno;
			snprintf(why, len, "%s: %s", path, strerror(-err));
			return err;
		}
		target = resolved;
	}
	if (!stat(target, &st) && (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode))) {
		/*
		 * A device or a pipe has no "beside": written in place, never
		 * created. Opened without blocking: a FIFO no one reads would
		 * hold open() forever, past -d and every signal; it is refused
		 * (ENXIO) instead, and writes block again once it is open.
		 */
		o->fd = open(target, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
		if (o->fd < 0 && errno == ENXIO && S_ISFIFO(st.st_mode)) {
			snprintf(why, len, "cannot write to %s: a FIFO that no process is reading "
				 "(start its reader first)", path);
			return -ENXIO;
		}
		if (o->fd < 0)
			goto fail;
		if (fcntl(o->fd, F_SETFL, fcntl(o->fd, F_GETFL) & ~O_NONBLOCK)) {
			err = -errno;
			close(o->fd);
			o->fd = -1;
			snprintf(why, len, "%s: %s", path, strerror(-err));
			return err;
		}
	} else if (!stat(target, &st) && !S_ISREG(st.st_mode)) {
		snprintf(why, len, "%s is not a regular file", path);
		return -EINVAL;
	} else {
		slash = strrchr(target, '/');
		if (snprintf(o->tmp, sizeof(o->tmp), "%.*s.%s.XXXXXX", slash ? (int)(slash - target + 1) : 0,
			     target, slash ? slash + 1 : target) >= (int)sizeof(o->tmp)) {
			snprintf(why, len, "%s: name too long", path);
			return -ENAMETOOLONG;
		}
		o->fd = mkostemp(o->tmp, O_CLOEXEC);
		if (o->fd < 0) {
			o->tmp[0] = '\0';
			goto fail;
		}
		/* mkostemp makes 0600; an output is as readable as any new file */
		{
			mode_t um = umask(0);

			umask(um);
			fchmod(o->fd, 0644 & ~um);
		}
	}
	if (!(o->f = fdopen(o->fd, "w"))) {
		err = -errno;
		xp_out_abort(o);
		snprintf(why, len, "%s: %s", path, strerror(-err));
		return err;
	}
	/* the rename goes to what a followed link names, the link stays */
	snprintf(o->dest, sizeof(o->dest), "%s", target);
	return 0;
fail:
	err = -errno;
	snprintf(why, len, "cannot create %s: %s", path, strerror(-err));
	return err;
}

int xp_out_commit(struct xp_outfile *o, char *why, size_t len)
{
	int err = 0;

	if (o->is_stdout) {
		/*
		 * ferror stays set from a write that failed earlier, when errno
		 * may long have changed: the error must not read as success.
		 */
		errno = 0;
		if (fflush(stdout) || ferror(stdout))
			err = errno ? -errno : -EIO;
	} else {
		errno = 0;
		if (fflush(o->f) || ferror(o->f))
			err = errno ? -errno : -EIO;
		if (!err && o->tmp[0] && fsync(o->fd))
			err = -errno;
		if (fclose(o->f) && !err)
			err = -errno;
		o->f = NULL;
		o->fd = -1;
		if (!err && o->tmp[0] && rename(o->tmp, o->dest))
			err = -errno;
		if (err && o->tmp[0])
			unlink(o->tmp);
		o->tmp[0] = '\0';
	}
	if (err)
		snprintf(why, len, "writing %s: %s", o->path, strerror(-err));
	return err;
}

void xp_out_abort(struct xp_outfile *o)
{
	if (o->is_stdout) {
		fflush(stdout);
		return;
	}
	if (o->f)
		fclose(o->f);
	else if (o->fd >= 0)
		close(o->fd);
	o->f = NULL;
	o->fd = -1;
	if (o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = '\0';
}
