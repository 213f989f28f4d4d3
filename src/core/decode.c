#include <errno.h>
#include "core/decode.h"
#include "core/record_kind.h"

size_t xp_rec_min_size(unsigned int type)
{
	const struct xp_rec_kind *k = xp_rec_kind_of(type);

	return k ? k->min_size : 0;
}

const struct xp_rec_hdr *xp_decode(const void *data, size_t len, int *err)
{
	const struct xp_rec_hdr *h = data;
	size_t min;

	*err = -EBADMSG;
	if (!data || len < sizeof(*h) || h->size < sizeof(*h) || h->size > len)
		return NULL;
	min = xp_rec_min_size(h->type);
	if (!min) {
		*err = -ENOENT;
		return NULL;
	}
	if (h->size < min)
		return NULL;
	*err = 0;
	return h;
}
