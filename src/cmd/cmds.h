/* The verbs that are not capabilities, and what the file verbs share.
 * Each returns the process exit status: 0 ok, 1 failed, 2 bad usage. */
#ifndef XP_CMD_CMDS_H
#define XP_CMD_CMDS_H

#include <stdbool.h>
#include "caps/cap.h"
#include "core/msg.h"
#include "core/tracefile.h"

int cmd_doctor(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_export(int argc, char **argv);

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

#endif
