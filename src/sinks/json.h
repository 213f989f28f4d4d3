/* A streaming JSON writer: every JSON document the tool prints goes through it. */
#ifndef XP_SINKS_JSON_H
#define XP_SINKS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define XP_JSON_MAX_DEPTH 32

struct xp_json {
	FILE *f;
	int depth;
	bool pretty;
	bool need_comma[XP_JSON_MAX_DEPTH];
	bool after_key;
};

/* f NULL: a writer that writes nothing (values given to it are dropped). */
void xp_json_init(struct xp_json *j, FILE *f, bool pretty);
void xp_json_begin_obj(struct xp_json *j);
void xp_json_end_obj(struct xp_json *j);
void xp_json_begin_arr(struct xp_json *j);
void xp_json_end_arr(struct xp_json *j);
void xp_json_key(struct xp_json *j, const char *key);
void xp_json_str(struct xp_json *j, const char *s);
void xp_json_u64(struct xp_json *j, uint64_t v);
void xp_json_i64(struct xp_json *j, int64_t v);
void xp_json_double(struct xp_json *j, double v);
/* units / 10^digits written exactly, e.g. (1234567, 3) -> 1234.567 (ns as µs). */
void xp_json_fixed(struct xp_json *j, uint64_t units, unsigned int digits);
void xp_json_bool(struct xp_json *j, bool v);
void xp_json_null(struct xp_json *j);
/* Ends the document with a newline. */
void xp_json_finish(struct xp_json *j);

/* key + value in one call */
void xp_json_kstr(struct xp_json *j, const char *k, const char *s);
void xp_json_ku64(struct xp_json *j, const char *k, uint64_t v);
void xp_json_ki64(struct xp_json *j, const char *k, int64_t v);
void xp_json_kdouble(struct xp_json *j, const char *k, double v);
void xp_json_kbool(struct xp_json *j, const char *k, bool v);

#endif
