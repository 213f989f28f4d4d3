#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "caps/nvidia/nvidia_flight.h"
#include "core/flight_trigger.h"

#define PAD8(n) (((n) + 7) & ~(size_t)7)

int xp_nv_flight_init(struct xp_nv_flight *fl, uint64_t keep_ns)
{
	memset(fl, 0, sizeof(*fl));
	fl->keep_ns = keep_ns;
	fl->cap = 1 << 20;
	if (!(fl->buf = malloc(fl->cap)))
		return -ENOMEM;
	return 0;
}

void xp_nv_flight_free(struct xp_nv_flight *fl)
{
	free(fl->buf);
	fl->buf = NULL;
}

static const struct xp_rec_hdr *at(const struct xp_nv_flight *fl, size_t off)
{
	return (const struct xp_rec_hdr *)(fl->buf + off);
}

static void drop_oldest(struct xp_nv_flight *fl)
{
	fl->head += PAD8(at(fl, fl->head)->size);
	fl->records--;
}

uint64_t xp_nv_flight_oldest(const struct xp_nv_flight *fl)
{
	return fl->head < fl->tail ? at(fl, fl->head)->ts_ns : 0;
}

void xp_nv_flight_add(struct xp_nv_flight *fl, const struct xp_rec_hdr *h)
{
	size_t need = PAD8(h->size);

	/* records arrive in the order they were written (at a call's return for timed
	 * calls), so times are nearly ordered: let go from the oldest end */
	while (fl->head < fl->tail && at(fl, fl->head)->ts_ns + fl->keep_ns < h->ts_ns)
		drop_oldest(fl);
	if (fl->tail + need > fl->cap) {
		/* compact, then grow up to the bound, then let go of the oldest */
		memmove(fl->buf, fl->buf + fl->head, fl->tail - fl->head);
		fl->tail -= fl->head;
		fl->head = 0;
		while (fl->tail + need > fl->cap && fl->cap < XP_NV_FLIGHT_MAX_BYTES) {
			unsigned char *nb = realloc(fl->buf, fl->cap * 2);

			if (!nb)
				break;
			fl->buf = nb;
			fl->cap *= 2;
		}
		while (fl->tail + need > fl->cap && fl->head < fl->tail) {
			drop_oldest(fl);
			fl->evicted_full++;
		}
		if (fl->head) {
			memmove(fl->buf, fl->buf + fl->head, fl->tail - fl->head);
			fl->tail -= fl->head;
			fl->head = 0;
		}
		if (fl->tail + need > fl->cap)
			return;
	}
	memset(fl->buf + fl->tail, 0, need);
	memcpy(fl->buf + fl->tail, h, h->size);
	fl->tail += need;
	fl->records++;
}

int xp_nv_flight_holders(const struct xp_nv_flight *fl, const struct xp_nv_hold *now, int n,
			 struct xp_nv_hold *out, int max)
{
	size_t *offs = malloc(sizeof(*offs) * (fl->records ? fl->records : 1)), k = 0;
	int nout = 0;

	for (int i = 0; i < n && nout < max; i++)
		out[nout++] = now[i];
	if (!offs)
		return nout;
	for (size_t off = fl->head; off < fl->tail && k < fl->records; off += PAD8(at(fl, off)->size))
		offs[k++] = off;
	/* newest first: an open undone, a close redone */
	while (k--) {
		const struct xp_nv_rec *r = (const void *)at(fl, offs[k]);

		if (r->h.size < sizeof(*r))
			continue;
		if (r->fn == XP_NV_OPEN) {
			for (int i = 0; i < nout; i++)
				if (out[i].file == r->arg64 && !out[i].before) {
					out[i] = out[--nout];
					break;
				}
		} else if (r->fn == XP_NV_CLOSE && nout < max) {
			struct xp_nv_hold *h = &out[nout++];

			memset(h, 0, sizeof(*h));
			h->file = r->arg64;
			h->pid = r->h.pid;
			h->minor = r->minor;
			memcpy(h->comm, r->comm, XP_COMM_LEN);
			h->comm[XP_COMM_LEN - 1] = '\0';
		}
	}
	free(offs);
	for (int i = 0; i < nout; i++)
		out[i].before = true;	/* before the file began */
	return nout;
}

int xp_nv_flight_write(const struct xp_nv_flight *fl, int fd, struct xp_trace_meta *m,
		       struct xp_trace_stats *st, const struct xp_rec_hdr *const *pre, int npre)
{
	struct xp_trace_writer *w;
	int err;

	if ((err = xp_trace_writer_open(&w, fd, m, 0)))
		return err;
	for (int i = 0; i < npre && !err; i++)
		err = xp_trace_writer_add(w, pre[i]);
	for (size_t off = fl->head; !err && off < fl->tail; off += PAD8(at(fl, off)->size))
		err = xp_trace_writer_add(w, at(fl, off));
	st->records = xp_trace_writer_records(w);
	if (!err)
		err = xp_trace_writer_finish(w, st);
	xp_trace_writer_free(w);
	return err;
}

bool xp_nv_xid_trigger(const struct xp_cap_inst *ci, const struct xp_trigger *t, const struct xp_rec_hdr *h,
			uint64_t *when)
{
	const struct xp_nv_rec *r = (const void *)h;

	(void)ci;
	(void)when;
	return h->size >= sizeof(struct xp_nv_xid_rec) && r->fn == XP_NV_XID && t->kind == XP_TRIG_XID &&
	       (t->err < 0 || r->arg32 == (uint32_t)t->err);
}
