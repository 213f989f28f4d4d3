/*
 * Tests for the flight recorder's ring (src/core/flight_ring.c) and its
 * trigger conditions (src/core/flight_trigger.c): the ring keeps what its
 * bounds allow, oldest first out and counted; conditions parse or are refused.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/flight_ring.h"
#include "core/flight_trigger.h"

#include "unit.h"

struct rec {
	struct xp_rec_hdr h;
	uint64_t seq;
};

static struct rec mk(uint64_t seq, uint64_t ts)
{
	struct rec r = { .h = { .type = 1, .size = sizeof(struct rec), .ts_ns = ts }, .seq = seq };

	return r;
}

struct seen {
	uint64_t n, first, last;
	int ordered;
};

static int count(void *ctx, const struct xp_rec_hdr *h)
{
	struct seen *s = ctx;
	uint64_t seq = ((const struct rec *)h)->seq;

	if (!s->n)
		s->first = seq;
	else if (seq != s->last + 1)
		s->ordered = 0;
	s->last = seq;
	s->n++;
	return 0;
}

static void test_ring_bytes_bound(void)
{
	struct xp_fring r;
	uint64_t n = 200000, per_blk = XP_FRING_BLOCK / sizeof(struct rec);
	struct seen s = { .ordered = 1 };

	/* 2 MiB: the newest 7 blocks plus the one being filled, whole */
	xp_fring_init(&r, 2u << 20, 1000000000000ull);
	for (uint64_t i = 0; i < n; i++) {
		struct rec x = mk(i, i);

		CHECK(xp_fring_add(&r, &x.h, 0) == 0);
		CHECK(r.bytes <= r.max_bytes);
	}
	CHECK(r.peak_bytes <= 2u << 20);
	CHECK(r.cut_blocks > 0);
	CHECK_U64(r.cut_records + r.records, n);
	CHECK_U64(r.aged_blocks, 0);
	xp_fring_walk(&r, 0, ~0ull, count, &s);
	CHECK_U64(s.n, r.records);
	CHECK_U64(s.last, n - 1);
	CHECK(s.ordered);
	CHECK(s.n >= 6 * per_blk);
	xp_fring_free(&r);
}

static void test_ring_age_and_window(void)
{
	struct xp_fring r;
	uint64_t per_blk = XP_FRING_BLOCK / sizeof(struct rec), oldest = 0;
	struct seen s = { .ordered = 1 };

	xp_fring_init(&r, 64u << 20, 10);
	/* three blocks' worth, the first arriving at time 0, the rest at 100 */
	for (uint64_t i = 0; i < 3 * per_blk; i++) {
		struct rec x = mk(i, 1000 + i);

		xp_fring_add(&r, &x.h, i < per_blk ? 0 : 100);
	}
	xp_fring_age(&r, 105);
	CHECK_U64(r.aged_blocks, 1);
	CHECK_U64(r.aged_records, per_blk);
	xp_fring_age(&r, 1000);	/* the newest block stays */
	CHECK_U64(r.aged_blocks, 2);
	CHECK(r.records > 0);
	CHECK_U64(r.cut_blocks, 0);
	/* a window: only the records whose time lies in it */
	xp_fring_walk(&r, 1000 + 2 * per_blk + 10, 1000 + 2 * per_blk + 19, count, &s);
	oldest = xp_fring_oldest(&r);
	CHECK_U64(s.n, 10);
	CHECK_U64(s.first, 2 * per_blk + 10);
	CHECK_U64(oldest, 1000 + 2 * per_blk);
	xp_fring_free(&r);
	CHECK_U64(r.records, 0);
}

static void test_trigger_parse(void)
{
	struct xp_trigger t;
	char why[256];

	CHECK(xp_trigger_parse(&t, "sigusr1", why, sizeof(why)) == 0 && t.kind == XP_TRIG_SIGUSR1);
	CHECK_STR(t.label, "sigusr1");
	CHECK(xp_trigger_parse(&t, "ioctl:error", why, sizeof(why)) == 0);
	CHECK(t.kind == XP_TRIG_ERROR && t.err == 0 && !t.name[0]);
	CHECK_STR(t.cap, "ioctl");
	CHECK_STR(t.label, "ioctl-error");
	CHECK(xp_trigger_parse(&t, "ioctl:error=EFAULT:DRM_IOCTL_VERSION", why, sizeof(why)) == 0);
	CHECK(t.err == EFAULT);
	CHECK_STR(t.name, "DRM_IOCTL_VERSION");
	CHECK(xp_trigger_parse(&t, "ioctl:error=22", why, sizeof(why)) == 0 && t.err == 22);
	CHECK(xp_trigger_parse(&t, "ioctl:over=5ms", why, sizeof(why)) == 0);
	CHECK(t.kind == XP_TRIG_OVER && t.over_ns == 5000000);
	CHECK_STR(t.label, "ioctl-over");
	CHECK(xp_trigger_parse(&t, "api:over=1.5s:vkQueueSubmit", why, sizeof(why)) == 0);
	CHECK_U64(t.over_ns, 1500000000);
	CHECK_STR(t.name, "vkQueueSubmit");
	CHECK(xp_trigger_parse(&t, "sched:run=50ms:mock-ring0", why, sizeof(why)) == 0);
	CHECK(t.kind == XP_TRIG_RUN && t.over_ns == 50000000);
	CHECK_STR(t.name, "mock-ring0");
	CHECK_STR(t.label, "sched-run");
	CHECK(xp_trigger_parse(&t, "sched:queue=2ms", why, sizeof(why)) == 0 && t.kind == XP_TRIG_QUEUE);
	CHECK(xp_trigger_parse(&t, "vblank:missed", why, sizeof(why)) == 0 && t.kind == XP_TRIG_MISSED);
	CHECK(xp_trigger_parse(&t, "vblank:missed=3", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "nvidia:xid", why, sizeof(why)) == 0 && t.kind == XP_TRIG_XID && t.err == -1);
	CHECK(xp_trigger_parse(&t, "nvidia:xid=79", why, sizeof(why)) == 0 && t.err == 79);
	CHECK(xp_trigger_parse(&t, "nvidia:xid=x", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "sched:run", why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "after run=") != NULL);
	CHECK(xp_trigger_parse(&t, "ioctl:over", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "ioctl:over=-1ms", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "ioctl:over=5min", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "ioctl:error=EWHAT", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "ioctl:slow", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "ioctl", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, ":error", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "ioctl:error:", why, sizeof(why)) == -EINVAL);
	CHECK(xp_trigger_parse(&t, "averyveryverylongcapname:error", why, sizeof(why)) == -EINVAL);
	CHECK(strstr(why, "--trigger 'averyveryverylongcapname:error'") != NULL);
}

int main(void)
{
	RUN(test_ring_bytes_bound);
	RUN(test_ring_age_and_window);
	RUN(test_trigger_parse);
	UNIT_EXIT();
}
