/* One kprobe program on many functions: kprobe.multi with cookies, else one kprobe each. */
#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "core/find_refused.h"
#include "live/kprobe_multi.h"
#include "live/skel.h"

static struct xp_kmulti *alive;

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct xp_kmulti_fn *)a)->name, ((const struct xp_kmulti_fn *)b)->name);
}

int xp_kmulti_resolve(struct xp_kmulti *m, const char *filter_file, const char *module,
		      const char *pattern, char *why, size_t whylen)
{
	char line[768], name[512], mod[160], want[140];
	FILE *f = fopen(filter_file, "re");
	int cap = 0, k = 0;

	memset(m, 0, sizeof(*m));
	if (!f) {
		int err = -errno;

		snprintf(why, whylen, "reading %s: %s", filter_file, strerror(-err));
		return err;
	}
	snprintf(want, sizeof(want), "[%s]", module);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%511s %159s", name, mod) != 2 || strcmp(mod, want))
			continue;
		if (fnmatch(pattern, name, 0))
			continue;
		if (m->n == cap) {
			struct xp_kmulti_fn *nf;

			cap = cap ? cap * 2 : 256;
			if (!(nf = realloc(m->fn, sizeof(*nf) * (size_t)cap))) {
				fclose(f);
				snprintf(why, whylen, "out of memory");
				return -ENOMEM;
			}
			m->fn = nf;
		}
		memset(&m->fn[m->n], 0, sizeof(m->fn[0]));
		snprintf(m->fn[m->n].name, XP_KMULTI_NAME, "%.*s", XP_KMULTI_NAME - 1, name);
		if (strlen(name) >= XP_KMULTI_NAME)
			m->fn[m->n].err = -ENAMETOOLONG;
		m->n++;
	}
	fclose(f);
	/* a name listed twice (two static functions alike) is attached once */
	if (m->n)
		qsort(m->fn, (size_t)m->n, sizeof(m->fn[0]), by_name);
	for (int i = 0; i < m->n; i++)
		if (!k || strcmp(m->fn[i].name, m->fn[k - 1].name))
			m->fn[k++] = m->fn[i];
	m->n = k;
	for (int i = 0; i < m->n; i++)
		m->nrefused += m->fn[i].err != 0;
	return m->n;
}

int xp_kmulti_find(const struct xp_kmulti *m, const char *name)
{
	struct xp_kmulti_fn key;
	const struct xp_kmulti_fn *hit;

	if (!m->n || strlen(name) >= XP_KMULTI_NAME)
		return -1;
	snprintf(key.name, sizeof(key.name), "%s", name);
	hit = bsearch(&key, m->fn, (size_t)m->n, sizeof(key), by_name);
	return hit ? (int)(hit - m->fn) : -1;
}

void xp_kmulti_prepare(struct xp_kmulti *m, struct bpf_program *prog, bool kernel_has_multi)
{
	m->multi = kernel_has_multi;
	if (!kernel_has_multi)
		bpf_program__set_expected_attach_type(prog, (enum bpf_attach_type)0);
}

static int keep_link(struct xp_kmulti *m, struct bpf_link *l)
{
	if (m->nlinks == m->cap) {
		int cap = m->cap ? m->cap * 2 : 8;
		struct bpf_link **nl = realloc(m->links, sizeof(*nl) * (size_t)cap);

		if (!nl) {
			bpf_link__destroy(l);
			return -ENOMEM;
		}
		m->links = nl;
		m->cap = cap;
	}
	m->links[m->nlinks++] = l;
	if (!m->listed) {
		m->listed = true;
		m->next = alive;
		alive = m;
	}
	return 0;
}

/* One kprobe.multi link on the functions `idx`: the link, or NULL with errno. */
static struct bpf_link *multi_link(const struct xp_kmulti *m, struct bpf_program *prog, bool ret,
				   const int *idx, int n, const uint64_t *cookies)
{
	const char **syms = calloc((size_t)n, sizeof(*syms));
	uint64_t *ck = calloc((size_t)n, sizeof(*ck));
	struct bpf_link *l = NULL;
	int err = ENOMEM;

	if (syms && ck) {
		LIBBPF_OPTS(bpf_kprobe_multi_opts, o, .syms = syms, .cookies = (const __u64 *)ck, .cnt = (size_t)n,
			    .retprobe = ret);
		for (int i = 0; i < n; i++) {
			syms[i] = m->fn[idx[i]].name;
			ck[i] = cookies[idx[i]];
		}
		l = bpf_program__attach_kprobe_multi_opts(prog, NULL, &o);
		err = l ? 0 : errno;
	}
	free(syms);
	free(ck);
	errno = err;
	return l;
}

struct try_ctx {
	struct xp_kmulti *m;
	struct bpf_program *prog;
	bool ret;
	const uint64_t *cookies;
	int *err;
};

/* One try of a subset: attached and let go at once, or the kernel's refusal. */
static int try_multi(void *p, const int *idx, int n)
{
	struct try_ctx *t = p;
	struct bpf_link *l = multi_link(t->m, t->prog, t->ret, idx, n, t->cookies);

	if (!l)
		return -errno;
	bpf_link__destroy(l);
	return 0;
}

