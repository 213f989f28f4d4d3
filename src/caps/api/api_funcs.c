/* `api`'s functions and libraries: the built-in table, --lib, and finding the files. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "caps/api/api_funcs.h"

static const char *const ze_fns[] = {
	"zeCommandQueueExecuteCommandLists", "zeCommandListAppendLaunchKernel", "zeMemAllocHost",
	"zeMemAllocDevice", "zeMemAllocShared", "zeMemFree", "zeFenceHostSynchronize",
	"zeEventHostSynchronize", "zeCommandQueueSynchronize", NULL,
};
static const char *const cu_fns[] = {
	"cuLaunchKernel", "cuLaunchKernelEx", "cuMemAlloc_v2", "cuMemAllocManaged", "cuMemFree_v2",
	"cuMemcpyHtoD_v2", "cuMemcpyDtoH_v2", "cuMemcpyHtoDAsync_v2", "cuMemcpyDtoHAsync_v2",
	"cuStreamSynchronize", "cuCtxSynchronize", "cuEventSynchronize", NULL,
};
static const char *const cl_fns[] = {
	"clEnqueueNDRangeKernel", "clEnqueueReadBuffer", "clEnqueueWriteBuffer", "clFinish",
	"clWaitForEvents", NULL,
};
static const char *const vk_fns[] = {
	"vkQueueSubmit", "vkQueueSubmit2", "vkQueuePresentKHR", "vkWaitForFences", "vkAllocateMemory", NULL,
};
static const char *const hip_fns[] = {
	"hipLaunchKernel", "hipModuleLaunchKernel", "hipExtLaunchKernel", "hipMemcpy", "hipMemcpyAsync",
	"hipMemcpyHtoD", "hipMemcpyDtoH", "hipMemcpyDtoD", "hipMemcpyHtoDAsync", "hipMemcpyDtoHAsync",
	"hipMemcpyWithStream", "hipMalloc", "hipMallocManaged", "hipMallocAsync", "hipHostMalloc",
	"hipExtMallocWithFlags", "hipFree", "hipDeviceSynchronize", "hipStreamSynchronize",
	"hipEventSynchronize", NULL,
};
static const char *const hsa_fns[] = {
	"hsa_init", "hsa_shut_down", "hsa_queue_create", "hsa_queue_destroy", "hsa_signal_wait_scacquire",
	"hsa_signal_wait_relaxed", "hsa_amd_memory_pool_allocate", "hsa_amd_memory_pool_free",
	"hsa_amd_memory_async_copy", "hsa_memory_allocate", "hsa_executable_load_agent_code_object",
	"hsa_executable_freeze", NULL,
};
/* hsa_signal_wait_*: the signal's value when the wait ended, not a status */
static const char *const hsa_values[] = { "hsa_signal_wait_scacquire", "hsa_signal_wait_relaxed", NULL };
static const char *const drm_fns[] = { "drmIoctl", "drmCommandWriteRead", NULL };
static const char *const amdgpu_fns[] = { "amdgpu_cs_submit_raw2", NULL };

const struct xp_api_builtin xp_api_builtins[] = {
	{ "libze_loader.so.1", "Level Zero", XP_API_RET_NONZERO, ze_fns, NULL },
	{ "libcuda.so.1", "CUDA", XP_API_RET_NONZERO, cu_fns, NULL },
	{ "libOpenCL.so.1", "OpenCL", XP_API_RET_NONZERO, cl_fns, NULL },
	{ "libvulkan.so.1", "Vulkan", XP_API_RET_NONZERO, vk_fns, NULL },
	{ "libamdhip64.so.5", "HIP", XP_API_RET_NONZERO, hip_fns, NULL },
	{ "libhsa-runtime64.so.1", "HSA", XP_API_RET_NONZERO, hsa_fns, hsa_values },
	{ "libdrm.so.2", "libdrm", XP_API_RET_NEGATIVE, drm_fns, NULL },
	{ "libdrm_amdgpu.so.1", "libdrm_amdgpu", XP_API_RET_NEGATIVE, amdgpu_fns, NULL },
};
const size_t xp_api_nbuiltins = sizeof(xp_api_builtins) / sizeof(xp_api_builtins[0]);

