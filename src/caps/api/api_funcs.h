/*
 * What `api` traces: the built-in runtime functions (one table), the
 * libraries `--lib` adds, and where each library's files are: in the
 * mappings of running processes (through /proc/PID/root, so inside
 * containers too) and on the dynamic loader's paths, for processes that
 * start later. No libbpf: the unit tests use it alone.
 */
#ifndef XP_CAPS_API_FUNCS_H
#define XP_CAPS_API_FUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "caps/api/api.h"

#define XP_API_MAX_LIBS 24
#define XP_API_LIB_FILES 8
#define XP_API_PATH 256
#define XP_API_NOTES 24
#define XP_API_NOTE_LEN 320

/* The built-in lists: a library's soname, what its return values mean, its functions. */
struct xp_api_builtin {
	const char *soname;
	const char *runtime;		/* "Level Zero", "CUDA", ... */
	enum xp_api_rule rule;
	const char *const *funcs;	/* ending with NULL */
	const char *const *values;	/* of those, the ones returning a value, not a status (NULL: none) */
};
extern const struct xp_api_builtin xp_api_builtins[];
extern const size_t xp_api_nbuiltins;

/* One library to trace: its functions and the files found for it. */
struct xp_api_lib {
	char soname[XP_API_LIB];	/* what records and summaries name it by */
	enum xp_api_rule rule;
	int first_fn, nfn;		/* its functions: plan->fn[first_fn ..] */
	int nfiles;
	char file[XP_API_LIB_FILES][XP_API_PATH];
	uint64_t file_id[XP_API_LIB_FILES];	/* device and inode: one file found twice is one */
	char given[XP_API_PATH];	/* --lib PATH: the path given ("" none) */
	bool full_noted;		/* a file past XP_API_LIB_FILES was noted */
};

struct xp_api_plan {
	int nlib, nfn;
	struct xp_api_lib lib[XP_API_MAX_LIBS];
	struct xp_api_fn fn[XP_API_MAX_FN];	/* the attach cookie is the index */
	int fn_lib[XP_API_MAX_FN];
	bool builtin_done;
	int nnotes;
	char note[XP_API_NOTES][XP_API_NOTE_LEN];
};

/* The built-in lists into an empty plan. */
void xp_api_plan_init(struct xp_api_plan *p);
/*
 * `--lib PATH[:FUNC,...]` or `--lib NAME[:FUNC,...]`: a library by path or
 * soname, with these functions (none: the built-in list for its name).
 * 0, or -EINVAL with a one-line reason in err.
 */
int xp_api_plan_add_spec(struct xp_api_plan *p, const char *spec, char *err, size_t len);
/*
 * Finds every library's files under `root` ("" for this machine): the
 * given paths, the files running processes map, the loader's directories
 * (for a name --lib gave a path for too). One file found twice is one.
 * Notes what is missing. Returns the number of files found.
 */
int xp_api_plan_find(struct xp_api_plan *p, const char *root);
/*
 * Files of the libraries that appeared after xp_api_plan_find: a path it
 * looks at (a --lib path, the loader's copy, a file found) now names a file
 * that none of the library's files is, as when a package upgrade replaced
 * the library by rename. Each is added to its library and given to
 * fn(ctx, library index, file index); one past XP_API_LIB_FILES is noted
 * once. Returns how many were added.
 */
int xp_api_plan_recheck(struct xp_api_plan *p, const char *root, void (*fn)(void *ctx, int li, int fi),
			void *ctx);
/*
 * The same for the files running processes map now (a process that loaded
 * the library after xp_api_plan_find): a scan of every process's mappings,
 * so callers space it out.
 */
int xp_api_plan_recheck_mapped(struct xp_api_plan *p, const char *root, void (*fn)(void *ctx, int li, int fi),
			       void *ctx);
/* The processes one pass over /proc saw, ascending (more than XP_API_PIDS: the rest unkept). */
#define XP_API_PIDS 16384
struct xp_api_pids {
	uint32_t n;
	uint32_t pid[XP_API_PIDS];
};
/*
 * The same for the processes started since the last pass (`seen`, updated;
 * zeroed: every process is new) whose environment names, in `var`, a file
 * of library li, as CUDA_INJECTION64_PATH names the file CUDA will load:
 * found before the process loads it, however soon it ends. Only new
 * processes' environments are read, so this can run each second.
 */
int xp_api_plan_recheck_env(struct xp_api_plan *p, int li, const char *var, struct xp_api_pids *seen,
			    void (*fn)(void *ctx, int li, int fi), void *ctx);
/* Adds a one-line note (printf-style), kept for the summary. */
void xp_api_plan_note(struct xp_api_plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
