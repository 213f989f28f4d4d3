#include <errno.h>
#include "core/decode.h"
#include "caps/ioctl/ioctl.h"
#include "caps/latency/latency.h"
#include "caps/nvidia/nvidia.h"
#include "caps/npu/npu.h"
#include "shared/rawtp.h"

size_t xp_rec_min_size(unsigned int type)
{
	switch (type) {
	case XP_REC_IOCTL: return sizeof(struct xp_ioctl_rec);
	case XP_REC_SCHED:
	case XP_REC_VBLANK:
	case XP_REC_MEM: return sizeof(struct xp_rawtp_rec);
	case XP_REC_LATENCY: return sizeof(struct xp_lat_rec);
	case XP_REC_NVIDIA: return sizeof(struct xp_nv_rec);
	case XP_REC_NPU: return XP_NPU_REC_V1_SIZE;	/* the kinds of later fields are checked by npu */
	default: return 0;
	}
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