void xp_api_plan_note(struct xp_api_plan *p, const char *fmt, ...)
{
	va_list ap;

	if (p->nnotes >= XP_API_NOTES)
		return;
	va_start(ap, fmt);
	vsnprintf(p->note[p->nnotes++], XP_API_NOTE_LEN, fmt, ap);
	va_end(ap);
}

static const struct xp_api_builtin *builtin_of(const char *soname)
{
	for (size_t i = 0; i < xp_api_nbuiltins; i++)
		if (!strcmp(xp_api_builtins[i].soname, soname))
			return &xp_api_builtins[i];
	return NULL;
}

static struct xp_api_lib *lib_of(struct xp_api_plan *p, const char *soname)
{
	for (int i = 0; i < p->nlib; i++)
		if (!strcmp(p->lib[i].soname, soname))
			return &p->lib[i];
	return NULL;
}

/* A built-in library's function that returns a value, not a status. */
static bool returns_value(const char *soname, const char *name)
{
	const struct xp_api_builtin *b = builtin_of(soname);

	for (int i = 0; b && b->values && b->values[i]; i++)
		if (!strcmp(b->values[i], name))
			return true;
	return false;
}

/* A function of `l`, unless it has it; the functions of a library stay together. */
static int add_fn(struct xp_api_plan *p, struct xp_api_lib *l, const char *name)
{
	int li = (int)(l - p->lib), at = l->first_fn + l->nfn;

	for (int i = l->first_fn; i < at; i++)
		if (!strcmp(p->fn[i].name, name))
			return 0;
	if (p->nfn >= XP_API_MAX_FN)
		return -ENOSPC;
	/* make room: later libraries' functions move up by one */
	memmove(&p->fn[at + 1], &p->fn[at], (size_t)(p->nfn - at) * sizeof(p->fn[0]));
	memmove(&p->fn_lib[at + 1], &p->fn_lib[at], (size_t)(p->nfn - at) * sizeof(p->fn_lib[0]));
	for (int i = li + 1; i < p->nlib; i++)
		p->lib[i].first_fn++;
	memset(&p->fn[at], 0, sizeof(p->fn[at]));
	snprintf(p->fn[at].name, sizeof(p->fn[at].name), "%s", name);
	snprintf(p->fn[at].lib, sizeof(p->fn[at].lib), "%s", l->soname);
	p->fn[at].rule = returns_value(l->soname, name) ? XP_API_RET_VALUE : l->rule;
	p->fn_lib[at] = li;
	p->nfn++;
	l->nfn++;
	return 0;
}

static struct xp_api_lib *add_lib(struct xp_api_plan *p, const char *soname)
{
	const struct xp_api_builtin *b = builtin_of(soname);
	struct xp_api_lib *l = lib_of(p, soname);

	if (l)
		return l;
	if (p->nlib >= XP_API_MAX_LIBS)
		return NULL;
	l = &p->lib[p->nlib++];
	memset(l, 0, sizeof(*l));
	snprintf(l->soname, sizeof(l->soname), "%s", soname);
	l->rule = b ? b->rule : XP_API_RET_NONZERO;
	l->first_fn = p->nfn;
	for (int i = 0; b && b->funcs[i]; i++)
		add_fn(p, l, b->funcs[i]);
	return l;
}

void xp_api_plan_init(struct xp_api_plan *p)
{
	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < xp_api_nbuiltins; i++)
		add_lib(p, xp_api_builtins[i].soname);
}

static bool symbol_name(const char *s, size_t n)
{
	if (!n || n >= XP_API_NAME || isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isalnum((unsigned char)s[i]) && s[i] != '_' && s[i] != '.' && s[i] != '@')
			return false;
	return true;
}

