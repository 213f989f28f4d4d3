/* Strict parsing of command-line numbers: the whole string or an error. */
#ifndef XP_CORE_PARSE_H
#define XP_CORE_PARSE_H

#include <stdint.h>

/* A number of seconds > 0 ("5", "0.5"); -EINVAL otherwise. */
int xp_parse_seconds(const char *s, double *out);
/* A decimal unsigned integer in [min, max]; -EINVAL or -ERANGE otherwise. */
int xp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif
