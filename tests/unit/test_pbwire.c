/*
 * Tests for src/sinks/pbwire.c, the protobuf wire writer, and for the
 * packets the Perfetto writer's protobuf format makes of a few events
 * (src/sinks/perfetto_proto.c), read back by a small reader of the wire format.
 * The end-to-end check against protoc and the JSON export is
 * tests/e2e/check_perfetto_pb.py.
 */
#include <stdlib.h>

#include "sinks/pbwire.h"
#include "sinks/perfetto.h"

#include "unit.h"

static bool same(const struct xp_pb *pb, const uint8_t *want, size_t n)
{
	return pb->n == n && !memcmp(pb->b, want, n);
}

static void test_varints(void)
{
	static const struct { uint64_t v; size_t n; uint8_t b[10]; } c[] = {
		{ 0, 1, { 0 } },
		{ 1, 1, { 1 } },
		{ 127, 1, { 0x7f } },
		{ 128, 2, { 0x80, 0x01 } },
		{ 300, 2, { 0xac, 0x02 } },
		{ 16383, 2, { 0xff, 0x7f } },
		{ 16384, 3, { 0x80, 0x80, 0x01 } },
		{ 1ull << 32, 5, { 0x80, 0x80, 0x80, 0x80, 0x10 } },
		{ UINT64_MAX, 10, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01 } },
	};

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		struct xp_pb pb = { 0 };

		xp_pb_varint(&pb, c[i].v);
		CHECK_U64(xp_varint_len(c[i].v), c[i].n);
		CHECK(same(&pb, c[i].b, c[i].n));
		xp_pb_free(&pb);
	}
}

static void test_fields(void)
{
	struct xp_pb pb = { 0 };
	/* field 1 = 150; field 2 = "testing"; field 47 fixed64 = 1; int64 field 3 = -2 */
	static const uint8_t want[] = {
		0x08, 0x96, 0x01,
		0x12, 0x07, 't', 'e', 's', 't', 'i', 'n', 'g',
		0xf9, 0x02, 0x01, 0, 0, 0, 0, 0, 0, 0,
		0x18, 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
	};

	xp_pb_uint(&pb, 1, 150);
	xp_pb_str(&pb, 2, "testing");
	xp_pb_fixed64(&pb, 47, 1);
	xp_pb_int(&pb, 3, -2);
	CHECK(same(&pb, want, sizeof(want)));
	xp_pb_free(&pb);
}

/* Nested messages: a short one keeps its one length byte, a long one is moved up. */
static void test_nested(void)
{
	struct xp_pb pb = { 0 };
	char body[200];
	size_t outer, inner;

	memset(body, 'x', sizeof(body));
	outer = xp_pb_begin(&pb, 1);
	xp_pb_uint(&pb, 2, 1);
	xp_pb_end(&pb, outer);
	CHECK(same(&pb, (const uint8_t[]){ 0x0a, 0x02, 0x10, 0x01 }, 4));

	pb.n = 0;
	outer = xp_pb_begin(&pb, 1);
	inner = xp_pb_begin(&pb, 3);
	xp_pb_bytes(&pb, 4, body, sizeof(body));	/* 2 + 1 + 200 = 203 bytes inside field 3 */
	xp_pb_end(&pb, inner);
	xp_pb_uint(&pb, 5, 7);
	xp_pb_end(&pb, outer);
	/* outer: tag, length 208 (0xd0 0x01); inner: tag, 203 (0xcb 0x01); bytes: tag, 200 (0xc8 0x01) */
	CHECK_U64(pb.n, 3 + 3 + 3 + 200 + 2);
	CHECK(!memcmp(pb.b, (const uint8_t[]){ 0x0a, 0xd0, 0x01, 0x1a, 0xcb, 0x01, 0x22, 0xc8, 0x01 }, 9));
	CHECK(pb.b[9] == 'x' && pb.b[208] == 'x');
	CHECK(pb.b[209] == 0x28 && pb.b[210] == 0x07);
	CHECK(!pb.oom);
	xp_pb_free(&pb);
}