int xp_api_plan_add_spec(struct xp_api_plan *p, const char *spec, char *err, size_t len)
{
	const char *colon = strchr(spec, ':'), *base, *f;
	size_t plen = colon ? (size_t)(colon - spec) : strlen(spec);
	char path[XP_API_PATH];
	struct xp_api_lib *l;

	if (!plen || plen >= sizeof(path)) {
		snprintf(err, len, "--lib wants PATH[:FUNC,...] or NAME[:FUNC,...], not '%s'", spec);
		return -EINVAL;
	}
	memcpy(path, spec, plen);
	path[plen] = 0;
	base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	if (!*base || strlen(base) >= XP_API_LIB) {
		snprintf(err, len, "--lib %s: wants a library file or name (at most %d characters)", spec,
			 XP_API_LIB - 1);
		return -EINVAL;
	}
	if (colon) {
		/* check every name before changing the plan */
		for (f = colon + 1;; f++) {
			size_t n = strcspn(f, ",");

			if (!symbol_name(f, n)) {
				snprintf(err, len, "--lib %s: '%.*s' is not a function name (FUNC,FUNC,...)", spec,
					 (int)n, f);
				return -EINVAL;
			}
			f += n;
			if (!*f)
				break;
		}
	} else if (!builtin_of(base)) {
		snprintf(err, len, "--lib %s: no functions named, and no built-in list for %s (add :FUNC,...)",
			 spec, base);
		return -EINVAL;
	}
	if (!(l = add_lib(p, base))) {
		snprintf(err, len, "--lib %s: more than %d libraries", spec, XP_API_MAX_LIBS);
		return -EINVAL;
	}
	if (strchr(path, '/'))
		snprintf(l->given, sizeof(l->given), "%s", path);
	for (f = colon ? colon + 1 : NULL; f; f = strchr(f, ',') ? strchr(f, ',') + 1 : NULL) {
		char name[XP_API_NAME];
		size_t n = strcspn(f, ",");

		snprintf(name, sizeof(name), "%.*s", (int)n, f);
		if (add_fn(p, l, name)) {
			snprintf(err, len, "--lib %s: more than %d functions", spec, XP_API_MAX_FN);
			return -EINVAL;
		}
	}
	return 0;
}

/* The regular file `path` names, as device and inode; 0 for none. */
static uint64_t file_id(const char *path)
{
	struct stat st;

	if (stat(path, &st) || !S_ISREG(st.st_mode))
		return 0;
	return ((uint64_t)st.st_dev << 40) ^ (uint64_t)st.st_ino;
}

/* Whether that file is one of l's already (or none at all). */
static bool known_file(const struct xp_api_lib *l, uint64_t id)
{
	for (int i = 0; i < l->nfiles; i++)
		if (l->file_id[i] == id)
			return true;
	return !id;
}

/* Adds `path` (under root already) to l's files unless that file is there: 1 added. */
static int add_file(struct xp_api_lib *l, const char *path)
{
	uint64_t id = file_id(path);

	if (known_file(l, id))
		return 0;
	if (l->nfiles >= XP_API_LIB_FILES)
		return 0;
	l->file_id[l->nfiles] = id;
	snprintf(l->file[l->nfiles++], XP_API_PATH, "%s", path);
	return 1;
}

/* A mapped file's name is the soname or a versioned file behind it (libze_loader.so.1.21.1). */
static bool is_file_of(const char *base, const char *soname)
{
	size_t n = strlen(soname);

	return !strncmp(base, soname, n) && (base[n] == 0 || base[n] == '.');
}

static int recheck_path(struct xp_api_plan *p, int li, const char *path,
			void (*fn)(void *ctx, int li, int fi), void *ctx);

/*
 * Every running process's mapped libraries (containers' through their
 * root): added, or with `fn` rechecked as xp_api_plan_recheck does. How
 * many were new.
 */
