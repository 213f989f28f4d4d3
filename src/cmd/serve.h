/*
 * What `serve` and `top` share while they run (cmd/serve.c), and top's
 * refresh (cmd/top.c).
 */
#ifndef XP_CMD_SERVE_H
#define XP_CMD_SERVE_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "cmd/runner.h"
#include "core/cgroups.h"
#include "live/kernel_side.h"
#include "live/session.h"
#include "sinks/http.h"
#include "sinks/metrics.h"

struct serve_run {
	const char *verb;		/* "serve" or "top" */
	bool top;
	const char *sort;		/* top --sort */
	bool sources;			/* top --sources */
	bool tty;			/* top: stdout is a terminal, redrawn in place */
	struct xp_top_tui *tui;		/* top: the screen is taken (keys, curses) */
	uint64_t last_ns, last_events;	/* top: at the last refresh */
	uint64_t sampled_ns;		/* the samplers' last sample (XP_CAP_SAMPLER) */
	bool samplers;			/* some are served */
	struct xp_live_opts o;
	const char *listen;
	bool per_process, named;	/* named: rows were named */
	uint64_t max_series;
	struct xp_devices devs;
	struct xp_cap_env env;
	struct xp_cap_inst *ci;		/* every runnable capability, table order */
	bool *want;
	int nci;
	struct bpf_object **more_obj;
	struct xp_kside *owner;		/* the first opened: its ring buffer is shared */
	struct xp_session sess;
	pthread_mutex_t lock;		/* the metrics and the cgroup cache */
	struct xp_metrics m;
	struct xp_cgroup_cache *cg;
	struct xp_pid_cgroups pids;	/* the rows' pid -> cgroup id (the tracing thread's) */
	struct xp_http_server *http;
	struct xp_series **events;	/* per capability, NULL where not served */
	struct xp_series *drops[XP_DROP_ALL], *series, *folded;
	struct xp_series *shed[XP_HTTP_SHED_N];	/* serve: HTTP connections shed, by reason */
};

/* top: one refresh of the table (or of its screen), from what changed since the last one. */
int xp_top_refresh(struct serve_run *r);
/* top: takes the screen where it can (sinks/top_tui.h), before the run. */
void xp_top_take_screen(struct serve_run *r);
/* top: gives it back after the run, and says the drops; whether it was taken. */
bool xp_top_give_screen(struct serve_run *r);

#endif
