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
	rmdir(dir);
	UNIT_EXIT();
}
