/* Human-readable output helpers shared by every command. */
#ifndef XP_SINKS_TEXT_H
#define XP_SINKS_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include "core/hist.h"
#include "shared/record.h"

/* Writes v in decimal at p (no terminator); returns the end. */
char *xp_put_u64(char *p, uint64_t v);
/*
 * Stream times are ts - t0. An event can carry a stamp older than t0 (a call
 * already under way when tracing began, a job done before the session took
 * its start time): as an unsigned difference it wraps to ~1.8e19. Every sink
 * prints stream times through these two, so none can wrap.
 */
/* ts - t0 in nanoseconds, negative before t0 (saturated at the int64 ends). */
int64_t xp_rel_ns(uint64_t ts, uint64_t t0);
/*
 * ts - t0 in seconds with six decimals, truncated to the microsecond toward
 * zero ("12.000001", "-0.002500": a '-' whenever ts is before t0). Written at
 * p without a terminator (at most 28 bytes); returns the end.
 */
char *xp_put_rel_s(char *p, uint64_t ts, uint64_t t0);
/* "812ns", "12.3us", "4.56ms", "1.20s" */
const char *xp_fmt_ns(uint64_t ns, char *buf, size_t len);
/* "812 B", "12.0 KiB", "4.5 MiB", "1.2 GiB" */
const char *xp_fmt_bytes(uint64_t b, char *buf, size_t len);
/*
 * A histogram's times, "-" where it is empty: xp_fmt_pct one percentile
 * ("4.56ms"), xp_fmt_pcts p50/p90/p99 ("1.2us/3.4us/5.6ms"), xp_fmt_mean
 * the mean of `n` values summing to `sum`.
 */
const char *xp_fmt_pct(const struct xp_hist *h, double p, char *buf, size_t len);
const char *xp_fmt_pcts(const struct xp_hist *h, char *buf, size_t len);
const char *xp_fmt_mean(uint64_t sum, uint64_t n, char *buf, size_t len);
/* "ENOTTY" (or "E123" for numbers without a name) */
const char *xp_errno_name(uint32_t err, char *buf, size_t len);
/*
 * A latency table's columns after its name column: " COUNT AVG P50 P99 MAX\n"
 * (%8 and four %10 columns, times as xp_fmt_ns writes them).
 */
void xp_print_lat_cols(FILE *f, const struct xp_hist *h);
/* The log2 histogram, one line per non-empty range, indented by `indent`. */
void xp_print_log2_hist(FILE *f, const struct xp_hist *h, int indent);
/* "drops: 0" or "drops: 12 (ring buffer full 10, map full 2)" */
struct xp_run_info;
/* "drops: N (by cause)", and what this kernel leaves uncounted */
void xp_print_drops(FILE *f, const struct xp_run_info *ri);
const char *xp_drop_reason_name(int reason);
/* A summary's notes: "note: this kernel has no GROUP/EVENT event: skipped" for
 * each event of the table's `group` (NULL: all) the layout lacks; "note: N
 * records could not be decoded" where n is not 0. */
struct xp_rawtp_layout;
void xp_print_skipped_events(FILE *f, const struct xp_rawtp_layout *l, const char *group);
void xp_print_undecodable(FILE *f, uint64_t n);
/*
 * The notes after a summary's first line: what the process filters apply to
 * (`filters`, NULL: not filtered), "N events past the tracked TABLES" where
 * `overflow`, and the undecodable records.
 */
void xp_print_notes(FILE *f, const char *filters, uint64_t overflow, const char *tables, uint64_t undecodable);

#endif
