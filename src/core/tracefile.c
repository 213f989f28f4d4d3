/* Trace files: what the writer (tracefile_write.c) and the reader
 * (tracefile_read.c) share. The format is described in tracefile.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/utsname.h>

#include "core/decode.h"
#include "core/tracefile.h"
#include "core/tracefile_int.h"

/*
 * CRC-32 (IEEE, as zlib), eight bytes a step ("slicing by 8"): a byte at a
 * time, checking the blocks took a quarter of a report's time.
 */
static uint32_t crc_table[8][256];

static void crc_init(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;

		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[0][i] = c;
	}
	for (uint32_t i = 0; i < 256; i++)
		for (int t = 1; t < 8; t++)
			crc_table[t][i] = (crc_table[t - 1][i] >> 8) ^ crc_table[0][crc_table[t - 1][i] & 0xff];
}

uint32_t xp_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (!crc_table[0][1])
		crc_init();
	crc = ~crc;
	for (; len >= 8; p += 8, len -= 8) {
		uint32_t a = crc ^ (uint32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
		uint32_t b = (uint32_t)(p[4] | p[5] << 8 | p[6] << 16 | (uint32_t)p[7] << 24);

		crc = crc_table[7][a & 0xff] ^ crc_table[6][(a >> 8) & 0xff] ^
		      crc_table[5][(a >> 16) & 0xff] ^ crc_table[4][a >> 24] ^
		      crc_table[3][b & 0xff] ^ crc_table[2][(b >> 8) & 0xff] ^
		      crc_table[1][(b >> 16) & 0xff] ^ crc_table[0][b >> 24];
	}
	while (len--)
		crc = crc_table[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

const char *xp_tf_block_name(uint32_t kind)
{
	switch (kind) {
	case XP_TF_META: return "metadata";
	case XP_TF_LAYOUT: return "layout";
	case XP_TF_EVENTS: return "events";
	case XP_TF_STATS: return "stats";
	case XP_TF_TRAILER: return "trailer";
	case XP_TF_PACKING: return "packing";
	case XP_TF_PACKED: return "packed events";
	default: return "unknown";
	}
}

int xp_trace_meta_add_layout(struct xp_trace_meta *m, uint16_t rectype,
			     const struct xp_rawtp_layout *l)
{
	for (int i = 0; i < l->n; i++) {
		struct xp_trace_tpf *t;

		if (!l->present[i])
			continue;
		if (m->ntpf >= XP_TF_MAX_TPF)
			return -E2BIG;
		t = realloc(m->tpf, (size_t)(m->ntpf + 1) * sizeof(*t));
		if (!t)
			return -ENOMEM;
		m->tpf = t;
		t = &m->tpf[m->ntpf++];
		memset(t, 0, sizeof(*t));
		t->rectype = rectype;
		snprintf(t->group, sizeof(t->group), "%s", l->group[i]);
		t->fmt = l->fmt[i];
		/* matched by name when read back: the table's name, whatever the parser saw */
		snprintf(t->fmt.name, sizeof(t->fmt.name), "%s", l->ev[i].name);
	}
	return 0;
}

int xp_trace_meta_layout(const struct xp_trace_meta *m, uint16_t rectype, struct xp_rawtp_layout *l)
{
	l->npresent = 0;
	for (int i = 0; i < l->n; i++) {
		l->present[i] = false;
		for (int k = 0; k < m->ntpf; k++) {
			const struct xp_trace_tpf *t = &m->tpf[k];

			if (t->rectype != rectype || strcmp(t->fmt.name, l->ev[i].name))
				continue;
			l->fmt[i] = t->fmt;
			snprintf(l->group[i], sizeof(l->group[i]), "%s", t->group);
			l->present[i] = true;
			l->npresent++;
			break;
		}
	}
	return l->npresent;
}

void xp_trace_meta_free_layouts(struct xp_trace_meta *m)
{
	free(m->tpf);
	m->tpf = NULL;
	m->ntpf = 0;
}

void xp_trace_meta_free(struct xp_trace_meta *m)
{
	xp_trace_meta_free_layouts(m);
	free(m->caps);
	m->caps = NULL;
	m->ncaps = 0;
	free(m->capopts);
	m->capopts = NULL;
	m->ncapopts = 0;
}

int xp_trace_meta_add_capopt(struct xp_trace_meta *m, const char *cap, const char *name, const char *value)
{
	struct xp_trace_capopt *o;

	if (!value)
		value = "";
	if (strlen(cap) >= sizeof(o->cap) || strlen(name) >= sizeof(o->name) || strlen(value) >= sizeof(o->value))
		return -ENAMETOOLONG;
	if (!(o = realloc(m->capopts, (size_t)(m->ncapopts + 1) * sizeof(*o))))
		return -ENOMEM;
	m->capopts = o;
	o += m->ncapopts++;
	snprintf(o->cap, sizeof(o->cap), "%s", cap);
	snprintf(o->name, sizeof(o->name), "%s", name);
	snprintf(o->value, sizeof(o->value), "%s", value);
	return 0;
}

int xp_trace_meta_add_cap(struct xp_trace_meta *m, const char *name)
{
	char (*c)[16] = realloc(m->caps, (size_t)(m->ncaps + 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	m->caps = c;
	snprintf(m->caps[m->ncaps++], sizeof(m->caps[0]), "%s", name);
	return 0;
}

void xp_trace_meta_host(struct xp_trace_meta *m, const char *tool_version)
{
	struct timespec m1, rt, m2;
	struct utsname u;

	snprintf(m->tool, sizeof(m->tool), "xputrace %s", tool_version);
	if (!uname(&u)) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->hostname, sizeof(m->hostname), "%s", u.nodename);
	}
	snprintf(m->clock, sizeof(m->clock), "CLOCK_MONOTONIC");
	m->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	/* the wall clock read between two monotonic reads, offset to their middle */
	clock_gettime(CLOCK_MONOTONIC, &m1);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &m2);
	{
		int64_t a = (int64_t)m1.tv_sec * 1000000000 + m1.tv_nsec;
		int64_t b = (int64_t)m2.tv_sec * 1000000000 + m2.tv_nsec;
		int64_t r = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;

		m->wall_offset_ns = r - (a + (b - a) / 2);
		m->start_ns = (uint64_t)b;
	}
}

uint64_t xp_trace_began(const struct xp_trace_reader *r)
{
	/* a file from before the tag, or a time that makes no sense: the start */
	return r->meta.tracing_ns > r->meta.start_ns ? r->meta.tracing_ns : r->meta.start_ns;
}

double xp_trace_duration(const struct xp_trace_reader *r)
{
	uint64_t end = r->stats.ts_ns, began = xp_trace_began(r);

	if (!r->complete && r->last_ts_ns > end)
		end = r->last_ts_ns;
	if (end <= began)
		return 0;
	return (double)(end - began) / 1e9;
}
