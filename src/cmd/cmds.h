/* The verbs. Each returns the process exit status: 0 ok, 1 failed, 2 bad usage. */
#ifndef XP_CMD_CMDS_H
#define XP_CMD_CMDS_H

#include <stdbool.h>
#include "core/tracefile.h"

int cmd_doctor(int argc, char **argv);
int cmd_ioctl(int argc, char **argv);
int cmd_sched(int argc, char **argv);
int cmd_vblank(int argc, char **argv);
int cmd_mem(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);

/* Prints "xputrace: <msg>" on stderr; returns `status`. */
int xp_fail(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Flushes and checks stdout: a failed write is an error, not a silent loss. */
int xp_finish_stdout(int status);

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

#endif