/* Finds which functions the kernel refuses, one by one, and why. */
static void find_refused(struct xp_kmulti *m, struct bpf_program *prog, bool ret, const int *idx,
			 int n, const uint64_t *cookies)
{
	int *err = calloc((size_t)m->n, sizeof(*err));
	struct try_ctx t = { m, prog, ret, cookies, err };

	if (!err)
		return;
	m->nrefused += xp_find_refused(idx, n, try_multi, &t, err);
	for (int i = 0; i < m->n; i++)
		if (err[i])
			m->fn[i].err = err[i];
	free(err);
}

int xp_kmulti_attach(struct xp_kmulti *m, struct bpf_program *prog, bool ret, const int *idx,
		     int nidx, const uint64_t *cookies, char *why, size_t whylen)
{
	int *use = calloc((size_t)(m->n ? m->n : 1), sizeof(*use));
	int n = 0, err = 0, first_err = 0;
	struct bpf_link *l;

	if (!use) {
		snprintf(why, whylen, "out of memory");
		return -ENOMEM;
	}
	for (int i = 0; i < (idx ? nidx : m->n); i++) {
		int f = idx ? idx[i] : i;

		if (f >= 0 && f < m->n && !m->fn[f].err)
			use[n++] = f;
	}
	if (!n) {
		free(use);
		snprintf(why, whylen, "no function to attach to");
		return -ENOENT;
	}
	if (!m->multi) {
		int ok = 0;

		for (int i = 0; i < n; i++) {
			LIBBPF_OPTS(bpf_kprobe_opts, o, .bpf_cookie = cookies[use[i]], .retprobe = ret);

			if ((err = xp_startup_stopped(why, whylen))) {
				free(use);
				return err;
			}
			if (!(l = bpf_program__attach_kprobe_opts(prog, m->fn[use[i]].name, &o))) {
				int e = -errno;

				m->fn[use[i]].err = e;
				m->nrefused++;
				if (!first_err)
					first_err = e;
				continue;
			}
			if ((err = keep_link(m, l)))
				break;
			ok++;
		}
		free(use);
		if (err) {
			snprintf(why, whylen, "out of memory");
			return err;
		}
		if (!ok && !ret) {
			snprintf(why, whylen, "attaching kprobes: every function refused (%s)",
				 strerror(-first_err));
			return first_err ? first_err : -ENOENT;
		}
		return 0;
	}
	if ((err = xp_startup_stopped(why, whylen))) {
		free(use);
		return err;
	}
	l = multi_link(m, prog, ret, use, n, cookies);
	if (!l) {
		/* one refused function fails the whole link: find which, attach the rest */
		err = -errno;
		find_refused(m, prog, ret, use, n, cookies);
		for (int i = 0, k = n; i < k; i++)
			if (m->fn[use[i]].err)
				n--;
			else
				use[i - (k - n)] = use[i];
		l = n ? multi_link(m, prog, ret, use, n, cookies) : NULL;
		if (!l && !n) {
			errno = -err;
			if (ret) {	/* no function timed: each is listed as refused */
				free(use);
				return 0;
			}
		}
	}
	free(use);
	if (!l) {
		err = -errno;
		snprintf(why, whylen, "attaching kprobe.multi%s: %s", ret ? " (return)" : "",
			 strerror(-err));
		return err;
	}
	return keep_link(m, l);
}

/* bpf_link_info as Linux 6.7 lays out a kprobe.multi link's (missed after flags). */
struct kmulti_link_info {
	__u32 type, id, prog_id, pad;
	__u64 addrs;
	__u32 count, flags;
	__u64 missed;
	__u64 rest[8];
};

uint64_t xp_kmulti_link_missed(const struct bpf_link *l)
{
	struct kmulti_link_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (!l || bpf_obj_get_info_by_fd(bpf_link__fd(l), &info, &len) ||
	    info.type != BPF_LINK_TYPE_KPROBE_MULTI || len < offsetof(struct kmulti_link_info, rest))
		return 0;
	return info.missed;
}

uint64_t xp_kmulti_missed(const struct xp_kmulti *m)
{
	uint64_t n = m->missed_gone;

	for (int i = 0; m->multi && i < m->nlinks; i++)
		n += xp_kmulti_link_missed(m->links[i]);
	return n;
}

uint64_t xp_kmulti_missed_all(void)
{
	uint64_t n = 0;

	for (const struct xp_kmulti *m = alive; m; m = m->next)
		n += xp_kmulti_missed(m);
	return n;
}

void xp_kmulti_detach(struct xp_kmulti *m)
{
	m->missed_gone = xp_kmulti_missed(m);
	for (int i = 0; i < m->nlinks; i++)
		bpf_link__destroy(m->links[i]);
	m->nlinks = 0;
}

void xp_kmulti_free(struct xp_kmulti *m)
{
	for (struct xp_kmulti **p = &alive; m->listed && *p; p = &(*p)->next)
		if (*p == m) {
			*p = m->next;
			break;
		}
	for (int i = 0; i < m->nlinks; i++)
		bpf_link__destroy(m->links[i]);
	free(m->links);
	free(m->fn);
	memset(m, 0, sizeof(*m));
}
