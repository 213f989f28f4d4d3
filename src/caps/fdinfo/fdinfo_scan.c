/* Walks a /proc tree for DRM and accel descriptors and reads their fdinfo. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps/fdinfo/fdinfo_scan.h"
#include "core/cgroups.h"

const char *xp_fdi_proc_root(void)
{
	const char *r = getenv(XP_FDI_PROC_ENV);

	return r && *r ? r : "/proc";
}

/* A small file under the root, terminated; its length, or -errno. */
static ssize_t read_small(int rootfd, const char *path, char *buf, size_t len)
{
	int fd = openat(rootfd, path, O_RDONLY | O_CLOEXEC);
	ssize_t n, got = 0;

	if (fd < 0)
		return -errno;
	while ((size_t)got < len - 1 && (n = read(fd, buf + got, len - 1 - (size_t)got)) > 0)
		got += n;
	n = n < 0 && !got ? -errno : got;
	close(fd);
	buf[got > 0 ? got : 0] = '\0';
	return n;
}

static bool drm_node(const char *target)
{
	return !strncmp(target, "/dev/dri/", 9) || !strncmp(target, "/dev/accel/", 11);
}

/* What a process with DRM descriptors is: its name, its cgroup. */
struct proc {
	uint32_t pid;
	bool read;			/* the fields below are filled */
	bool skip;			/* filtered out */
	char comm[16];
	char cgroup[256];
	uint64_t cgroup_id;
};

