/* The trace file reader (`report`, `export`). The format is described in tracefile.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/utsname.h>

#include "core/decode.h"
#include "core/tracefile.h"
#include "core/tracefile_int.h"
#include "core/record_kind.h"
#include "core/zstd.h"

/* ---- reader ----------------------------------------------------------- */

int xp_tf_fail(struct xp_trace_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	return err;
}

#define fail xp_tf_fail

/* Reads up to n bytes; returns how many (fewer only at the end of the file). */
static size_t read_some(struct xp_trace_reader *r, void *p, size_t n)
{
	size_t got = fread(p, 1, n, r->f);

	r->offset += got;
	return got;
}

/*
 * The next block into r->buf. Returns 1 with a whole, checked block; 0 at the
 * end of the file (r->truncated when it ends inside a block); <0 on error.
 */
static int next_block(struct xp_trace_reader *r, uint32_t *kind, uint32_t *len, uint32_t *count)
{
	uint8_t h[XP_TF_BLOCK_HDR];
	uint64_t at = r->offset;
	size_t got, want;

	got = read_some(r, h, sizeof(h));
	if (ferror(r->f))
		return fail(r, -EIO, "read error at offset %llu", (unsigned long long)r->offset);
	if (got == 0)
		return 0;
	if (got < sizeof(h)) {
		r->truncated = true;
		return 0;
	}
	if (CRC_MISMATCH(xp_crc32(0, h, 16), get32(h + 16)) || get32(h + 20))
		return fail(r, -EBADMSG, "corrupt trace file: the block header at offset %llu fails its check",
			    (unsigned long long)at);
	*kind = get32(h);
	*len = get32(h + 4);
	*count = get32(h + 8);
	if (*len > XP_TF_MAX_BLOCK)
		return fail(r, -EBADMSG, "corrupt trace file: block at offset %llu claims %u bytes (at most %u)",
			    (unsigned long long)at, *len, XP_TF_MAX_BLOCK);
	want = pad8(*len);
	if (want > r->cap) {
		uint8_t *p = realloc(r->buf, want);

		if (!p)
			return fail(r, -ENOMEM, "out of memory reading a %u-byte block", *len);
		r->buf = p;
		r->cap = want;
	}
	got = read_some(r, r->buf, want);
	if (ferror(r->f))
		return fail(r, -EIO, "read error at offset %llu", (unsigned long long)r->offset);
	if (got < want) {
		r->truncated = true;
		return 0;
	}
	for (size_t i = *len; i < want; i++)
		if (r->buf[i])
			return fail(r, -EBADMSG, "corrupt trace file: %s block at offset %llu has non-zero padding",
				    xp_tf_block_name(*kind), (unsigned long long)at);
	if (CRC_MISMATCH(xp_crc32(0, r->buf, *len), get32(h + 12)))
		return fail(r, -EBADMSG, "corrupt trace file: %s block at offset %llu fails its CRC check",
			    xp_tf_block_name(*kind), (unsigned long long)at);
	return 1;
}

static int read_plans(struct xp_trace_reader *r)
{
	uint32_t kind, len, count;
	int err = next_block(r, &kind, &len, &count);

	if (err < 0)
		return err;
	if (err == 0)
		return fail(r, -EBADMSG, "trace file ends before its packing block");
	if (kind != XP_TF_PACKING)
		return fail(r, -EBADMSG, "corrupt trace file: %s block where the packing block belongs",
			    xp_tf_block_name(kind));
	return xp_tf_parse_plans(r, r->buf, len, count);
}

int xp_trace_reader_open(struct xp_trace_reader *r, FILE *f)
{
	uint8_t fh[XP_TF_FILE_HDR];
	uint32_t kind, len, count, hsize;
	int err;

	memset(r, 0, sizeof(*r));
	r->f = f;
	if (read_some(r, fh, sizeof(fh)) < sizeof(fh) || memcmp(fh, XP_TF_MAGIC, 8)) {
		if (ferror(f))
			return fail(r, -EIO, "read error");
		return fail(r, -EPROTO, "not an xputrace trace file");
	}
	r->version_major = get16(fh + 8);
	r->version_minor = get16(fh + 10);
	hsize = get32(fh + 12);
	if (r->version_major != XP_TF_VERSION_MAJOR && r->version_major != XP_TF_RAW_MAJOR)
		return fail(r, -EPROTO, "trace file format %u.%u; this xputrace reads formats %u.x and %u.x",
			    r->version_major, r->version_minor, XP_TF_RAW_MAJOR, XP_TF_VERSION_MAJOR);
	if (hsize < XP_TF_FILE_HDR || hsize > 4096)
		return fail(r, -EBADMSG, "corrupt trace file: header size %u", hsize);
	for (uint32_t i = XP_TF_FILE_HDR; i < hsize; i++)
		if (fgetc(f) == EOF)
			return fail(r, -EBADMSG, "trace file ends inside its header");
		else
			r->offset++;
	for (int want = XP_TF_META; want <= XP_TF_LAYOUT; want++) {	/* then PACKING in format 2 */
		err = next_block(r, &kind, &len, &count);
		if (err < 0)
			return err;
		if (err == 0)
			return fail(r, -EBADMSG, "trace file ends before its %s block", xp_tf_block_name(want));
		if (kind != (uint32_t)want)
			return fail(r, -EBADMSG, "corrupt trace file: %s block where the %s block belongs",
				    xp_tf_block_name(kind), xp_tf_block_name(want));
		err = want == XP_TF_META ? xp_tf_parse_meta(r, r->buf, len, count)
					 : xp_tf_check_layout(r, r->buf, len, count);
		if (err)
			return err;
	}
	return r->version_major >= 2 ? read_plans(r) : 0;
}

