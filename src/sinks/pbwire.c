/* Protocol-buffers wire writer (src/sinks/pbwire.h). */
#include <stdlib.h>

#include "sinks/pbwire.h"

bool xp_pb_reserve(struct xp_pb *pb, size_t more)
{
	size_t cap = pb->cap ? pb->cap : 4096;
	uint8_t *b;

	if (pb->oom)
		return false;
	if (pb->cap - pb->n >= more)
		return true;
	while (cap - pb->n < more)
		cap *= 2;
	if (!(b = realloc(pb->b, cap))) {
		pb->oom = true;
		return false;
	}
	pb->b = b;
	pb->cap = cap;
	return true;
}

void xp_pb_free(struct xp_pb *pb)
{
	free(pb->b);
	*pb = (struct xp_pb){ 0 };
}

void xp_pb_fixed64(struct xp_pb *pb, uint32_t field, uint64_t v)
{
	xp_pb_tag(pb, field, XP_PB_I64);
	if (!xp_pb_reserve(pb, 8))
		return;
	for (int i = 0; i < 8; i++)	/* little-endian, whatever the host */
		pb->b[pb->n++] = (uint8_t)(v >> (8 * i));
}

void xp_pb_double(struct xp_pb *pb, uint32_t field, double v)
{
	uint64_t u;

	memcpy(&u, &v, sizeof(u));
	xp_pb_fixed64(pb, field, u);
}

void xp_pb_bytes(struct xp_pb *pb, uint32_t field, const void *data, size_t len)
{
	xp_pb_tag(pb, field, XP_PB_LEN);
	xp_pb_varint(pb, len);
	if (!xp_pb_reserve(pb, len))
		return;
	memcpy(pb->b + pb->n, data, len);
	pb->n += len;
}

size_t xp_pb_begin(struct xp_pb *pb, uint32_t field)
{
	xp_pb_tag(pb, field, XP_PB_LEN);
	if (!xp_pb_reserve(pb, 1))
		return pb->n;
	pb->b[pb->n++] = 0;	/* the length's first byte, filled in by end */
	return pb->n;
}

void xp_pb_end(struct xp_pb *pb, size_t mark)
{
	size_t len, extra;

	if (pb->oom || mark > pb->n || mark == 0)
		return;
	len = pb->n - mark;
	extra = xp_varint_len(len) - 1;
	if (extra) {	/* longer than 127: move the body up to make room */
		if (!xp_pb_reserve(pb, extra))
			return;
		memmove(pb->b + mark + extra, pb->b + mark, len);
		pb->n += extra;
	}
	xp_varint_put(pb->b + mark - 1, len);
}
