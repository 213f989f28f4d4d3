/*
 * A protocol-buffers wire writer: varints, fixed64 and length-delimited
 * fields into one growing byte buffer, with nested messages written in
 * place. No schema and no library: the caller names the field numbers.
 *
 * A nested message reserves one byte for its length and moves its body
 * when it turns out longer than 127 bytes, so small messages (nearly all
 * a trace writes) cost no copy and carry a minimal length.
 */
#ifndef XP_SINKS_PBWIRE_H
#define XP_SINKS_PBWIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/varint.h"

enum xp_pb_wire { XP_PB_VARINT = 0, XP_PB_I64 = 1, XP_PB_LEN = 2, XP_PB_I32 = 5 };

struct xp_pb {
	uint8_t *b;
	size_t n, cap;
	bool oom;	/* a growth failed: writes since were dropped */
};

/* Makes room for `more` bytes; false (and oom set) when it cannot. */
bool xp_pb_reserve(struct xp_pb *pb, size_t more);
void xp_pb_free(struct xp_pb *pb);

static inline void xp_pb_varint(struct xp_pb *pb, uint64_t v)
{
	if (pb->cap - pb->n >= 10 || xp_pb_reserve(pb, 10))
		pb->n += xp_varint_put(pb->b + pb->n, v);
}

static inline void xp_pb_tag(struct xp_pb *pb, uint32_t field, enum xp_pb_wire w)
{
	xp_pb_varint(pb, (uint64_t)field << 3 | w);
}

/* uint32/uint64/int32 >= 0/bool/enum fields */
static inline void xp_pb_uint(struct xp_pb *pb, uint32_t field, uint64_t v)
{
	xp_pb_tag(pb, field, XP_PB_VARINT);
	xp_pb_varint(pb, v);
}

/* int64 and int32 fields: a negative value takes ten bytes, as protobuf says */
static inline void xp_pb_int(struct xp_pb *pb, uint32_t field, int64_t v)
{
	xp_pb_uint(pb, field, (uint64_t)v);
}

void xp_pb_fixed64(struct xp_pb *pb, uint32_t field, uint64_t v);
void xp_pb_double(struct xp_pb *pb, uint32_t field, double v);
void xp_pb_bytes(struct xp_pb *pb, uint32_t field, const void *data, size_t len);
static inline void xp_pb_str(struct xp_pb *pb, uint32_t field, const char *s)
{
	xp_pb_bytes(pb, field, s, strlen(s));
}

/*
 * The same fields written at a pointer into room the caller made (a local
 * buffer, or xp_pb_reserve's): no checks, each returns the byte after it.
 * For the hot path of a writer that knows its message's largest size.
 */
static inline uint8_t *xp_pb_put_tag(uint8_t *q, uint32_t field, enum xp_pb_wire w)
{
	return q + xp_varint_put(q, (uint64_t)field << 3 | w);
}

static inline uint8_t *xp_pb_put_uint(uint8_t *q, uint32_t field, uint64_t v)
{
	q = xp_pb_put_tag(q, field, XP_PB_VARINT);
	return q + xp_varint_put(q, v);
}

static inline uint8_t *xp_pb_put_fixed64(uint8_t *q, uint32_t field, uint64_t v)
{
	q = xp_pb_put_tag(q, field, XP_PB_I64);
	for (int i = 0; i < 8; i++)	/* little-endian, whatever the host */
		*q++ = (uint8_t)(v >> (8 * i));
	return q;
}

/* A length-delimited field whose body (len bytes at body) is already written elsewhere. */
static inline uint8_t *xp_pb_put_bytes(uint8_t *q, uint32_t field, const void *body, size_t len)
{
	q = xp_pb_put_tag(q, field, XP_PB_LEN);
	q += xp_varint_put(q, len);
	memcpy(q, body, len);
	return q + len;
}

/*
 * A nested message: begin writes its tag and reserves its length, returns a
 * mark for end, which writes the length once the body is known.
 */
size_t xp_pb_begin(struct xp_pb *pb, uint32_t field);
void xp_pb_end(struct xp_pb *pb, size_t mark);

#endif
