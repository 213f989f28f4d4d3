/*
 * zstd for the trace file's PACKED blocks (tracefile.h), when the build has
 * libzstd (XP_HAVE_ZSTD, set by the Makefile when its header is found);
 * without it, compressing is refused and compressed blocks are an error.
 */
#ifndef XP_CORE_ZSTD_H
#define XP_CORE_ZSTD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct xp_zstd;

/* A compressor of blocks up to max_in bytes at `level`; NULL without zstd or memory. */
struct xp_zstd *xp_zstd_new(int level, size_t max_in);
void xp_zstd_free(struct xp_zstd *z);
/*
 * Compresses len bytes; the PACKED payload is then xp_zstd_out(): its 8-byte
 * head (XP_TF_ZSTD, len) and the frame. Returns the frame's bytes, 0 on failure.
 */
size_t xp_zstd_pack(struct xp_zstd *z, const void *src, size_t len);
const uint8_t *xp_zstd_out(const struct xp_zstd *z);
/* Decompresses a frame into exactly dstlen bytes: 0, -EBADMSG, or -ENOTSUP without zstd. */
int xp_zstd_unpack(const void *src, size_t len, void *dst, size_t dstlen);

#endif