static int find_mapped(struct xp_api_plan *p, const char *root, void (*fn)(void *ctx, int li, int fi),
		       void *ctx)
{
	int n = 0;

	char dir[XP_API_PATH], line[512 + XP_API_PATH];
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "%s/proc", root);
	if (!(d = opendir(dir)))
		return 0;
	while ((e = readdir(d))) {
		char maps[XP_API_PATH + 32];
		FILE *f;

		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		if (snprintf(maps, sizeof(maps), "%s/%s/maps", dir, e->d_name) >= (int)sizeof(maps) ||
		    !(f = fopen(maps, "r")))
			continue;	/* gone, or not ours to read */
		while (fgets(line, sizeof(line), f)) {
			char *path = strchr(line, '/'), *base;

			if (!path || strstr(path, " (deleted)"))
				continue;
			path[strcspn(path, "\n")] = 0;
			base = strrchr(path, '/') + 1;
			for (int i = 0; i < p->nlib; i++) {
				char full[XP_API_PATH];

				if (is_file_of(base, p->lib[i].soname) &&
				    snprintf(full, sizeof(full), "%s/%s/root%s", dir, e->d_name, path) < (int)sizeof(full))
					n += fn ? recheck_path(p, i, full, fn, ctx) : add_file(&p->lib[i], full);
			}
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

int xp_api_plan_recheck_mapped(struct xp_api_plan *p, const char *root, void (*fn)(void *ctx, int li, int fi),
			       void *ctx)
{
	return find_mapped(p, root, fn, ctx);
}

/* The loader's directories: ld.so.conf (one level of include) and the defaults. */
static int loader_dirs(const char *root, char dirs[][XP_API_PATH], int max)
{
	static const char *const defaults[] = {
		"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64",
		"/lib", "/usr/lib", "/usr/local/lib",
	};
	char conf[XP_API_PATH], line[XP_API_PATH];
	int n = 0;
	FILE *f;

	snprintf(conf, sizeof(conf), "%s/etc/ld.so.conf", root);
	if ((f = fopen(conf, "r"))) {
		while (fgets(line, sizeof(line), f)) {
			char *s = line + strspn(line, " \t");

			s[strcspn(s, "#\n")] = 0;
			if (!strncmp(s, "include", 7) && isspace((unsigned char)s[7])) {
				char pat[XP_API_PATH * 2];
				glob_t g;

				s += 8 + strspn(s + 8, " \t");
				snprintf(pat, sizeof(pat), "%s%s%s", root, s[0] == '/' ? "" : "/etc/", s);
				if (glob(pat, 0, NULL, &g))
					continue;
				for (size_t i = 0; i < g.gl_pathc; i++) {
					FILE *inc = fopen(g.gl_pathv[i], "r");
					char l2[XP_API_PATH];

					while (inc && fgets(l2, sizeof(l2), inc)) {
						char *t = l2 + strspn(l2, " \t");

						t[strcspn(t, "# \t\n")] = 0;
						if (t[0] == '/' && n < max)
							snprintf(dirs[n++], XP_API_PATH, "%s", t);
					}
					if (inc)
						fclose(inc);
				}
				globfree(&g);
			} else if (s[0] == '/' && n < max) {
				s[strcspn(s, " \t")] = 0;
				snprintf(dirs[n++], XP_API_PATH, "%s", s);
			}
		}
		fclose(f);
	}
	for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]) && n < max; i++)
		snprintf(dirs[n++], XP_API_PATH, "%s", defaults[i]);
	return n;
}

int xp_api_plan_find(struct xp_api_plan *p, const char *root)
{
	char dirs[32][XP_API_PATH], missing[XP_API_NOTE_LEN] = "";
	int ndirs = loader_dirs(root, dirs, 32), total = 0;

	for (int i = 0; i < p->nlib; i++) {
		struct xp_api_lib *l = &p->lib[i];

		if (!l->given[0])
			continue;
		if (!add_file(l, l->given))
			xp_api_plan_note(p, "--lib %s: %s", l->given,
					 access(l->given, F_OK) ? "no such file" : "not a regular file");
	}
	find_mapped(p, root, NULL, NULL);
	for (int i = 0; i < p->nlib; i++) {
		struct xp_api_lib *l = &p->lib[i];

		/* also where a --lib PATH names a runtime: the loader's copy stays traced */
		for (int d = 0; d < ndirs; d++) {
			char path[XP_API_PATH];

			if (snprintf(path, sizeof(path), "%s%s/%s", root, dirs[d], l->soname) < (int)sizeof(path))
				add_file(l, path);
		}
		if (!l->nfiles && !l->given[0])
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s",
				 missing[0] ? ", " : "", l->soname);
		total += l->nfiles;
	}
	if (missing[0])
		xp_api_plan_note(p, "not found (no running process maps them, not on the loader's paths): %s",
				 missing);
	return total;
}

