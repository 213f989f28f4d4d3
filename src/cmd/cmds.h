/* The verbs that are not capabilities, and what the file verbs share.
 * Each returns the process exit status: 0 ok, 1 failed, 2 bad usage. */
#ifndef XP_CMD_CMDS_H
#define XP_CMD_CMDS_H

#include <stdbool.h>
#include <stdint.h>
#include "caps/cap.h"
#include "core/msg.h"
#include "core/tracefile.h"

int cmd_doctor(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_simulate(int argc, char **argv);
int cmd_analyze(int argc, char **argv);

/* A verb's options: its parser and the generated completion and man page read them. */
struct xp_verb_opts {
	unsigned int common;		/* the common options it takes (XP_O_*, cmd/runner.h) */
	const struct xp_cap_opt *opts;	/* its own, ending with { NULL }; NULL: none */
};
extern const struct xp_verb_opts xp_doctor_opts, xp_record_opts, xp_report_opts, xp_export_opts;
extern const struct xp_verb_opts xp_serve_opts, xp_top_opts, xp_simulate_opts, xp_analyze_opts;

/* A verb that is not a capability, as main lists it. */
struct xp_gen_verb {
	const char *name, *summary;
};
/*
 * `xputrace --gen bash|zsh|man` (internal, run by the build): the bash and
 * zsh completion or the man page on stdout, from the table and `verbs`.
 */
int xp_cmd_gen(int argc, char **argv, const struct xp_gen_verb *verbs, size_t nverbs);

/*
 * Reads a trace file for `verb` (report, export): `on_open` (may be NULL)
 * once the metadata is read, then `fn` per record. Prints the one-line error
 * and returns 1, or prints the warning of a file cut short and returns 0.
 */
int xp_cmd_read_trace(const char *verb, const char *path, struct xp_trace_reader *r,
		      int (*on_open)(void *ctx, const struct xp_trace_reader *r),
		      xp_trace_record_fn fn, void *ctx);
/*
 * What `report` prints for one VIEW of a trace file (NULL: the file's first
 * capability), or its --info; 0, or 1 after a one-line error.
 */
int xp_report_file(const char *path, const char *view, bool json, bool hist, bool info);
/* Whether the file recorded a capability ("ioctl"). */
bool xp_trace_has_cap(const struct xp_trace_reader *r, const char *cap);
/*
 * An instance of `cap` fed from the file `r` is reading: its layouts from
 * the file, the recording's filters, devices, page size and start time.
 * 0; -ENOENT when the file carries no layouts for it; -errno.
 */
int xp_cap_inst_from_file(struct xp_cap_inst *ci, const struct xp_cap *cap,
			  struct xp_cap_env *env, const struct xp_trace_reader *r);
/* "xputrace: VERB: N records could not be decoded", unless the summary says it. */
void xp_say_undecodable(const char *verb, const struct xp_cap_inst *ci);

/* ---- simulate and analyze (cmd/simulate.c): the jobs of a trace file ---- */
struct xp_sim_load;
struct xp_sim_input;
struct xp_sim_task;
/* The one operand after the options, the trace file: 0, or 2 after the error. */
int xp_sim_file_operand(const char *verb, int argc, char **argv, const char **path);
/*
 * Reads the sched jobs of `path` into `l` (src/sim/simload.h), a task per
 * process or per DRM client, and when tracing began and ended; 0, or 1 after the one-line error (no sched
 * capture, no complete job, the reader's errors).
 */
int xp_sim_load_file(const char *verb, const char *path, bool by_client, struct xp_sim_load *l,
		     uint64_t *t0, uint64_t *t_end);
/* --by process|client: 0, or 2 after the error. */
int xp_sim_parse_by(const char *verb, const char *arg, bool *by_client);
/* --format of the --perfetto file: json or proto */
int xp_sim_parse_format(const char *verb, const char *arg, bool *proto);
/* --json with --perfetto -, which prints the trace instead of a summary: 2 after the error; else 0. */
int xp_sim_perfetto_json(const char *verb, const char *perfetto, bool json);
/* "--OPT KEY=VALUE": set(task, VALUE) on the tasks KEY (comm or pid) names; 0, or 2 after the error. */
int xp_sim_apply(const char *verb, const char *opt, const char *spec, struct xp_sim_input *in,
		 int (*set)(struct xp_sim_task *t, const char *val));
int xp_sim_set_prio(struct xp_sim_task *t, const char *v);
struct xp_perfetto;
/*
 * --perfetto OUT: fn(p, ctx) writes the events between the writer's begin
 * and end, as trace-event JSON or Perfetto's protobuf (`proto`); OUT is
 * replaced only when whole. 0, or the status after the error.
 */
int xp_sim_perfetto_out(const char *verb, const char *out, bool proto, uint64_t t0,
			int (*fn)(struct xp_perfetto *p, void *ctx), void *ctx);

#endif
