/* Cgroup ids to paths, and the container, pod and unit a path names. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cgroups.h"
#include "core/devices.h"

/* Whether s[0..n) is all lower-case hex. */
static bool all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

/*
 * A container id in one path component: 64 hex digits, alone (cgroupfs
 * drivers: /docker/<id>, /kubepods/burstable/pod<uid>/<id>) or as a systemd
 * scope of a runtime: docker-<id>.scope, cri-containerd-<id>.scope,
 * crio-<id>.scope, libpod-<id>.scope, nerdctl-<id>.scope. The runtimes'
 * monitors (crio-conmon-, libpod-conmon-) are not the container.
 */
static bool component_container(const char *c, size_t n, char out[65])
{
	static const char *const prefixes[] = {
		"", "docker-", "cri-containerd-", "crio-", "libpod-", "nerdctl-", "containerd-",
	};

	if (ends_with(c, n, ".scope"))
		n -= 6;
	for (size_t i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		size_t k = strlen(prefixes[i]);

		if (n == k + 64 && !memcmp(c, prefixes[i], k) && all_hex(c + k, 64)) {
			memcpy(out, c + k, 64);
			out[64] = '\0';
			return true;
		}
	}
	return false;
}

/*
 * A pod UID in one component: pod<uid> (cgroupfs driver) or
 * kubepods-<qos>-pod<uid_with_underscores>.slice (systemd driver).
 */
static bool component_pod(const char *c, size_t n, char out[37])
{
	const char *p;
	size_t k;

	if (ends_with(c, n, ".slice"))
		n -= 6;
	if (n >= 3 + 36 && !memcmp(c, "pod", 3))
		p = c + 3;
	else if (n >= 4 + 36 && !memcmp(c, "kubepods", 8) && !memcmp(c + n - 40, "-pod", 4))
		p = c + n - 36;
	else
		return false;
	k = (size_t)(c + n - p);
	if (k != 36)
		return false;
	for (size_t i = 0; i < 36; i++) {
		char ch = p[i] == '_' ? '-' : p[i];
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? ch != '-' : !isxdigit((unsigned char)ch))
			return false;
		out[i] = (char)tolower((unsigned char)ch);
	}
	out[36] = '\0';
	return true;
}

void xp_cgroup_parse(const char *path, struct xp_cgroup_info *out)
{
	const char *end = path + strlen(path);
	bool kube = strstr(path, "kubepods") != NULL;

	memset(out, 0, sizeof(*out));
	/* deepest first: the innermost container, pod and unit win */
	while (end > path) {
		const char *c = end;
		size_t n;

		while (c > path && c[-1] != '/')
			c--;
		n = (size_t)(end - c);
		if (n) {
			if (!out->container_id[0])
				component_container(c, n, out->container_id);
			if (kube && !out->pod_uid[0])
				component_pod(c, n, out->pod_uid);
			if (!out->unit[0] && (ends_with(c, n, ".service") || ends_with(c, n, ".scope")) &&
			    n < sizeof(out->unit)) {
				memcpy(out->unit, c, n);
				out->unit[n] = '\0';
			}
		}
		end = c > path ? c - 1 : path;
	}
}

/* s[0..n) copied into out (of outlen) if it fits and is a DNS name's (no '/', no '_'); else false. */
static bool name_part(const char *s, size_t n, char *out, size_t outlen)
{
	if (!n || n >= outlen || memchr(s, '/', n) || memchr(s, '_', n))
		return false;
	memcpy(out, s, n);
	out[n] = '\0';
	return true;
}

/*
 * containers/<pod>_<namespace>_<container>: none of the three names may
 * hold '_' (DNS names), so the first two '_' split them.
 */
static bool container_names(const char *n, size_t len, struct xp_k8s_names *out)
{
	const char *a = memchr(n, '_', len), *b = a ? memchr(a + 1, '_', len - (size_t)(a + 1 - n)) : NULL;

	return b && name_part(n, (size_t)(a - n), out->pod, sizeof(out->pod)) &&
	       name_part(a + 1, (size_t)(b - a - 1), out->ns, sizeof(out->ns)) &&
	       name_part(b + 1, (size_t)(n + len - b - 1), out->container, sizeof(out->container));
}

