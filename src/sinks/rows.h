/*
 * Rows: a capability describes what one row of its output holds once, as a
 * table of columns, and this one writer renders it as a line of the text
 * table (with its heading), as the keys of a JSON object, or as a --stream
 * line (text or JSON). A column names where its value is (a field of the
 * row's struct, or a function), how it prints, its text heading and width,
 * and its JSON key; a column with no heading is JSON only, one with no key
 * text only. See "Rows" in src/caps/README.md.
 *
 *	static const struct xp_col tl_cols[] = {
 *		{ XP_TEXT("DRIVER TIMELINE", -36, XP_COL_STR), .flags = XP_COL_CUT, .get = tl_name },
 *		{ XP_BOTH("CREATED", 8, "created", XP_COL_INT), XP_FIELD(struct xp_fence_tl, created) },
 *		{ XP_JSON("life_ns", XP_COL_HIST), XP_FIELD(struct xp_fence_tl, life) },
 *	};
 *	static const struct xp_rows tl_rows = { XP_ROWS(tl_cols), .indent = "  " };
 *
 *	xp_rows_head(f, &tl_rows, NULL);		"  DRIVER TIMELINE ... CREATED"
 *	xp_rows_text(f, &tl_rows, t, NULL);		"  vgem unbound    ...       3"
 *	xp_rows_json_obj(j, &tl_rows, t, NULL);	{"created":3,"life_ns":{...}}
 */
#ifndef XP_SINKS_ROWS_H
#define XP_SINKS_ROWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/hist.h"
#include "sinks/json.h"

/* How a value prints: text cell, JSON value. */
enum xp_col_type {
	XP_COL_INT,	/* an unsigned integer field of any size: "%u", a number */
	XP_COL_SINT,	/* a signed one: "%d", a number */
	XP_COL_STR,	/* a char array field (or get's v->s): "%s", a string */
	XP_COL_NS,	/* nanoseconds: "4.56ms" (xp_fmt_ns), a number */
	XP_COL_HIST,	/* struct xp_hist: its .stat ("p50/p90/p99", ...; "-" when empty), the histogram (xp_json_khist) */
	XP_COL_MILLI,	/* thousandths: "59.940", 59.940 (xp_json_fixed) */
	XP_COL_DOUBLE,	/* "%.2f", a number */
	XP_COL_BOOL,	/* "yes"/"no", true/false */
};

/* What the text of an XP_COL_HIST column shows. */
enum xp_hist_stat {
	XP_HIST_PCTS,		/* "1.2us/3.4us/5.6ms": p50/p90/p99 */
	XP_HIST_P50_P99,	/* "1.2us/5.6ms" ("-/-" when empty) */
	XP_HIST_P50_P99_MAX,	/* "1.2us/5.6ms/9.1ms" ("-/-/-") */
	XP_HIST_MEAN_P99,	/* "2.0us / 5.6ms" */
	XP_HIST_MEAN,
	XP_HIST_SUM,
	XP_HIST_MAX,
	XP_HIST_P99,
};

/* A value a column's `get` works out. */
struct xp_val {
	union {
		uint64_t u;	/* XP_COL_INT, XP_COL_NS, XP_COL_MILLI */
		int64_t i;	/* XP_COL_SINT */
		double d;
		bool b;
		const char *s;	/* XP_COL_STR: may point at buf */
		const struct xp_hist *h;
	};
	bool none;		/* no value: "-" in text, null in JSON (left out with XP_COL_OMIT) */
	char buf[64];		/* room for a string get writes */
};

enum {
	XP_COL_CUT = 1 << 0,	/* text: cut to the width (names) */
	XP_COL_OMIT = 1 << 1,	/* JSON: a value that is none leaves the key out */
	XP_COL_IN_CTX = 1 << 2,	/* the field is in ctx, not in the row (a summary's own counters) */
};

struct xp_col {
	const char *head;	/* text heading; NULL: not in the text line */
	int width;		/* text: > 0 right-aligned, < 0 left-aligned, 0 as it is */
	unsigned int flags;
	const char *key;	/* JSON key; NULL: not in JSON */
	enum xp_col_type type;
	size_t off, size;	/* the field (XP_FIELD); size 0: `get` says */
	void (*get)(const void *row, const void *ctx, struct xp_val *v);
	int gap;		/* text: spaces before the cell besides the one between columns */
	enum xp_hist_stat stat;	/* XP_COL_HIST: its text ("-" when empty, unless said) */
};

/* A column's first members: shown in JSON only, in text only, or in both. */
#define XP_JSON(k, t) .key = (k), .type = (t)
#define XP_TEXT(h, w, t) .head = (h), .width = (w), .type = (t)
#define XP_BOTH(h, w, k, t) .head = (h), .width = (w), .key = (k), .type = (t)
/* A field of a row's struct: .off and .size of a column. */
#define XP_FIELD(type, member) .off = offsetof(type, member), .size = sizeof(((type *)0)->member)
#define XP_NCOLS(cols) ((int)(sizeof(cols) / sizeof((cols)[0])))
/* .cols and .n of a struct xp_rows: { XP_ROWS(cols), .indent = "  " } */
#define XP_ROWS(table) .cols = (table), .n = XP_NCOLS(table)

struct xp_rows {
	const struct xp_col *cols;
	int n;
	const char *indent;	/* text: before the first cell (NULL: none) */
	/* text: the heading of column i where it depends on the run (NULL: the columns' own) */
	const char *(*head_of)(int i, const void *ctx);
	/* the columns of `more` follow, on the same line and in the same object,
	 * for the struct at more_off in the row (counters that several rows embed) */
	const struct xp_rows *more;
	size_t more_off;
};

/* The value of column `c` of `row`. */
void xp_rows_value(const struct xp_col *c, const void *row, const void *ctx, struct xp_val *v);
/* Text: the heading line; one row's line. */
void xp_rows_head(FILE *f, const struct xp_rows *t, const void *ctx);
void xp_rows_text(FILE *f, const struct xp_rows *t, const void *row, const void *ctx);
/* JSON: the row's keys in the object being written; the row as one object. */
void xp_rows_json(struct xp_json *j, const struct xp_rows *t, const void *row, const void *ctx);
void xp_rows_json_obj(struct xp_json *j, const struct xp_rows *t, const void *row, const void *ctx);
/*
 * `key`: an array of the `n` rows at `rows` (each `size` bytes), those for
 * which keep() says so (NULL: all).
 */
void xp_rows_json_arr(struct xp_json *j, const char *key, const struct xp_rows *t, const void *rows,
		      int n, size_t size, const void *ctx, bool (*keep)(const void *row));
/* --stream: one row as a JSON document on j, or else as a text line on f. */
void xp_rows_stream(FILE *f, struct xp_json *j, const struct xp_rows *t, const void *row,
		    const void *ctx);

#endif