/* A reader of the wire format, enough for the tests below. */
struct rd { const uint8_t *p, *end; };

static uint64_t rd_varint(struct rd *r)
{
	uint64_t v = 0;

	for (int s = 0; r->p < r->end && s < 64; s += 7) {
		uint8_t b = *r->p++;

		v |= (uint64_t)(b & 0x7f) << s;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* The next field: its number, and its value or its bytes. */
static bool rd_field(struct rd *r, uint32_t *field, uint64_t *v, struct rd *sub)
{
	uint64_t key;

	if (r->p >= r->end)
		return false;
	key = rd_varint(r);
	*field = (uint32_t)(key >> 3);
	switch (key & 7) {
	case 0: *v = rd_varint(r); return true;
	case 1: memcpy(v, r->p, 8); r->p += 8; return true;
	case 2:
		*v = rd_varint(r);
		sub->p = r->p;
		sub->end = r->p + *v;
		r->p += *v;
		return r->p <= r->end;
	default: return false;
	}
}

/* The value of a varint field of a message; `miss` when absent. */
static uint64_t field_of(struct rd m, uint32_t want, uint64_t miss)
{
	uint32_t f;
	uint64_t v;
	struct rd sub;

	while (rd_field(&m, &f, &v, &sub))
		if (f == want)
			return v;
	return miss;
}

static struct rd sub_of(struct rd m, uint32_t want)
{
	uint32_t f;
	uint64_t v;
	struct rd sub = { NULL, NULL }, none = { NULL, NULL };

	while (rd_field(&m, &f, &v, &sub))
		if (f == want)
			return sub;
	return none;
}

/*
 * The packets of two slices, the second nested in the first, and a flow:
 * the first packet sets up the sequence's clock of deltas and makes it the
 * default; events' times are deltas on it, the ends held back so that the
 * nested slice's end comes before its parent's, and no time goes back.
 */
static void test_perfetto_packets(void)
{
	char *buf = NULL;
	size_t len = 0, npk = 0, nev = 0, nabs = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xp_perfetto p;
	uint64_t flows = 0, ends = 0, clock = 0, begins[2] = { 0, 0 }, endts[2] = { 0, 0 };
	struct rd r, pk = { NULL, NULL };
	uint32_t fld;
	uint64_t v;
	int nb = 0, ne = 0;

	CHECK(xp_perfetto_begin_proto(&p, f, 1000) == 0);
	xp_perfetto_name(&p, 10, 11, "worker");
	xp_perfetto_slice_begin(&p, 10, 11, "ioctl", "submit", 1500, 700);	/* 500..1200 */
	xp_json_ku64(&p.j, "ignored", 1);	/* args go nowhere in this format */
	xp_perfetto_slice_end(&p);
	xp_perfetto_slice_begin(&p, 10, 11, "ioctl", "submit", 2000, 100);	/* 1000..1100, inside */
	xp_perfetto_slice_end(&p);
	xp_perfetto_flow(&p, 7, true, 10, 11, 1550);
	xp_perfetto_flow(&p, 7, false, 10, 11, 2050);
	xp_perfetto_end(&p, NULL);
	fclose(f);
	r = (struct rd){ (const uint8_t *)buf, (const uint8_t *)buf + len };
	while (rd_field(&r, &fld, &v, &pk)) {
		struct rd te = sub_of(pk, 11), cs = sub_of(pk, 6), def = sub_of(pk, 59);
		uint64_t ts, type;

		CHECK_U64(fld, 1);
		CHECK_U64(field_of(pk, 10, 0), 1);	/* one sequence */
		if (npk++ == 0) {
			/* clears the state; BOOTTIME 0 is 0 on clock 64, incremental, the default */
			CHECK_U64(field_of(pk, 13, 0), 1);
			CHECK(cs.p && def.p);
			CHECK_U64(field_of(def, 58, 0), 64);
			for (int k = 0; k < 2; k++) {
				struct rd c = sub_of(cs, 1);

				CHECK(c.p != NULL);
				if (!c.p)
					break;
				if (field_of(c, 1, 0) == 64)
					CHECK_U64(field_of(c, 3, 0), 1);
				else
					CHECK_U64(field_of(c, 1, 0), 6);
				CHECK_U64(field_of(c, 2, 1), 0);
				cs.p = c.end;	/* the next clock */
			}
			continue;
		}
		if (!te.p)
			continue;
		nev++;
		CHECK_U64(field_of(pk, 13, 0), 2);	/* every event needs the clock */
		ts = field_of(pk, 8, UINT64_MAX);
		if (field_of(pk, 58, 64) == 6) {
			nabs++;
		} else {
			CHECK_U64(field_of(pk, 58, 64), 64);
			ts = clock += ts;
		}
		type = field_of(te, 9, 0);
		if (type == 1 && nb < 2) {
			begins[nb++] = ts;
			flows += field_of(te, 47, 0);
			ends += field_of(te, 48, 0);
		} else if (type == 2 && ne < 2) {
			endts[ne++] = ts;
		}
	}
	CHECK_U64(nev, 4);	/* two begins, two ends */
	CHECK_U64(begins[0], 500);
	CHECK_U64(endts[0], 1100);
	CHECK_U64(begins[1], 1000);
	CHECK_U64(endts[1], 1200);	/* the parent's end after the nested one's */
	CHECK_U64(nabs, 0);
	CHECK_U64(flows, 7);	/* the flow starts on the first slice... */
	CHECK_U64(ends, 7);	/* ...and ends on the second */
	CHECK(npk >= 7);	/* the clock, the thread and the process */
	free(buf);
}

/*
 * A run of events on one thread makes its track the default: a packet of
 * TracePacketDefaults (still on the sequence's clock) names it, and events
 * on it after that name no track; an event on another thread still does.
 */
static void test_perfetto_default_track(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xp_perfetto p;
	struct rd r, pk = { NULL, NULL };
	uint32_t fld;
	uint64_t v, deflt = 0, named = 0, unnamed = 0, other = 0;
	int ndefaults = 0;

	CHECK(xp_perfetto_begin_proto(&p, f, 0) == 0);
	xp_perfetto_name(&p, 10, 10, "main");	/* track 1 */
	xp_perfetto_name(&p, 10, 12, "other");	/* track 2 */
	for (int i = 0; i < 10; i++)
		xp_perfetto_slice_begin(&p, 10, 10, "c", "s", 100 + 10 * (uint64_t)i, 5);
	xp_perfetto_instant_begin(&p, 10, 12, "c", "i", 300);
	xp_perfetto_end(&p, NULL);
	fclose(f);
	r = (struct rd){ (const uint8_t *)buf, (const uint8_t *)buf + len };
	while (rd_field(&r, &fld, &v, &pk)) {
		struct rd def = sub_of(pk, 59), te = sub_of(pk, 11);

		if (def.p) {
			ndefaults++;
			CHECK_U64(field_of(def, 58, 0), 64);	/* the clock stays the default */
			if (sub_of(def, 11).p)
				deflt = field_of(sub_of(def, 11), 11, 0);
		}
		if (!te.p)
			continue;
		if (field_of(te, 11, 0) == 2)
			other++;
		else if (field_of(te, 11, 0) == 1)
			named++;
		else if (deflt == 1)
			unnamed++;
	}
	CHECK_U64(ndefaults, 2);	/* the first packet's, and track 1's */
	CHECK_U64(deflt, 1);
	CHECK_U64(named, 3);	/* before the run made it the default */
	CHECK_U64(unnamed, 17);	/* 20 events in all */
	CHECK_U64(other, 1);
	free(buf);
}

/* An event before the last one written: its time on BOOTTIME in full, the clock of deltas left as it was. */
static void test_perfetto_time_back(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xp_perfetto p;
	struct rd r, pk = { NULL, NULL };
	uint32_t fld;
	uint64_t v, clock = 0, got[3];
	int n = 0;

	CHECK(xp_perfetto_begin_proto(&p, f, 0) == 0);
	xp_perfetto_instant_begin(&p, 1, 1, "c", "a", 5000);
	xp_perfetto_instant_begin(&p, 1, 1, "c", "b", 4000);
	xp_perfetto_instant_begin(&p, 1, 1, "c", "c", 6000);
	xp_perfetto_end(&p, NULL);
	fclose(f);
	r = (struct rd){ (const uint8_t *)buf, (const uint8_t *)buf + len };
	while (rd_field(&r, &fld, &v, &pk) && n < 3) {
		if (!sub_of(pk, 11).p)
			continue;
		if (field_of(pk, 58, 64) == 6)
			got[n++] = field_of(pk, 8, 0);
		else
			got[n++] = clock += field_of(pk, 8, 0);
	}
	CHECK_U64(n, 3);
	CHECK_U64(got[0], 5000);
	CHECK_U64(got[1], 4000);
	CHECK_U64(got[2], 6000);	/* a delta of 1000 from the first */
	free(buf);
}

/* The names of the tracks described under `parent`, in order, into out. */
static int child_names(const char *buf, size_t len, uint64_t parent, char out[][32], int max)
{
	struct rd r = { (const uint8_t *)buf, (const uint8_t *)buf + len }, pk = { NULL, NULL };
	uint32_t fld;
	uint64_t v;
	int n = 0;

	while (rd_field(&r, &fld, &v, &pk) && n < max) {
		struct rd td = sub_of(pk, 60), name;

		if (!td.p || field_of(td, 5, 0) != parent)
			continue;
		name = sub_of(td, 2);
		if (name.p)
			snprintf(out[n++], 32, "%.*s", (int)(name.end - name.p), (const char *)name.p);
	}
	return n;
}

/* Overlapping async spans go on tracks of their own under their thread; the open one stays open. */
static void test_async_lanes(void)
{
	char *buf = NULL, names[8][32];
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct xp_perfetto p;
	int n;

	CHECK(xp_perfetto_begin_proto(&p, f, 0) == 0);
	xp_perfetto_name(&p, 5, 5, "app");	/* its track is uuid 1 */
	xp_perfetto_async(&p, true, 5, 5, "q", "queued", 1, 100);
	xp_perfetto_async(&p, true, 5, 5, "q", "queued", 2, 150);
	xp_perfetto_async(&p, false, 5, 5, "q", "queued", 1, 200);
	xp_perfetto_async(&p, false, 5, 5, "q", "queued", 2, 250);
	xp_perfetto_async(&p, true, 5, 5, "q", "queued", 3, 300);	/* after both: the first lane again */
	xp_perfetto_async(&p, false, 5, 5, "q", "queued", 3, 310);
	xp_perfetto_async(&p, true, 5, 5, "q", "queued", 4, 400);	/* never ends */
	xp_perfetto_async(&p, false, 5, 5, "q", "queued", 9, 500);	/* never began: dropped */
	xp_perfetto_end(&p, NULL);
	fclose(f);
	n = child_names(buf, len, 1, names, 8);
	CHECK_U64(n, 2);
	CHECK_STR(names[0], "queued");
	CHECK_STR(names[1], "queued (2)");
	CHECK(!p.oom);
	free(buf);
}

int main(void)
{
	RUN(test_varints);
	RUN(test_fields);
	RUN(test_nested);
	RUN(test_perfetto_packets);
	RUN(test_perfetto_default_track);
	RUN(test_perfetto_time_back);
	RUN(test_async_lanes);
	UNIT_EXIT();
}