static void proc_read(int rootfd, const struct xp_fdi_scan *sc, struct proc *p)
{
	char path[64], buf[4096], *l, *nl;
	struct stat st;

	p->read = true;
	snprintf(path, sizeof(path), "%u/comm", p->pid);
	if (read_small(rootfd, path, buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(p->comm, sizeof(p->comm), "%.15s", buf);
	}
	snprintf(path, sizeof(path), "%u/cgroup", p->pid);
	if (read_small(rootfd, path, buf, sizeof(buf)) > 0) {
		for (l = buf; l && *l; l = nl ? nl + 1 : NULL) {
			nl = strchr(l, '\n');
			if (nl)
				*nl = '\0';
			if (!strncmp(l, "0::", 3)) {
				snprintf(p->cgroup, sizeof(p->cgroup), "%.255s", l + 3);
				break;
			}
		}
	}
	if (sc->cgroup2 && p->cgroup[0]) {
		char full[4352];

		snprintf(full, sizeof(full), "%s%s", sc->cgroup2, p->cgroup);
		if (!stat(full, &st))
			p->cgroup_id = (uint64_t)st.st_ino;
	}
	p->skip = (sc->comm && strcmp(sc->comm, p->comm)) || (sc->cgroup_id && sc->cgroup_id != p->cgroup_id);
}

static void client_proc(struct xp_fdi_client *c, const struct proc *p)
{
	memcpy(c->comm, p->comm, sizeof(c->comm));
	memcpy(c->cgroup, p->cgroup, sizeof(c->cgroup));
	c->cgroup_id = p->cgroup_id;
}

/* One DRM descriptor `fd` of process p: 0, or -EACCES when its fdinfo could not be read. */
static int one_fd(struct xp_fdi_stats *s, int rootfd, const struct xp_fdi_scan *sc, struct proc *p,
		  const char *fd, struct xp_fdinfo *fi)
{
	char path[96], text[16384];
	struct xp_fdi_client *c;
	ssize_t n;
	bool first;

	snprintf(path, sizeof(path), "%u/fdinfo/%s", p->pid, fd);
	if ((n = read_small(rootfd, path, text, sizeof(text))) < 0)
		return n == -EACCES || n == -EPERM ? -EACCES : 0;	/* else closed meanwhile */
	if (!p->read)
		proc_read(rootfd, sc, p);
	if (p->skip)
		return 0;
	if (!xp_fdinfo_parse(text, (size_t)n, fi)) {
		s->nostats++;
		return 0;
	}
	if ((c = xp_fdi_add(s, p->pid, fi, &first)) && first)
		client_proc(c, p);
	return 0;
}

/* One directory entry as getdents64 writes them. */
struct lx_dirent64 {
	uint64_t ino;
	int64_t off;
	unsigned short reclen;
	unsigned char type;
	char name[];
};

/*
 * A process's descriptors: 0, or -EACCES when they could not be read. Read
 * with getdents64 on the directory's descriptor (no DIR, whose set-up costs
 * more system calls than the few entries of a sleeping process), one
 * readlink per descriptor.
 */
static int one_proc(struct xp_fdi_stats *s, int rootfd, const struct xp_fdi_scan *sc, uint32_t pid,
		    struct xp_fdinfo *fi)
{
	char path[32], target[64], buf[8192];
	struct proc p = { .pid = pid };
	uint64_t fds = s->fds;
	int dfd, err = 0;
	long n;

	snprintf(path, sizeof(path), "%u/fd", pid);
	if ((dfd = openat(rootfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return errno == EACCES || errno == EPERM ? -EACCES : 0;	/* else exited meanwhile */
	while ((n = syscall(SYS_getdents64, dfd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct lx_dirent64 *de = (struct lx_dirent64 *)(buf + off);
			ssize_t len;

			off += de->reclen;
			if (de->name[0] == '.')
				continue;
			len = readlinkat(dfd, de->name, target, sizeof(target) - 1);
			if (len <= 0)
				continue;
			target[len] = '\0';
			if (drm_node(target) && one_fd(s, rootfd, sc, &p, de->name, fi))
				err = -EACCES;
		}
	}
	close(dfd);
	if (s->fds > fds)
		s->procs++;
	return err;
}

int xp_fdi_sample(struct xp_fdi_stats *s, const struct xp_fdi_scan *sc, uint64_t now)
{
	struct xp_fdinfo *fi = malloc(sizeof(*fi));	/* large */
	int rootfd = open(sc->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct dirent *de;
	DIR *d;

	if (rootfd < 0 || !fi || !(d = fdopendir(dup(rootfd)))) {
		int err = rootfd < 0 || fi ? -errno : -ENOMEM;

		if (rootfd >= 0)
			close(rootfd);
		free(fi);
		return err ? err : -EIO;
	}
	xp_fdi_begin(s, now);
	while ((de = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(de->d_name, &end, 10);

		if (*end || !pid || pid > 0x7fffffff || (sc->pid && pid != sc->pid))
			continue;
		if (one_proc(s, rootfd, sc, (uint32_t)pid, fi)) {
			if (!s->unreadable++)
				s->unreadable_pid = pid;
		}
	}
	closedir(d);
	close(rootfd);
	free(fi);
	xp_fdi_end(s);
	return 0;
}

int xp_fdinfo_state_new(const struct xp_filters *f, struct xp_fdinfo_state **out)
{
	struct xp_fdinfo_state *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	xp_fdi_init(&s->st);
	s->cg2 = xp_cgroup2_mount();
	s->sc = (struct xp_fdi_scan){
		.root = xp_fdi_proc_root(), .cgroup2 = s->cg2, .pid = f->pid, .comm = f->comm,
		.cgroup_id = f->cgroup_id,
	};
	*out = s;
	return 0;
}

void xp_fdinfo_state_free(struct xp_fdinfo_state *s)
{
	if (!s)
		return;
	xp_fdi_free(&s->st);
	free(s->cg2);
	free(s);
}

int xp_fdinfo_tick(struct xp_fdinfo_state *s, bool periodic, uint64_t (*clock_ns)(void))
{
	uint64_t t0 = clock_ns(), t1;
	int err;

	if (periodic && t0 < s->next_ns)
		return 0;
	err = xp_fdi_sample(&s->st, &s->sc, t0);
	t1 = clock_ns();
	s->last_cost_ns = t1 - t0;
	s->next_ns = t0 + (uint64_t)((double)s->last_cost_ns / XP_FDI_MAX_SHARE);
	return err;
}
