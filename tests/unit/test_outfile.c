/* Output files that never clobber (src/core/outfile.h), in a scratch directory. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/outfile.h"
#include "unit.h"

static char dir[64];

static char *path(const char *name)
{
	static char buf[4][128];
	static int k;

	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", dir, name);
	return buf[k];
}

static void put(const char *p, const char *s)
{
	FILE *f = fopen(p, "w");

	fputs(s, f);
	fclose(f);
}

static const char *get(const char *p)
{
	static char buf[64];
	FILE *f = fopen(p, "r");
	size_t n;

	if (!f)
		return "(none)";
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* Entries in dir other than . and .. */
static int entries(void)
{
	char cmd[160];
	FILE *p;
	int n = -1;

	snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", dir);
	p = popen(cmd, "r");
	if (p && fscanf(p, "%d", &n) != 1)
		n = -1;
	if (p)
		pclose(p);
	return n;
}

static void test_abort_keeps_the_target(void)
{
	struct xp_outfile o;
	char why[256];

	put(path("t"), "old");
	CHECK(!xp_out_open(&o, path("t"), false, why, sizeof(why)));
	fputs("half a new file", o.f);
	fflush(o.f);
	CHECK_STR(get(path("t")), "old");	/* nothing under the final name while writing */
	xp_out_abort(&o);
	CHECK_STR(get(path("t")), "old");
	CHECK(entries() == 1);			/* the temporary file is gone */
	unlink(path("t"));
}

static void test_commit_replaces(void)
{
	struct xp_outfile o;
	char why[256];

	put(path("t"), "old");
	CHECK(!xp_out_open(&o, path("t"), false, why, sizeof(why)));
	fputs("new", o.f);
	CHECK(!xp_out_commit(&o, why, sizeof(why)));
	CHECK_STR(get(path("t")), "new");
	CHECK(entries() == 1);
	unlink(path("t"));
}

static void test_symlink_refused(void)
{
	struct xp_outfile o;
	char why[256] = "";
	struct stat st;

	put(path("real"), "keep");
	CHECK(!symlink(path("real"), path("link")));
	CHECK(xp_out_open(&o, path("link"), false, why, sizeof(why)) == -EEXIST);
	CHECK(strstr(why, "symbolic link") && strstr(why, "--force"));
	CHECK_STR(get(path("real")), "keep");
	/* --force: written through the link, the link itself stays */
	CHECK(!xp_out_open(&o, path("link"), true, why, sizeof(why)));
	fputs("through", o.f);
	CHECK(!xp_out_commit(&o, why, sizeof(why)));
	CHECK_STR(get(path("real")), "through");
	CHECK(!lstat(path("link"), &st) && S_ISLNK(st.st_mode));
	CHECK(entries() == 2);
	unlink(path("link"));
	unlink(path("real"));
	/* --force on a dangling link (relative, as ln -s makes them): its target is created */
	CHECK(!symlink("new", path("dangling")));
	CHECK(xp_out_open(&o, path("dangling"), false, why, sizeof(why)) == -EEXIST);
	CHECK(!xp_out_open(&o, path("dangling"), true, why, sizeof(why)));
	fputs("created", o.f);
	CHECK(!xp_out_commit(&o, why, sizeof(why)));
	CHECK_STR(get(path("new")), "created");
	CHECK(!lstat(path("dangling"), &st) && S_ISLNK(st.st_mode));
	CHECK(entries() == 2);
	unlink(path("dangling"));
	unlink(path("new"));
}

static void test_modes(void)
{
	struct xp_outfile o;
	char why[256];
	struct stat st;
	mode_t old = umask(022);

	CHECK(!xp_out_open(&o, path("m"), false, why, sizeof(why)));
	CHECK(!xp_out_commit(&o, why, sizeof(why)));
	CHECK(!stat(path("m"), &st) && (st.st_mode & 0777) == 0644);
	unlink(path("m"));
	umask(077);
	CHECK(!xp_out_open(&o, path("m"), false, why, sizeof(why)));
	CHECK(!xp_out_commit(&o, why, sizeof(why)));
	CHECK(!stat(path("m"), &st) && (st.st_mode & 0777) == 0600);
	unlink(path("m"));
	umask(old);
}