static int parse_stats(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count,
		       uint64_t at)
{
	if (count > 64 || len != 16 + 8 * count)
		return fail(r, -EBADMSG, "corrupt trace file: stats block at offset %llu has %u bytes for %u counters",
			    (unsigned long long)at, len, count);
	r->stats.ts_ns = get64(p);
	r->stats.records = get64(p + 8);
	/* a whole block taken out passes every CRC: the running count does not */
	if (r->stats.records != r->records + r->skipped)
		return fail(r, -EBADMSG, "corrupt trace file: blocks are missing before offset %llu (%llu records written, %llu found)",
			    (unsigned long long)at, (unsigned long long)r->stats.records,
			    (unsigned long long)(r->records + r->skipped));
	for (uint32_t i = 0; i < XP_DROP_ALL; i++)
		r->stats.drops[i] = i < count ? get64(p + 16 + 8 * i) : 0;
	return 0;
}

/* One record of a block, checked by the decoder, to fn. */
static int deliver(struct xp_trace_reader *r, const uint8_t *rec, uint16_t size, uint32_t n, uint64_t at,
		   xp_trace_record_fn fn, void *ctx)
{
	const struct xp_rec_hdr *h;
	int err;

	h = xp_decode(rec, size, &err);
	if (h) {
		r->records++;
		if (h->ts_ns > r->last_ts_ns)
			r->last_ts_ns = h->ts_ns;
		if (fn && (err = fn(ctx, h)) < 0)
			return err;
	} else if (err == -ENOENT) {
		r->skipped++;
	} else {
		return fail(r, -EBADMSG, "corrupt trace file: record %u of the block at offset %llu is malformed (type %u, %u bytes)",
			    n, (unsigned long long)at, get16(rec), size);
	}
	return 0;
}

static int parse_events(struct xp_trace_reader *r, uint32_t len, uint32_t count, uint64_t at,
			xp_trace_record_fn fn, void *ctx)
{
	uint32_t pos = 0, n = 0;

	while (pos < len) {
		uint16_t size;
		int err;

		if (len - pos < sizeof(struct xp_rec_hdr))
			return fail(r, -EBADMSG, "corrupt trace file: record %u of the block at offset %llu is cut short",
				    n, (unsigned long long)at);
		size = get16(r->buf + pos + offsetof(struct xp_rec_hdr, size));
		if (size < sizeof(struct xp_rec_hdr) || size > len - pos)
			return fail(r, -EBADMSG, "corrupt trace file: record %u of the block at offset %llu has size %u",
				    n, (unsigned long long)at, size);
		/* pos is a multiple of 8 in a malloc'd buffer: the record is aligned */
		if ((err = deliver(r, r->buf + pos, size, n, at, fn, ctx)))
			return err;
		n++;
		if (pad8(size) >= len - pos)
			break;
		pos += (uint32_t)pad8(size);
	}
	if (n != count)
		return fail(r, -EBADMSG, "corrupt trace file: block at offset %llu holds %u records, its header says %u",
			    (unsigned long long)at, n, count);
	return 0;
}

