/* Building struct xp_rawtp_rec records from a layout, for the unit tests of
 * raw-tracepoint capabilities: values go where the parsed format says. */
#ifndef XP_TESTS_RAWTP_UTIL_H
#define XP_TESTS_RAWTP_UTIL_H

#include <string.h>
#include "core/rawtp_layout.h"

#define FMT_COMMON                                                                         \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"              \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"              \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"      \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static inline void rec_init(const struct xp_rawtp_layout *l, struct xp_rawtp_rec *r, uint16_t type,
			    int ev, uint64_t ts, uint32_t pid, const char *comm)
{
	memset(r, 0, sizeof(*r));
	r->hdr.type = type;
	r->hdr.size = sizeof(*r);
	r->hdr.ts_ns = ts;
	r->hdr.pid = r->hdr.tid = pid;
	r->ev = (uint16_t)ev;
	r->raw_len = l->fmt[ev].size < XP_RAWTP_RAW ? l->fmt[ev].size : XP_RAWTP_RAW;
	strncpy(r->comm, comm, XP_COMM_LEN - 1);
}

/* Writes field `name` (its size from the layout); returns 0 or -1 when absent. */
static inline int rec_put(const struct xp_rawtp_layout *l, struct xp_rawtp_rec *r, const char *name,
			  uint64_t v)
{
	const struct xp_tp_field *f = xp_tp_field(&l->fmt[r->ev], name);

	if (!f || f->offset + f->size > XP_RAWTP_RAW || f->size > 8)
		return -1;
	memcpy(r->raw + f->offset, &v, f->size);	/* little endian */
	return 0;
}

static inline void rec_str(struct xp_rawtp_rec *r, int i, const char *s)
{
	strncpy(r->str[i], s, XP_RAWTP_STR - 1);
	r->str_len[i] = (uint16_t)strlen(r->str[i]);
}

#endif
