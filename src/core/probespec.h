/*
 * Probe specifications as users write them, and latency key lists: parsed
 * here without libbpf (src/live/probe_attach.c attaches what they name), so
 * any capability that takes a probe on its command line can share them.
 *
 *   tracepoint:GROUP:EVENT   (t:GROUP:EVENT)
 *   kprobe:FUNC              (k:FUNC)     kretprobe:FUNC   (kr:FUNC)
 *   fentry:FUNC              (f:FUNC)     fexit:FUNC       (fr:FUNC)
 *   uprobe:LIB:SYMBOL        (u:LIB:SYMBOL) uretprobe:LIB:SYMBOL (ur:LIB:SYMBOL)
 *
 * LIB is a path or a library name the dynamic linker would find
 * ("libc.so.6"); the last ':' separates it from SYMBOL.
 */
#ifndef XP_CORE_PROBESPEC_H
#define XP_CORE_PROBESPEC_H

#include <stdbool.h>
#include <stddef.h>

enum xp_probe_kind {
	XP_PROBE_TRACEPOINT,
	XP_PROBE_KPROBE,
	XP_PROBE_KRETPROBE,
	XP_PROBE_FENTRY,
	XP_PROBE_FEXIT,
	XP_PROBE_UPROBE,
	XP_PROBE_URETPROBE,
};

#define XP_PROBE_NAME_LEN 128
#define XP_PROBE_PATH_LEN 256

struct xp_probe {
	enum xp_probe_kind kind;
	char group[XP_PROBE_NAME_LEN];	/* tracepoint group */
	char name[XP_PROBE_NAME_LEN];	/* tracepoint event, function or symbol */
	char path[XP_PROBE_PATH_LEN];	/* uprobes: the binary or library */
	unsigned long long cookie;	/* uprobes: the program's bpf_get_attach_cookie() (0: none) */
};

/* 0, or -EINVAL with a one-line reason (no trailing newline) in err. */
int xp_probe_parse(const char *spec, struct xp_probe *p, char *err, size_t len);
/* "kretprobe" */
const char *xp_probe_kind_name(enum xp_probe_kind k);
/* The spec again, in its long form. */
const char *xp_probe_str(const struct xp_probe *p, char *buf, size_t len);
/* Fires when the function returns: its arguments are gone. */
bool xp_probe_is_return(enum xp_probe_kind k);
/* A return probe that still has the arguments (fexit). */
bool xp_probe_args_at_return(enum xp_probe_kind k);
/* Has function arguments (arg0..arg5) rather than tracepoint fields. */
bool xp_probe_has_args(enum xp_probe_kind k);

/* Key fields: "tid", "pid", "arg0".."arg5", or a tracepoint field name. */
#define XP_KEY_MAX 2
#define XP_KEY_NAME_LEN 48
struct xp_keyspec {
	int n;
	char name[XP_KEY_MAX][XP_KEY_NAME_LEN];
};
/* "dev,pasid": 0, or -EINVAL with a one-line reason in err. */
int xp_keyspec_parse(const char *s, struct xp_keyspec *k, char *err, size_t len);
/* -1, or the argument index of "argN". */
int xp_key_arg(const char *name);

/* Ready-made pairs. */
struct xp_lat_preset {
	char from[2][XP_PROBE_NAME_LEN * 2];	/* [0] first choice, [1] fallback ("" none) */
	char to[2][XP_PROBE_NAME_LEN * 2];
	char key[2][64];
};
/* "syscall:NAME", "iopf": 0, or -EINVAL with a one-line reason in err. */
int xp_lat_preset_get(const char *name, struct xp_lat_preset *p, char *err, size_t len);

#endif
