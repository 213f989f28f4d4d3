#include <string.h>

#include "core/hash_table.h"

void xp_lp_delete(void *table, size_t esz, uint32_t n, uint32_t i, bool (*used)(const void *e),
		  uint32_t (*home)(const void *e))
{
	char *t = table;

	for (uint32_t k = (i + 1) % n, seen = 0; seen < n && used(t + (size_t)k * esz);
	     k = (k + 1) % n, seen++) {
		uint32_t h = home(t + (size_t)k * esz);

		/* the entry at k may move to i when its home is not in (i, k] (cyclically) */
		if (i <= k ? (h <= i || h > k) : (h <= i && h > k)) {
			memcpy(t + (size_t)i * esz, t + (size_t)k * esz, esz);
			i = k;
		}
	}
	memset(t + (size_t)i * esz, 0, esz);
}
