/*
 * Tests for src/core/decode.c: every raw record (ring buffer or trace file)
 * goes through xp_decode before analysis, so a short, oversized or unknown
 * record must never come back as a pointer.
 */
#include <errno.h>
#include <stdint.h>

#include "core/decode.h"
#include "caps/ioctl/ioctl.h"

#include "unit.h"
#include "kinds.h"

/* Room for a record and some bytes after it, aligned like the ring buffer. */
/* a type no capability claims (XP_REC_TYPE_MAX is the next capability's id: fence's) */
#define UNCLAIMED 0x0fff

static union {
	struct xp_ioctl_rec rec;
	uint64_t align;
	unsigned char bytes[512];
} buf;

static struct xp_rec_hdr *hdr(uint16_t type, uint16_t size)
{
	memset(&buf, 0xa5, sizeof(buf));
	buf.rec.hdr.type = type;
	buf.rec.hdr.size = size;
	buf.rec.hdr.cpu = 3;
	buf.rec.hdr.ts_ns = 123456789;
	buf.rec.hdr.pid = 42;
	buf.rec.hdr.tid = 43;
	return &buf.rec.hdr;
}

#define CHECK_REJECT(len, want_err)                                              \
	do {                                                                     \
		int err_ = 12345;                                                \
		const struct xp_rec_hdr *r_ = xp_decode(&buf, (len), &err_);     \
		CHECK(r_ == NULL);                                               \
		CHECK_U64((int64_t)err_, (int64_t)(want_err));                   \
	} while (0)

static void test_layout(void)
{
	/* shared with the BPF side: these sizes are the wire format */
	CHECK_U64(sizeof(struct xp_rec_hdr), 24);
	CHECK_U64(sizeof(struct xp_ioctl_rec), 80);
	CHECK_U64(xp_rec_min_size(XP_REC_IOCTL), sizeof(struct xp_ioctl_rec));
	CHECK_U64(xp_rec_min_size(XP_REC_NONE), 0);
	CHECK_U64(xp_rec_min_size(UNCLAIMED), 0);
	CHECK_U64(xp_rec_min_size(0xffff), 0);
	CHECK_U64(xp_rec_min_size(0x10001), 0);
}

static void test_too_short(void)
{
	const size_t h = sizeof(struct xp_rec_hdr);
	int err = 0;

	/* no data at all */
	CHECK(xp_decode(NULL, 100, &err) == NULL);
	CHECK_U64((int64_t)err, -EBADMSG);
	hdr(XP_REC_IOCTL, sizeof(struct xp_ioctl_rec));
	CHECK_REJECT(0, -EBADMSG);
	CHECK_REJECT(1, -EBADMSG);
	/* shorter than a header, whatever the header claims */
	CHECK_REJECT(h - 1, -EBADMSG);
	hdr(XP_REC_IOCTL, 4);
	CHECK_REJECT(h - 1, -EBADMSG);
}

static void test_size_smaller_than_header(void)
{
	const size_t h = sizeof(struct xp_rec_hdr);

	/* size 0 would make a reader loop forever on the same bytes */
	hdr(XP_REC_IOCTL, 0);
	CHECK_REJECT(sizeof(struct xp_ioctl_rec), -EBADMSG);
	hdr(XP_REC_IOCTL, 8);
	CHECK_REJECT(sizeof(struct xp_ioctl_rec), -EBADMSG);
	hdr(XP_REC_IOCTL, (uint16_t)(h - 1));
	CHECK_REJECT(sizeof(struct xp_ioctl_rec), -EBADMSG);
	/* also for a type the reader would otherwise skip */
	hdr(0x7777, 0);
	CHECK_REJECT(100, -EBADMSG);
	hdr(0x7777, (uint16_t)(h - 1));
	CHECK_REJECT(100, -EBADMSG);
}

static void test_size_larger_than_len(void)
{
	const size_t rs = sizeof(struct xp_ioctl_rec);

	hdr(XP_REC_IOCTL, (uint16_t)rs);
	CHECK_REJECT(rs - 1, -EBADMSG);
	CHECK_REJECT(sizeof(struct xp_rec_hdr), -EBADMSG);
	hdr(XP_REC_IOCTL, 0xffff);
	CHECK_REJECT(sizeof(buf), -EBADMSG);
	/* an unknown type that claims more than there is is malformed, not skippable */
	hdr(0x7777, 200);
	CHECK_REJECT(199, -EBADMSG);
}

static void test_unknown_type(void)
{
	const size_t h = sizeof(struct xp_rec_hdr);
	static const uint16_t types[] = { XP_REC_NONE, UNCLAIMED, 0x7777, 0xffff };

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		/* header only, and with a payload */
		hdr(types[i], (uint16_t)h);
		CHECK_REJECT(h, -ENOENT);
		hdr(types[i], 64);
		CHECK_REJECT(64, -ENOENT);
		CHECK_REJECT(sizeof(buf), -ENOENT);
	}
}

static void test_known_type_too_small(void)
{
	const size_t h = sizeof(struct xp_rec_hdr), rs = sizeof(struct xp_ioctl_rec);

	hdr(XP_REC_IOCTL, (uint16_t)h);
	CHECK_REJECT(h, -EBADMSG);
	CHECK_REJECT(sizeof(buf), -EBADMSG);
	hdr(XP_REC_IOCTL, (uint16_t)(rs - 1));
	CHECK_REJECT(rs - 1, -EBADMSG);
	CHECK_REJECT(sizeof(buf), -EBADMSG);
	hdr(XP_REC_IOCTL, 40);
	CHECK_REJECT(rs, -EBADMSG);
}

static void test_good_records(void)
{
	const size_t rs = sizeof(struct xp_ioctl_rec);
	const struct xp_rec_hdr *r;
	int err;

	/* exactly one record */
	hdr(XP_REC_IOCTL, (uint16_t)rs);
	buf.rec.cmd = 0xc0406400u;
	buf.rec.ret = -25;
	err = 12345;
	r = xp_decode(&buf, rs, &err);
	CHECK(r == &buf.rec.hdr);
	CHECK_U64(err, 0);
	if (r) {
		const struct xp_ioctl_rec *io = (const struct xp_ioctl_rec *)r;

		CHECK_U64(r->type, XP_REC_IOCTL);
		CHECK_U64(r->pid, 42);
		CHECK_U64(io->cmd, 0xc0406400u);
		CHECK(io->ret == -25);
	}
	/* followed by more bytes (the next record) */
	err = 12345;
	r = xp_decode(&buf, sizeof(buf), &err);
	CHECK(r == &buf.rec.hdr);
	CHECK_U64(err, 0);
	/* from a later version, with fields this build does not know */
	hdr(XP_REC_IOCTL, (uint16_t)(rs + 16));
	err = 12345;
	r = xp_decode(&buf, rs + 16, &err);
	CHECK(r == &buf.rec.hdr);
	CHECK_U64(err, 0);
	/* and one byte short of that is not whole */
	CHECK_REJECT(rs + 15, -EBADMSG);
}

int main(void)
{
	use_record_kinds();
	RUN(test_layout);
	RUN(test_too_short);
	RUN(test_size_smaller_than_header);
	RUN(test_size_larger_than_len);
	RUN(test_unknown_type);
	RUN(test_known_type_too_small);
	RUN(test_good_records);
	UNIT_EXIT();
}
