/* The record kinds in use (record_kind.h). */
#include <errno.h>

#include "core/record_kind.h"
#include "shared/record.h"

static const struct xp_rec_kind *const *kinds_in_use;
static size_t nkinds_in_use;

int xp_rec_kinds_use(const struct xp_rec_kind *const *kinds, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!kinds[i]->type || kinds[i]->min_size < sizeof(struct xp_rec_hdr))
			return -EINVAL;
		for (size_t k = 0; k < i; k++)
			if (kinds[k]->type == kinds[i]->type)
				return -EEXIST;
	}
	kinds_in_use = kinds;
	nkinds_in_use = n;
	return 0;
}

const struct xp_rec_kind *xp_rec_kind_of(unsigned int type)
{
	for (size_t i = 0; i < nkinds_in_use; i++)
		if (kinds_in_use[i]->type == type)
			return kinds_in_use[i];
	return NULL;
}

size_t xp_rec_kinds_count(void)
{
	return nkinds_in_use;
}

const struct xp_rec_kind *xp_rec_kind_at(size_t i)
{
	return i < nkinds_in_use ? kinds_in_use[i] : NULL;
}
