/* Which items an all-or-nothing operation refuses (find_refused.h). */
#include "core/find_refused.h"

int xp_find_refused(const int *idx, int n, int (*try)(void *ctx, const int *idx, int n), void *ctx,
		    int *err)
{
	int e;

	if (n <= 0 || !(e = try(ctx, idx, n)))
		return 0;
	if (n == 1) {
		err[idx[0]] = e;
		return 1;
	}
	return xp_find_refused(idx, n / 2, try, ctx, err) +
	       xp_find_refused(idx + n / 2, n - n / 2, try, ctx, err);
}