/* path, a file of library li, if it is none of the library's files yet: added and given to fn. */
static int recheck_path(struct xp_api_plan *p, int li, const char *path,
			void (*fn)(void *ctx, int li, int fi), void *ctx)
{
	struct xp_api_lib *l = &p->lib[li];

	if (known_file(l, file_id(path)))
		return 0;
	if (l->nfiles >= XP_API_LIB_FILES) {
		if (!l->full_noted)
			xp_api_plan_note(p, "%s changed while tracing: the new file is not traced (more than %d "
					 "files of %s); processes that load it are not seen", path,
					 XP_API_LIB_FILES, l->soname);
		l->full_noted = true;
		return 0;
	}
	if (!add_file(l, path))
		return 0;
	fn(ctx, li, l->nfiles - 1);
	return 1;
}

static int by_pid(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The value of `var` in process pid's environment, into val; false if none (or unreadable). */
static bool env_of(uint32_t pid, const char *var, char *val, size_t len)
{
	char path[64], buf[16384];
	size_t vlen = strlen(var), have = 0;
	ssize_t got;
	bool found = false;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%u/environ", pid);
	if (!(f = fopen(path, "re")))
		return false;
	/* entries NUL-ended; one cut by the buffer's end is moved to its start */
	while (!found && (got = (ssize_t)fread(buf + have, 1, sizeof(buf) - have, f)) > 0) {
		size_t end = have + (size_t)got, at = 0;

		while (at < end) {
			char *nul = memchr(buf + at, 0, end - at);

			if (!nul)
				break;
			if (!strncmp(buf + at, var, vlen) && buf[at + vlen] == '=') {
				found = snprintf(val, len, "%s", buf + at + vlen + 1) < (int)len;
				break;
			}
			at = (size_t)(nul - buf) + 1;
		}
		have = end - at;
		if (have == sizeof(buf))
			have = 0;	/* one entry longer than the buffer: not a path */
		memmove(buf, buf + at, have);
	}
	fclose(f);
	return found;
}

int xp_api_plan_recheck_env(struct xp_api_plan *p, int li, const char *var, struct xp_api_pids *seen,
			    void (*fn)(void *ctx, int li, int fi), void *ctx)
{
	struct xp_api_pids *now = malloc(sizeof(*now));
	char val[XP_API_PATH], full[XP_API_PATH + 32];
	const char *base;
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (!now || !(d = opendir("/proc"))) {
		free(now);
		return 0;
	}
	now->n = 0;
	while ((e = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (!isdigit((unsigned char)e->d_name[0]) || *end || pid > UINT32_MAX)
			continue;
		if (now->n < XP_API_PIDS)
			now->pid[now->n++] = (uint32_t)pid;
		if (bsearch(&(uint32_t){ (uint32_t)pid }, seen->pid, seen->n, sizeof(seen->pid[0]), by_pid) ||
		    !env_of((uint32_t)pid, var, val, sizeof(val)))
			continue;
		base = (base = strrchr(val, '/')) ? base + 1 : val;
		if (!is_file_of(base, p->lib[li].soname) ||
		    snprintf(full, sizeof(full), "/proc/%lu/%s%s", pid, val[0] == '/' ? "root" : "cwd/", val) >=
			    (int)sizeof(full))
			continue;
		n += recheck_path(p, li, full, fn, ctx);
	}
	closedir(d);
	qsort(now->pid, now->n, sizeof(now->pid[0]), by_pid);
	memcpy(seen, now, sizeof(*seen));
	free(now);
	return n;
}

int xp_api_plan_recheck(struct xp_api_plan *p, const char *root, void (*fn)(void *ctx, int li, int fi),
			void *ctx)
{
	char dirs[32][XP_API_PATH], path[XP_API_PATH];
	int ndirs = loader_dirs(root, dirs, 32), n = 0;

	for (int li = 0; li < p->nlib; li++) {
		struct xp_api_lib *l = &p->lib[li];
		int nfiles = l->nfiles;

		if (l->given[0])
			n += recheck_path(p, li, l->given, fn, ctx);
		for (int i = 0; i < nfiles; i++) {
			snprintf(path, sizeof(path), "%s", l->file[i]);
			n += recheck_path(p, li, path, fn, ctx);
		}
		for (int d = 0; d < ndirs; d++)
			if (snprintf(path, sizeof(path), "%s%s/%s", root, dirs[d], l->soname) < (int)sizeof(path))
				n += recheck_path(p, li, path, fn, ctx);
	}
	return n;
}
