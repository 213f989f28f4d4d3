/* Human-readable output helpers shared by every command. */
#ifndef XP_SINKS_TEXT_H
#define XP_SINKS_TEXT_H

#include <stdint.h>
#include <stdio.h>
#include "core/hist.h"
#include "shared/record.h"

/* Writes v in decimal at p (no terminator); returns the end. */
char *xp_put_u64(char *p, uint64_t v);
/* "812ns", "12.3us", "4.56ms", "1.20s" */
const char *xp_fmt_ns(uint64_t ns, char *buf, size_t len);
/* "ENOTTY" (or "E123" for numbers without a name) */
const char *xp_errno_name(uint32_t err, char *buf, size_t len);
/* The log2 histogram, one line per non-empty range, indented by `indent`. */
void xp_print_log2_hist(FILE *f, const struct xp_hist *h, int indent);
/* "drops: 0" or "drops: 12 (ring buffer full 10, map full 2)" */
void xp_print_drops(FILE *f, const uint64_t drops[XP_DROP_ALL]);
const char *xp_drop_reason_name(int reason);

#endif