static void test_devices_and_stdout(void)
{
	struct xp_outfile o;
	char why[256];
	struct stat st;

	/* a FIFO is written in place, never replaced by a regular file */
	CHECK(!mkfifo(path("fifo"), 0600));
	int rd = open(path("fifo"), O_RDONLY | O_NONBLOCK);

	CHECK(!xp_out_open(&o, path("fifo"), false, why, sizeof(why)));
	CHECK(o.tmp[0] == '\0');
	fputs("x", o.f);
	CHECK(!xp_out_commit(&o, why, sizeof(why)));
	xp_out_abort(&o);
	CHECK(!stat(path("fifo"), &st) && S_ISFIFO(st.st_mode));
	close(rd);
	unlink(path("fifo"));
	CHECK(!xp_out_open(&o, "-", false, why, sizeof(why)));
	CHECK(o.is_stdout && o.f == stdout && o.fd == 1);
	/* a directory is not an output */
	CHECK(xp_out_open(&o, dir, false, why, sizeof(why)) < 0);
	CHECK(entries() == 0);
}

/* /dev/null and its like: written in place, never renamed over or unlinked. */
static void test_char_device(void)
{
	struct xp_outfile o;
	char why[256];
	struct stat before, after;

	if (stat("/dev/null", &before) || !S_ISCHR(before.st_mode)) {
		printf("SKIP test_char_device: /dev/null is not a character device here\n");
		return;
	}
	CHECK(!xp_out_open(&o, "/dev/null", false, why, sizeof(why)));
	CHECK(o.tmp[0] == '\0');		/* no temporary file beside it in /dev */
	CHECK(o.f != NULL && o.fd > 2);
	fputs("discarded", o.f);
	CHECK(!xp_out_commit(&o, why, sizeof(why)));
	CHECK(!stat("/dev/null", &after) && S_ISCHR(after.st_mode) && after.st_rdev == before.st_rdev &&
	      after.st_ino == before.st_ino);
	/* an abort on a device drops nothing and removes nothing */
	CHECK(!xp_out_open(&o, "/dev/null", false, why, sizeof(why)));
	xp_out_abort(&o);
	CHECK(!stat("/dev/null", &after) && S_ISCHR(after.st_mode) && after.st_ino == before.st_ino);
}

/* "-" whose write failed earlier: commit says so even when errno has moved on since. */
static void test_stdout_error_is_reported(void)
{
	struct xp_outfile o;
	char why[256] = "";
	int saved = dup(STDOUT_FILENO), full = open("/dev/full", O_WRONLY);

	if (saved < 0 || full < 0) {
		printf("SKIP test_stdout_error_is_reported: no /dev/full\n");
		if (saved >= 0)
			close(saved);
		return;
	}
	fflush(stdout);
	dup2(full, STDOUT_FILENO);
	CHECK(!xp_out_open(&o, "-", false, why, sizeof(why)));
	fputs("lost", o.f);
	fflush(o.f);		/* fails: the stream's error flag is set */
	errno = 0;		/* what any later successful call may leave */
	CHECK(xp_out_commit(&o, why, sizeof(why)) < 0);
	CHECK(why[0] != '\0');
	clearerr(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	close(full);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "/tmp/xp-outfile-XXXXXX");
	if (!mkdtemp(dir)) {
		printf("SKIP test_outfile: no scratch directory: %s\n", strerror(errno));
		return 0;
	}
	RUN(test_abort_keeps_the_target);
	RUN(test_commit_replaces);
	RUN(test_symlink_refused);
	RUN(test_modes);
	RUN(test_devices_and_stdout);
	RUN(test_char_device);
	RUN(test_stdout_error_is_reported);
	rmdir(dir);
	UNIT_EXIT();
}