/* A PACKED block's records, decompressed if need be, in *p and *end. */
static int packed_data(struct xp_trace_reader *r, uint32_t len, uint64_t at, const uint8_t **p,
		       const uint8_t **end)
{
	uint32_t how, plain;
	int err;

	if (len < 8 || get32(r->buf) > XP_TF_ZSTD)
		return fail(r, -EBADMSG, "corrupt trace file: packed block at offset %llu has a bad head",
			    (unsigned long long)at);
	how = get32(r->buf);
	plain = get32(r->buf + 4);
	if (how == XP_TF_PLAIN) {
		if (plain != len - 8)
			return fail(r, -EBADMSG, "corrupt trace file: packed block at offset %llu has %u bytes, its head says %u",
				    (unsigned long long)at, len - 8, plain);
		*p = r->buf + 8;
		*end = *p + plain;
		return 0;
	}
	r->zstd_blocks++;
	if (plain > XP_TF_MAX_BLOCK)
		return fail(r, -EBADMSG, "corrupt trace file: packed block at offset %llu unpacks to %u bytes (at most %u)",
			    (unsigned long long)at, plain, XP_TF_MAX_BLOCK);
	if (plain > r->unz_cap) {
		uint8_t *u = realloc(r->unz, plain);

		if (!u)
			return fail(r, -ENOMEM, "out of memory unpacking a %u-byte block", plain);
		r->unz = u;
		r->unz_cap = plain;
	}
	if ((err = xp_zstd_unpack(r->buf + 8, len - 8, r->unz, plain)) == -ENOTSUP)
		return fail(r, -EPROTO, "trace file has zstd blocks; this xputrace was built without zstd");
	if (err)
		return fail(r, err, "corrupt trace file: zstd block at offset %llu does not decompress",
			    (unsigned long long)at);
	*p = r->unz;
	*end = r->unz + plain;
	return 0;
}

static int parse_packed(struct xp_trace_reader *r, uint32_t len, uint32_t count, uint64_t at,
			xp_trace_record_fn fn, void *ctx)
{
	const uint8_t *p = NULL, *end = NULL;
	const char *why;
	uint32_t n = 0;
	int err;

	if (!r->pack)
		return fail(r, -EBADMSG, "corrupt trace file: packed records at offset %llu in a format %u file",
			    (unsigned long long)at, r->version_major);
	if ((err = packed_data(r, len, at, &p, &end)))
		return err;
	xp_pack_reset(r->pack);
	for (; p < end; n++) {
		if (n == count)
			break;
		if (xp_unpack_rec(r->pack, &p, end, r->rec, &why))
			return fail(r, -EBADMSG, "corrupt trace file: record %u of the block at offset %llu: %s",
				    n, (unsigned long long)at, why);
		if ((err = deliver(r, (const uint8_t *)r->rec, ((struct xp_rec_hdr *)r->rec)->size, n, at, fn, ctx)))
			return err;
	}
	if (n != count || p != end)
		return fail(r, -EBADMSG, "corrupt trace file: block at offset %llu holds %s records than its header's %u",
			    (unsigned long long)at, n < count ? "fewer" : "more", count);
	return 0;
}

int xp_trace_reader_run(struct xp_trace_reader *r, xp_trace_record_fn fn, void *ctx)
{
	uint32_t kind, len, count;
	int err;

	for (;;) {
		uint64_t at = r->offset;

		err = next_block(r, &kind, &len, &count);
		if (err < 0)
			return err;
		if (err == 0)
			break;
		err = 0;
		if (r->complete)
			return fail(r, -EBADMSG, "corrupt trace file: a %s block at offset %llu follows the trailer",
				    xp_tf_block_name(kind), (unsigned long long)at);
		switch (kind) {
		case XP_TF_EVENTS:
			r->event_blocks++;
			r->event_bytes += XP_TF_BLOCK_HDR + pad8(len);
			err = parse_events(r, len, count, at, fn, ctx);
			break;
		case XP_TF_PACKED:
			r->event_blocks++;
			r->event_bytes += XP_TF_BLOCK_HDR + pad8(len);
			err = parse_packed(r, len, count, at, fn, ctx);
			break;
		case XP_TF_STATS:
		case XP_TF_TRAILER:
			err = parse_stats(r, r->buf, len, count, at);
			r->complete = kind == XP_TF_TRAILER;
			break;
		case XP_TF_META:
		case XP_TF_LAYOUT:
		case XP_TF_PACKING:
			err = fail(r, -EBADMSG, "corrupt trace file: a second %s block at offset %llu",
				   xp_tf_block_name(kind), (unsigned long long)at);
			break;
		default:
			break;	/* a newer writer's block: checked, then skipped */
		}
		if (err)
			return err;
	}
	if (!r->complete) {
		/* the recorder was killed: keep what was whole */
		r->truncated = true;
		snprintf(r->error, sizeof(r->error),
			 "trace file is cut short (no trailer): read %llu records up to offset %llu; drops counted until then: %llu",
			 (unsigned long long)r->records, (unsigned long long)r->offset,
			 (unsigned long long)(r->stats.drops[XP_DROP_RINGBUF] + r->stats.drops[XP_DROP_MAP_FULL] +
					      r->stats.drops[XP_DROP_KERNEL_MISSED]));
	}
	return 0;
}

void xp_trace_reader_close(struct xp_trace_reader *r)
{
	xp_trace_meta_free_layouts(&r->meta);
	xp_pack_free(r->pack);
	r->pack = NULL;
	free(r->rec);
	r->rec = NULL;
	free(r->unz);
	r->unz = NULL;
	r->unz_cap = 0;
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}