/* pods/<namespace>_<pod> */
static bool pod_names(const char *n, size_t len, struct xp_k8s_names *out)
{
	const char *a = memchr(n, '_', len);

	return a && name_part(n, (size_t)(a - n), out->ns, sizeof(out->ns)) &&
	       name_part(a + 1, (size_t)(n + len - a - 1), out->pod, sizeof(out->pod));
}

/* The first entry of dir whose name ends in tail and whose stem before it `names` reads. */
static bool by_tail(const char *dir, const char *tail, bool (*names)(const char *, size_t, struct xp_k8s_names *),
		    struct xp_k8s_names *out)
{
	size_t k = strlen(tail);
	struct dirent *e;
	bool found = false;
	DIR *d = opendir(dir);

	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		size_t len = strlen(e->d_name);

		found = ends_with(e->d_name, len, tail) && names(e->d_name, len - k, out);
	}
	closedir(d);
	return found;
}

bool xp_k8s_names(const char *logs, const struct xp_cgroup_info *ci, struct xp_k8s_names *out)
{
	char dir[1024], tail[80];

	memset(out, 0, sizeof(*out));
	if (!logs)
		return false;
	snprintf(dir, sizeof(dir), "%s/containers", logs);
	snprintf(tail, sizeof(tail), "-%s.log", ci->container_id);
	if (ci->container_id[0] && by_tail(dir, tail, container_names, out))
		return true;
	memset(out, 0, sizeof(*out));
	snprintf(dir, sizeof(dir), "%s/pods", logs);
	snprintf(tail, sizeof(tail), "_%s", ci->pod_uid);
	return ci->pod_uid[0] && by_tail(dir, tail, pod_names, out);
}

/* ---- the id cache ---- */

struct cg_entry {
	uint64_t id;		/* 0: free slot */
	char *path;		/* NULL: looked for and not found */
	char *text;		/* NULL: not rendered yet */
	uint64_t retry_ns;	/* 0: text complete; else when to render it again */
};

struct xp_cgroup_cache {
	char root[4096];
	struct cg_entry *slots;
	size_t cap, n;
	uint64_t walks;
};

static void cache_clear(struct xp_cgroup_cache *c)
{
	for (size_t i = 0; i < c->cap; i++) {
		free(c->slots[i].path);
		free(c->slots[i].text);
		c->slots[i] = (struct cg_entry){ 0 };
	}
	c->n = 0;
}

static struct cg_entry *cache_slot(struct xp_cgroup_cache *c, uint64_t id)
{
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ull) >> 20) & (c->cap - 1);

	while (c->slots[i].id && c->slots[i].id != id)
		i = (i + 1) & (c->cap - 1);
	return &c->slots[i];
}

/* Keeps id -> path (path NULL: unknown); a full cache starts over. */
static void cache_put(struct xp_cgroup_cache *c, uint64_t id, const char *path)
{
	struct cg_entry *e;

	if (!id)
		return;
	if (c->n >= XP_CGROUP_CACHE_MAX)
		cache_clear(c);
	e = cache_slot(c, id);
	if (e->id) {
		if (path && !e->path)
			e->path = strdup(path);
		return;
	}
	e->id = id;
	e->path = path ? strdup(path) : NULL;
	c->n++;
}

char *xp_cgroup2_mount(void)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char dev[256], dir[4096], type[64];
	char *found = NULL;

	if (!f)
		return NULL;
	while (!found && fscanf(f, "%255s %4095s %63s %*[^\n]", dev, dir, type) == 3)
		if (!strcmp(type, "cgroup2"))
			found = strdup(dir);
	fclose(f);
	return found;
}

struct xp_cgroup_cache *xp_cgroup_cache_new(const char *root)
{
	struct xp_cgroup_cache *c = calloc(1, sizeof(*c));
	char *found = root ? NULL : xp_cgroup2_mount();

	if (!c)
		return free(found), NULL;
	/* twice the most entries kept: the probe stays short */
	c->cap = 2 * XP_CGROUP_CACHE_MAX;
	if (!(c->slots = calloc(c->cap, sizeof(*c->slots)))) {
		free(c);
		free(found);
		return NULL;
	}
	snprintf(c->root, sizeof(c->root), "%s", root ? root : found ? found : "/sys/fs/cgroup");
	free(found);
	/* "/sys/fs/cgroup/" and "/sys/fs/cgroup" alike: paths below it start with its end */
	for (size_t n = strlen(c->root); n > 1 && c->root[n - 1] == '/'; n--)
		c->root[n - 1] = '\0';
	return c;
}

