/*
 * Record kinds: what a record type is, for the decoder and trace files. Each
 * capability defines its own beside its analysis and names it in its row
 * (struct xp_cap.rec); the program hands the table's kinds to
 * xp_rec_kinds_use at start-up, a test the kinds it feeds. Nothing here
 * names a capability, so a new one needs no edit outside its folder and row.
 */
#ifndef XP_CORE_RECORD_KIND_H
#define XP_CORE_RECORD_KIND_H

#include <stddef.h>
#include <stdint.h>

/* A fixed field a trace file declares for its record type (tracefile.h). */
struct xp_rec_field {
	const char *name;
	uint16_t off, size;
	uint8_t kind;		/* enum xp_field_kind */
};

#define XP_REC_F(T, member, kind) { #member, offsetof(T, member), sizeof(((T *)0)->member), kind }
#define XP_REC_HDR_FIELDS(T)                                                               \
	{ "type", offsetof(T, hdr.type), 2, XP_FIELD_UINT },                               \
	{ "size", offsetof(T, hdr.size), 2, XP_FIELD_UINT },                               \
	{ "cpu", offsetof(T, hdr.cpu), 4, XP_FIELD_UINT },                                 \
	{ "ts_ns", offsetof(T, hdr.ts_ns), 8, XP_FIELD_UINT },                             \
	{ "pid", offsetof(T, hdr.pid), 4, XP_FIELD_UINT },                                 \
	{ "tid", offsetof(T, hdr.tid), 4, XP_FIELD_UINT }

/*
 * How a trace file packs a field of a record (format 2, core/pack.h): what
 * the field holds, so that its usual values take a byte or two. Fields a
 * kind does not describe, padding and anything past the last field are
 * kept as bytes (runs of zeros squeezed). The header (cpu, ts_ns, pid, tid)
 * is packed the same way for every kind.
 */
enum xp_pack_code {
	XP_PACK_RAW = 0,	/* bytes as they are (zero runs squeezed) */
	XP_PACK_UINT = 1,	/* a small unsigned number: varint */
	XP_PACK_SINT = 2,	/* a small signed number (fd, errno): zigzag varint */
	XP_PACK_DELTA = 3,	/* a counter: the change since the previous record of its kind */
	XP_PACK_TS = 4,		/* a time near the record's own ts_ns (an end): the difference */
	XP_PACK_PID = 5,	/* a thread id near the record's pid: the difference */
	XP_PACK_INTERN = 6,	/* a value that repeats (comm, name, dev, cmd, pointer): once per block */
	XP_PACK_CODE_MAX,
};

/* One described field: numbers are 1, 2, 4 or 8 bytes, interned values 1..255. */
struct xp_rec_pack {
	uint16_t off, size;
	uint8_t code;		/* enum xp_pack_code */
};

#define XP_REC_P(T, member, code) { offsetof(T, member), sizeof(((T *)0)->member), code }

struct xp_rec_kind {
	uint16_t type;		/* the header's `type`: enum xp_rec_type, or the capability's own id */
	uint16_t min_size;	/* bytes, header included: a shorter record is malformed */
	const char *name;	/* its name in messages and in a trace file's layout block */
	/*
	 * A fixed layout trace files carry and a reader checks (NULL: none; raw
	 * tracepoint records carry tracefs layouts instead, xp_trace_meta_add_layout).
	 */
	const struct xp_rec_field *fields;
	size_t nfields;
	/*
	 * How its fields after the header are packed in format 2 (NULL: as bytes),
	 * in any order; a record shorter than a field keeps that field and what
	 * follows as bytes.
	 */
	const struct xp_rec_pack *pack;
	size_t npack;
};

/*
 * The kinds this program decodes, in the order trace files list their
 * layouts; replaces any set before. -EEXIST (and nothing set) when two share
 * a type, -EINVAL for type 0 or a size below the header's.
 */
int xp_rec_kinds_use(const struct xp_rec_kind *const *kinds, size_t n);
/* The kind of `type`; NULL when none is in use. */
const struct xp_rec_kind *xp_rec_kind_of(unsigned int type);
/* The kinds in use, in order. */
size_t xp_rec_kinds_count(void);
const struct xp_rec_kind *xp_rec_kind_at(size_t i);

#endif
