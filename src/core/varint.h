/*
 * Base-128 varints (LEB128) and zigzag: what the packed trace file
 * (core/pack.c) and the protobuf writer (sinks/pbwire.c) both write.
 */
#ifndef XP_CORE_VARINT_H
#define XP_CORE_VARINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

static inline uint64_t xp_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t xp_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

/* Writes v at p (at most 10 bytes); returns the bytes written. */
static inline size_t xp_varint_put(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)v | 0x80;
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

/*
 * Reads a varint from *p, not past end; advances *p. False when it runs past
 * end or over 64 bits (a damaged block).
 */
static inline bool xp_varint_get(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	const uint8_t *q = *p;
	uint64_t r = 0;

	if (q < end && *q < 0x80) {	/* the common case: one byte */
		*v = *q;
		*p = q + 1;
		return true;
	}
	if (end - q >= 2 && q[1] < 0x80) {	/* then two (a time apart, a latency) */
		*v = (uint64_t)(q[0] & 0x7f) | (uint64_t)q[1] << 7;
		*p = q + 2;
		return true;
	}
	for (unsigned int shift = 0; q < end && shift < 64; shift += 7) {
		uint8_t b = *q++;

		if (shift == 63 && b > 1)
			return false;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (b < 0x80) {
			*v = r;
			*p = q;
			return true;
		}
	}
	return false;
}

/* Bytes a varint takes (1..10). */
static inline size_t xp_varint_len(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

#endif