/* Every directory below `abs` (rel: its path below the root), depth first. */
static void walk(struct xp_cgroup_cache *c, char *abs, size_t alen, size_t cap, const char *rel0,
		 int depth)
{
	DIR *d;
	struct dirent *de;

	if (depth > 64 || !(d = opendir(abs)))
		return;
	while ((de = readdir(d))) {
		size_t nl = strlen(de->d_name);

		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (alen + 1 + nl + 1 > cap)
			continue;
		abs[alen] = '/';
		memcpy(abs + alen + 1, de->d_name, nl + 1);
		/* on cgroup2 the directory's inode number is its cgroup id */
		cache_put(c, de->d_ino, rel0);
		walk(c, abs, alen + 1 + nl, cap, rel0, depth + 1);
		abs[alen] = '\0';
	}
	closedir(d);
}

const char *xp_cgroup_cache_path(struct xp_cgroup_cache *c, uint64_t id)
{
	struct cg_entry *e = cache_slot(c, id);
	char abs[8192];
	size_t rlen = strlen(c->root);
	struct stat st;

	if (e->id == id)
		return e->path;
	c->walks++;
	/* the root itself: "/" */
	if (!stat(c->root, &st))
		cache_put(c, st.st_ino, "/");
	memcpy(abs, c->root, rlen + 1);
	/* paths below the root start at its end: "/a/b" */
	walk(c, abs, rlen, sizeof(abs), abs + rlen, 0);
	e = cache_slot(c, id);
	if (e->id != id)
		cache_put(c, id, NULL);
	e = cache_slot(c, id);
	return e->id == id ? e->path : NULL;
}

uint64_t xp_cgroup_cache_walks(const struct xp_cgroup_cache *c)
{
	return c->walks;
}

void xp_cgroup_cache_free(struct xp_cgroup_cache *c)
{
	if (!c)
		return;
	cache_clear(c);
	free(c->slots);
	free(c);
}

void xp_pid_cgroups_init(struct xp_pid_cgroups *c)
{
	memset(c, 0, sizeof(*c));
	c->root = xp_cgroup2_mount();
}

void xp_pid_cgroups_free(struct xp_pid_cgroups *c)
{
	free(c->root);
	c->root = NULL;
}

uint64_t xp_pid_cgroup(struct xp_pid_cgroups *c, uint32_t pid, uint64_t known)
{
	unsigned slot = (pid * 2654435761u) % XP_PID_CGROUPS;
	char path[64], line[768], dir[1024];
	uint64_t id = known;
	FILE *f;

	if (c->slot[slot].pid == pid && pid && !known)
		return c->slot[slot].id;
	snprintf(path, sizeof(path), "/proc/%u/cgroup", pid);
	if (!known && c->root && pid && (f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "0::", 3)) {
				line[strcspn(line, "\n")] = '\0';
				snprintf(dir, sizeof(dir), "%s%s", c->root, line + 3);
				if (xp_cgroup_id(dir, &id))
					id = 0;
				break;
			}
		fclose(f);
	}
	c->slot[slot].pid = pid;
	c->slot[slot].id = id;
	return id;
}

const char *xp_cgroup_cache_text(struct xp_cgroup_cache *c, uint64_t id, uint64_t now_ns,
				 xp_cgroup_render_fn render, void *ctx)
{
	const char *path;
	struct cg_entry *e;
	char buf[1024] = "";
	bool complete;

	if (!id)
		return NULL;
	path = xp_cgroup_cache_path(c, id);	/* makes the entry */
	e = cache_slot(c, id);
	if (e->id != id)
		return NULL;
	if (e->text && (!e->retry_ns || now_ns < e->retry_ns))
		return e->text;
	/* a cgroup gone before it was first seen: one text for all such */
	complete = render(path ? path : "(unknown)", ctx, buf, sizeof(buf));
	free(e->text);
	e->text = strdup(buf);
	e->retry_ns = complete ? 0 : now_ns + XP_CGROUP_NAMES_RETRY_NS;
	return e->text;
}
