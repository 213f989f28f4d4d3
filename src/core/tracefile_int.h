/* What the trace file's writer (tracefile_write.c) and reader
 * (tracefile_read.c) share; not part of the API (tracefile.h is). */
#ifndef XP_CORE_TRACEFILE_INT_H
#define XP_CORE_TRACEFILE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- little-endian fields --------------------------------------------- */

static inline void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static inline void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static inline void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }
static inline uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static inline uint32_t get32(const uint8_t *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static inline uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

/*
 * Fuzzing builds do not check CRCs, or the fuzzer would never get past
 * them to the parsers behind (the libFuzzer convention for this flag).
 */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CRC_MISMATCH(a, b) ((void)(a), (void)(b), false)
#else
#define CRC_MISMATCH(a, b) ((a) != (b))
#endif

static inline size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

struct xp_trace_reader;

/* Sets r->error from fmt (one line) and returns err. */
int xp_tf_fail(struct xp_trace_reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The payloads of the META, LAYOUT and PACKING blocks into r (tracefile_head.c). */
int xp_tf_parse_meta(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count);
int xp_tf_check_layout(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count);
int xp_tf_parse_plans(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count);

/* A block kind's name, for messages. */
const char *xp_tf_block_name(uint32_t kind);

#endif
