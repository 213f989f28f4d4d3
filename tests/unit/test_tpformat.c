/* Tests for src/core/tpformat.c: tracefs format files of both gpu_scheduler generations. */
#include <errno.h>
#include "core/tpformat.h"
#include "sched_formats.h"
#include "unit.h"

/* The first __data_loc/__rel_loc field, or NULL: where the parser flags strings. */
static const struct xp_tp_field *first_string(const struct xp_tp_format *f)
{
	for (int i = 0; i < f->nfields; i++)
		if (f->fields[i].data_loc)
			return &f->fields[i];
	return NULL;
}

static void t_old_job(void)
{
	struct xp_tp_format f;
	const struct xp_tp_field *x;

	CHECK(xp_tp_format_parse(fmt_61_job, &f) == 0);
	CHECK_STR(f.name, "drm_sched_job");
	CHECK_U64(f.id, 1402);
	CHECK_U64(f.nfields, 10);
	CHECK_U64(f.size, 48);
	CHECK((x = xp_tp_field(&f, "fence")) && x->offset == 16 && x->size == 8);
	CHECK((x = xp_tp_field(&f, "fence")) && !strcmp(x->type, "struct dma_fence *"));
	CHECK((x = xp_tp_field(&f, "entity")) && x->offset == 8);
	CHECK((x = xp_tp_field(&f, "id")) && x->offset == 32 && !strcmp(x->type, "uint64_t"));
	CHECK((x = xp_tp_field(&f, "job_count")) && x->offset == 40 && x->size == 4 && !x->is_signed);
	CHECK((x = xp_tp_field(&f, "hw_job_count")) && x->offset == 44 && x->is_signed);
	CHECK((x = first_string(&f)) && !strcmp(x->name, "name") && x->offset == 24 && x->data_loc);
	CHECK((x = xp_tp_field(&f, "common_pid")) && x->common && x->offset == 4);
	CHECK(xp_tp_field(&f, "nope") == NULL);
}

static void t_old_others(void)
{
	struct xp_tp_format f;
	const struct xp_tp_field *x;

	CHECK(xp_tp_format_parse(fmt_61_process, &f) == 0);
	CHECK((x = xp_tp_field(&f, "fence")) && x->offset == 8);
	CHECK(first_string(&f) == NULL);
	CHECK_U64(f.size, 16);
	CHECK(xp_tp_format_parse(fmt_61_wait_dep, &f) == 0);
	CHECK((x = xp_tp_field(&f, "seqno")) && x->offset == 40 && x->size == 4 &&
	      !strcmp(x->type, "unsigned"));
	CHECK((x = xp_tp_field(&f, "ctx")) && x->offset == 32);
	CHECK((x = first_string(&f)) && x->offset == 8);
}

static void t_new(void)
{
	struct xp_tp_format f;
	const struct xp_tp_field *x;

	CHECK(xp_tp_format_parse(fmt_617_queue, &f) == 0);
	CHECK_STR(f.name, "drm_sched_job_queue");
	CHECK((x = first_string(&f)) && !strcmp(x->name, "name") && x->offset == 8);
	CHECK((x = xp_tp_field(&f, "dev")) && x->data_loc && x->offset == 20);
	CHECK((x = xp_tp_field(&f, "fence_context")) && x->offset == 24);
	CHECK((x = xp_tp_field(&f, "fence_seqno")) && x->offset == 32);
	CHECK((x = xp_tp_field(&f, "client_id")) && x->offset == 40);
	CHECK_U64(f.size, 48);
	CHECK(xp_tp_format_parse(fmt_617_unsched, &f) == 0);
	CHECK((x = xp_tp_field(&f, "seqno")) && x->offset == 32);
	CHECK(xp_tp_format_parse(fmt_617_done, &f) == 0);
	CHECK((x = xp_tp_field(&f, "fence_seqno")) && x->offset == 16);
}

static void t_arrays_and_garbage(void)
{
	static const char txt[] =
		"name: sched_switch\nID: 316\nformat:\n"
		"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		"\tfield:__rel_loc char[] s;\toffset:28;\tsize:4;\tsigned:0;\n"
		"\tfield:broken line\n"
		"\nprint fmt: \"field:int bogus;\toffset:1;\tsize:4;\"\n";
	struct xp_tp_format f;
	const struct xp_tp_field *x;

	CHECK(xp_tp_format_parse(txt, &f) == 0);
	CHECK_U64(f.nfields, 3);
	CHECK((x = xp_tp_field(&f, "prev_comm")) && x->size == 16 && !strcmp(x->type, "char"));
	CHECK((x = xp_tp_field(&f, "s")) && x->data_loc && x->rel_loc);
	CHECK(xp_tp_field(&f, "bogus") == NULL);
	CHECK(xp_tp_format_parse("name: x\nID: 1\nformat:\n", &f) == -EINVAL);
	CHECK(xp_tp_format_parse("", &f) == -EINVAL);
	CHECK(xp_tp_format_parse(NULL, &f) == -EINVAL);
}

static void t_read(void)
{
	struct xp_tp_format f;
	unsigned char raw[64] = { 0 };
	uint64_t v;
	int32_t neg = -3;
	uint32_t loc = (5u << 16) | 48;
	char s[16];

	CHECK(xp_tp_format_parse(fmt_61_job, &f) == 0);
	memcpy(raw + 44, &neg, 4);
	v = 0x1122334455667788ULL;
	memcpy(raw + 16, &v, 8);
	memcpy(raw + 24, &loc, 4);
	memcpy(raw + 48, "gfx0", 5);
	CHECK(xp_tp_read_u64(xp_tp_field(&f, "hw_job_count"), raw, sizeof(raw), &v) == 0);
	CHECK(v == (uint64_t)-3);
	CHECK(xp_tp_read_u64(xp_tp_field(&f, "fence"), raw, sizeof(raw), &v) == 0);
	CHECK_U64(v, 0x1122334455667788ULL);
	CHECK(xp_tp_read_u64(xp_tp_field(&f, "fence"), raw, 20, &v) == -ERANGE);
	CHECK(xp_tp_read_str(xp_tp_field(&f, "name"), raw, sizeof(raw), s, sizeof(s)) == 0);
	CHECK_STR(s, "gfx0");
	CHECK(xp_tp_read_str(xp_tp_field(&f, "name"), raw, 50, s, sizeof(s)) == -ERANGE);
	CHECK(xp_tp_read_str(xp_tp_field(&f, "id"), raw, sizeof(raw), s, sizeof(s)) == -EINVAL);
}

int main(void)
{
	RUN(t_old_job);
	RUN(t_old_others);
	RUN(t_new);
	RUN(t_arrays_and_garbage);
	RUN(t_read);
	UNIT_EXIT();
}
