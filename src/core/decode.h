/* The decoder: checks a raw record (from the ring buffer or a trace file)
 * before any analysis sees it. */
#ifndef XP_CORE_DECODE_H
#define XP_CORE_DECODE_H

#include <stddef.h>
#include "shared/record.h"

/*
 * Returns the record at `data` if it is whole and well-formed for its type,
 * NULL otherwise (and *err says why: -EBADMSG for a malformed record,
 * -ENOENT for a type no kind in use claims (core/record_kind.h), which readers
 * skip and count).
 */
const struct xp_rec_hdr *xp_decode(const void *data, size_t len, int *err);

/* The size a record of a known type must have at least, header included; 0 if unknown. */
size_t xp_rec_min_size(unsigned int type);

#endif
