/* zstd for PACKED blocks (zstd.h). */
#include <errno.h>
#include <stdlib.h>

#include "core/tracefile.h"
#include "core/tracefile_int.h"
#include "core/zstd.h"

#ifdef XP_HAVE_ZSTD
#include <zstd.h>

struct xp_zstd {
	ZSTD_CCtx *cctx;
	uint8_t *out;	/* the 8-byte head, then the frame */
	size_t cap;
};

bool xp_trace_zstd(void)
{
	return true;
}

struct xp_zstd *xp_zstd_new(int level, size_t max_in)
{
	struct xp_zstd *z = calloc(1, sizeof(*z));

	if (!z)
		return NULL;
	z->cap = ZSTD_compressBound(max_in);
	z->cctx = ZSTD_createCCtx();
	z->out = malloc(8 + z->cap);
	if (!z->cctx || !z->out ||
	    ZSTD_isError(ZSTD_CCtx_setParameter(z->cctx, ZSTD_c_compressionLevel, level))) {
		xp_zstd_free(z);
		return NULL;
	}
	return z;
}

void xp_zstd_free(struct xp_zstd *z)
{
	if (!z)
		return;
	ZSTD_freeCCtx(z->cctx);
	free(z->out);
	free(z);
}

size_t xp_zstd_pack(struct xp_zstd *z, const void *src, size_t len)
{
	size_t n = ZSTD_compress2(z->cctx, z->out + 8, z->cap, src, len);

	if (ZSTD_isError(n))
		return 0;
	put32(z->out, XP_TF_ZSTD);
	put32(z->out + 4, (uint32_t)len);
	return n;
}

const uint8_t *xp_zstd_out(const struct xp_zstd *z)
{
	return z->out;
}

int xp_zstd_unpack(const void *src, size_t len, void *dst, size_t dstlen)
{
	size_t n = ZSTD_decompress(dst, dstlen, src, len);

	return ZSTD_isError(n) || n != dstlen ? -EBADMSG : 0;
}

#else /* no libzstd in this build */

bool xp_trace_zstd(void)
{
	return false;
}

struct xp_zstd *xp_zstd_new(int level, size_t max_in)
{
	(void)level;
	(void)max_in;
	return NULL;
}

void xp_zstd_free(struct xp_zstd *z)
{
	(void)z;
}

size_t xp_zstd_pack(struct xp_zstd *z, const void *src, size_t len)
{
	(void)z;
	(void)src;
	(void)len;
	return 0;
}

const uint8_t *xp_zstd_out(const struct xp_zstd *z)
{
	(void)z;
	return NULL;
}

int xp_zstd_unpack(const void *src, size_t len, void *dst, size_t dstlen)
{
	(void)src;
	(void)len;
	(void)dst;
	(void)dstlen;
	return -ENOTSUP;
}
#endif
