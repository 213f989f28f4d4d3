/*
 * Trace files: what `xputrace record` writes and `report` / `export` read.
 *
 * Format version 2 (records packed), or 1 (records as they are: every file
 * written before format 2, and `record --format1`; both are read). Every
 * integer is little-endian. A file is
 *
 *   file header   16 bytes: magic "XPUTRACE", u16 major (2), u16 minor (0),
 *                 u32 header size (16; a reader skips what it does not know)
 *   blocks        each a 24-byte header: u32 kind, u32 length of the payload,
 *                 u32 count, u32 CRC-32 (IEEE, as zlib) of the payload, u32
 *                 CRC-32 of the 16 bytes before it, u32 0; then the payload,
 *                 padded with zeros to a multiple of 8 bytes (the padding is
 *                 not in the length nor the CRC). The header's own CRC tells
 *                 a damaged length from a file that was cut short.
 *
 * Block kinds, in the order a file has them:
 *
 *   META (1)    first block. `count` TLV entries: u16 tag, u16 length, value.
 *               Strings are not NUL-terminated. Tags: tool version, kernel
 *               release, hostname, clock ("CLOCK_MONOTONIC"), wall-clock
 *               offset (i64 ns: CLOCK_REALTIME - CLOCK_MONOTONIC at the start),
 *               start time (u64 ns, monotonic; no record is older), the
 *               time tracing began, everything attached (u64 ns; files
 *               without it count from the start time), page size (u32),
 *               capabilities (one entry each), hook, filters (pid, comm, cgroup id), and the device
 *               map that names ioctls: majors (u32 major, u32 kind, 32-byte
 *               name), nodes (u32 dev_t, u32 kind, 64-byte path, 32-byte
 *               driver; text NUL-padded), and single dev_t's (u32) traced.
 *               Unknown tags are skipped.
 *   LAYOUT (2)  second block: for each record type written, `count` entries
 *               of u16 type, u16 size, u16 number of fields, u16 name length,
 *               name, then per field u16 offset, u16 size, u8 kind (enum
 *               xp_field_kind), u8 name length, name. A reader checks that
 *               the fields it uses sit where it expects them.
 *               From format 1.1 the block also carries the tracefs layouts
 *               that raw-tracepoint records (sched, vblank, mem: struct
 *               xp_rawtp_rec) were copied with, so a file decodes with the
 *               recording kernel's layouts: one entry per event, in the
 *               same shape, named "GROUP/EVENT" (the only names with a
 *               '/'), `type` the record type, `size` the end of the last
 *               fixed field, and field kinds UINT, INT, DATA_LOC or REL_LOC.
 *   PACKING (6) format 2, third block: how each record type's fields are
 *               packed (core/pack.h), taken from the record kinds' `pack`
 *               descriptions when the file was written, so a file reads with
 *               its own plans: `count` entries of u16 type, u16 number of
 *               segments, then per segment u16 offset, u16 size, u8 enum
 *               xp_pack_code, u8 0. Segments follow each other from the end of
 *               the header; a type without an entry has its fields as bytes.
 *   PACKED (7)  format 2's records: u8 compression (0 none, 1 zstd), 3 bytes
 *               0, u32 length of the packed records once decompressed (at most
 *               XP_TF_MAX_BLOCK), then the `count` packed records (core/pack.h),
 *               as a zstd frame when compressed. The block's CRC is over what is
 *               stored. Unpacked, they are exactly the records that were written.
 *   EVENTS (3)  format 1's: `count` records exactly as the ring buffer delivered them
 *               (struct xp_rec_hdr first; hdr.size is the record's length;
 *               in the byte order of the recording host, little-endian on
 *               every architecture xputrace builds for), each padded to 8. A block is at most XP_TF_MAX_BLOCK.
 *   STATS (4)   written every second or so between EVENTS blocks: what the
 *               kernel dropped so far, so a truncated file still knows its
 *               losses. u64 time (monotonic ns), u64 records written so far
 *               (checked against the records read: a block cut out shows),
 *               then `count` u64 drop counts indexed by enum xp_drop_reason
 *               and, from format 1.1, XP_DROP_KERNEL_MISSED (runs of our
 *               programs the kernel skipped: their events are lost too).
 *   TRAILER (5) last block, same payload as STATS with the final numbers;
 *               its time is when tracing ended (the programs stopped).
 *               A file without one was cut short (the recorder was killed):
 *               it is read up to its last whole block, with a warning.
 *
 * Unknown block kinds are skipped (their CRC is still checked). Anything
 * that does not add up (magic, version, lengths, CRC, counts, a record that
 * overruns its block) is an error with one line saying what and where.
 */
#ifndef XP_CORE_TRACEFILE_H
#define XP_CORE_TRACEFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "core/devices.h"
#include "core/pack.h"
#include "core/rawtp_layout.h"
#include "shared/record.h"

#define XP_TF_MAGIC "XPUTRACE"
#define XP_TF_VERSION_MAJOR 2	/* 2.0: packed records (PACKING, PACKED) */
#define XP_TF_VERSION_MINOR 0
#define XP_TF_RAW_MAJOR 1	/* what xp_trace_wopts.raw (record --format1) writes, for older readers */
#define XP_TF_RAW_MINOR 1	/* 1.1: tracefs event layouts in LAYOUT */
#define XP_TF_FILE_HDR 16
#define XP_TF_BLOCK_HDR 24
#define XP_TF_MAX_BLOCK (16u << 20)	/* a reader refuses larger blocks */
#define XP_TF_DEFAULT_BLOCK (256u << 10)

enum xp_tf_block {
	XP_TF_META = 1,
	XP_TF_LAYOUT = 2,
	XP_TF_EVENTS = 3,
	XP_TF_STATS = 4,
	XP_TF_TRAILER = 5,
	XP_TF_PACKING = 6,
	XP_TF_PACKED = 7,
};

/* The compression of a PACKED block. */
enum xp_tf_compress {
	XP_TF_PLAIN = 0,
	XP_TF_ZSTD = 1,
};

enum xp_tf_tag {
	XP_TAG_TOOL = 1,
	XP_TAG_KERNEL = 2,
	XP_TAG_HOSTNAME = 3,
	XP_TAG_CLOCK = 4,
	XP_TAG_WALL_OFFSET = 5,
	XP_TAG_START = 6,
	XP_TAG_CAPABILITY = 7,
	XP_TAG_HOOK = 8,
	XP_TAG_FILTER_PID = 9,
	XP_TAG_FILTER_COMM = 10,
	XP_TAG_FILTER_CGROUP = 11,
	XP_TAG_MAJOR = 12,
	XP_TAG_NODE = 13,
	XP_TAG_EXTRA_DEV = 14,
	XP_TAG_PAGE_SIZE = 15,	/* u32: the recording host's page size (amdgpu BOs count pages) */
	XP_TAG_TRACING = 16,	/* u64: monotonic ns when tracing began (all attached) */
	/* CAP NUL NAME NUL VALUE: an option that shapes CAP's summary, applied by report */
	XP_TAG_CAP_OPTION = 17,
};

enum xp_field_kind {
	XP_FIELD_UINT = 1,
	XP_FIELD_INT = 2,
	XP_FIELD_CHARS = 3,	/* NUL-padded text */
	XP_FIELD_DATA_LOC = 4,	/* tracefs __data_loc: u32 (length << 16 | offset) */
	XP_FIELD_REL_LOC = 5,	/* tracefs __rel_loc: offset from the field's end */
};

#define XP_TF_MAX_TPF 256	/* tracefs event layouts a file may carry */

/* The tracefs layout of one event that raw-tracepoint records were copied with. */
struct xp_trace_tpf {
	uint16_t rectype;		/* enum xp_rec_type of its records */
	char group[XP_TP_NAME_LEN];	/* the group it was read from */
	struct xp_tp_format fmt;	/* fmt.name: the event's name */
};

/* What a file says about the run that wrote it. */
struct xp_trace_meta {
	char tool[32];
	char kernel[65];
	char hostname[65];
	char clock[32];
	int64_t wall_offset_ns;	/* add to a record's ts_ns for wall-clock time */
	uint64_t start_ns;	/* monotonic time recording began: no record is older */
	uint64_t tracing_ns;	/* when tracing began (all attached); 0: a file from before the tag */
	uint32_t page_size;	/* 0: a file from before the tag */
	char (*caps)[16];	/* the capabilities recorded (xp_trace_meta_add_cap), ncaps of them */
	int ncaps;
	char hook[64];	/* "tracepoint+raw_tp", or several joined by record */
	struct xp_trace_capopt *capopts;	/* xp_trace_meta_add_capopt, ncapopts of them, in order given */
	int ncapopts;
	uint32_t filter_pid;
	char filter_comm[XP_COMM_LEN];
	uint64_t filter_cgroup;
	struct xp_devices devs;
	/* writer: set by the caller (xp_trace_meta_add_layout); reader: read
	 * from the LAYOUT block, freed by xp_trace_reader_close */
	struct xp_trace_tpf *tpf;
	int ntpf;
};

/* A capability's option that shapes its summary, as given to record ("" VALUE: takes none). */
struct xp_trace_capopt {
	char cap[16];
	char name[32];
	char value[200];
};

/* The totals a STATS or TRAILER block carries. */
struct xp_trace_stats {
	uint64_t ts_ns;
	uint64_t records;
	uint64_t drops[XP_DROP_ALL];	/* by enum xp_drop_reason, then XP_DROP_KERNEL_MISSED */
};

/* Fills tool, kernel, hostname, clock, offset and start from this machine. */
void xp_trace_meta_host(struct xp_trace_meta *m, const char *tool_version);

uint32_t xp_crc32(uint32_t crc, const void *buf, size_t len);

/* Adds the present events of a capability's layouts to what the file carries. */
int xp_trace_meta_add_layout(struct xp_trace_meta *m, uint16_t rectype,
			     const struct xp_rawtp_layout *l);
/*
 * Fills `l` (initialized by the caller with its event table) with the
 * layouts the file carries for `rectype`, matched by event name; returns
 * how many of the table's events are present.
 */
int xp_trace_meta_layout(const struct xp_trace_meta *m, uint16_t rectype, struct xp_rawtp_layout *l);
/* Frees what xp_trace_meta_add_layout allocated. */
void xp_trace_meta_free_layouts(struct xp_trace_meta *m);
/* The layouts and the capabilities: all a meta holds. */
void xp_trace_meta_free(struct xp_trace_meta *m);
/* Adds a capability recorded, as many as there are: 0, or -ENOMEM (xp_trace_meta_free frees them). */
int xp_trace_meta_add_cap(struct xp_trace_meta *m, const char *name);
/* Adds an option of `cap` (value NULL: none); -ENAMETOOLONG when a part does not fit. */
int xp_trace_meta_add_capopt(struct xp_trace_meta *m, const char *cap, const char *name, const char *value);

/* ---- writing ---------------------------------------------------------- */

struct xp_trace_writer;

struct xp_trace_wopts {
	size_t block_size;	/* bytes of records per block, before packing; 0: the default */
	bool raw;		/* format 1.1: records as they are, for older readers */
	int zstd_level;		/* > 0: compress each block with zstd (xp_trace_zstd) */
};

/*
 * Writes the file header, META and LAYOUT blocks (and PACKING) to `fd` and
 * returns a writer whose memory is a block buffer or two of `block_size`
 * bytes. Returns 0 or -errno (-ENOTSUP: zstd asked of a build without it).
 */
int xp_trace_writer_open_opts(struct xp_trace_writer **out, int fd, const struct xp_trace_meta *m,
			      const struct xp_trace_wopts *o);
/* The same, packed, uncompressed, in blocks of `block_size` (0: the default). */
int xp_trace_writer_open(struct xp_trace_writer **out, int fd, const struct xp_trace_meta *m,
			 size_t block_size);
/* Whether this build reads and writes zstd blocks. */
bool xp_trace_zstd(void);
/* Copies one record (hdr.size bytes) into the block; writes the block when full. */
int xp_trace_writer_add(struct xp_trace_writer *w, const struct xp_rec_hdr *h);
/* Writes the pending EVENTS block, if any, then a STATS block. */
int xp_trace_writer_stats(struct xp_trace_writer *w, const struct xp_trace_stats *s);
/* Writes what is pending and the TRAILER; the fd stays open. */
int xp_trace_writer_finish(struct xp_trace_writer *w, const struct xp_trace_stats *s);
void xp_trace_writer_free(struct xp_trace_writer *w);
uint64_t xp_trace_writer_records(const struct xp_trace_writer *w);
uint64_t xp_trace_writer_bytes(const struct xp_trace_writer *w);
uint64_t xp_trace_writer_blocks(const struct xp_trace_writer *w);

/* ---- reading ---------------------------------------------------------- */

struct xp_trace_reader {
	FILE *f;
	struct xp_trace_meta meta;
	struct xp_trace_stats stats;	/* from the trailer, else the last STATS */
	uint16_t version_major, version_minor;
	bool complete;			/* the trailer was read */
	bool truncated;			/* the file ends inside a block */
	uint64_t records;		/* records handed to the callback */
	uint64_t skipped;		/* records of types this build does not know */
	uint64_t last_ts_ns;		/* the latest record's ts_ns */
	uint64_t offset;		/* bytes consumed */
	uint64_t event_bytes;		/* of the blocks of records, headers included */
	uint64_t zstd_blocks;		/* PACKED blocks compressed with zstd */
	uint64_t event_blocks;		/* blocks of records */
	uint8_t *buf;
	size_t cap;
	struct xp_pack *pack;		/* format 2: the file's packing plans */
	uint8_t *unz;			/* a decompressed block */
	size_t unz_cap;
	uint64_t *rec;			/* one unpacked record (XP_PACK_MAX_REC bytes, aligned) */
	char error[160];		/* why the last call failed, or the truncation warning */
};

/*
 * Reads the file header, META and LAYOUT. Returns 0, or a negative errno
 * with r->error set: -EPROTO for a file that is not a trace file or a newer
 * major version, -EBADMSG for a damaged one, -EIO for a read error.
 */
int xp_trace_reader_open(struct xp_trace_reader *r, FILE *f);

typedef int (*xp_trace_record_fn)(void *ctx, const struct xp_rec_hdr *h);

/*
 * Hands every record, validated by xp_decode, to `fn` in file order; records
 * of unknown types are counted in r->skipped. Returns 0 at the trailer or at
 * the end of a truncated file (r->truncated, r->error holds the warning),
 * fn's negative return, or an error as xp_trace_reader_open does.
 */
int xp_trace_reader_run(struct xp_trace_reader *r, xp_trace_record_fn fn, void *ctx);
void xp_trace_reader_close(struct xp_trace_reader *r);

/* When tracing began: the file's tracing time, else (older files) its start. */
uint64_t xp_trace_began(const struct xp_trace_reader *r);
/* Seconds the recording traced: from xp_trace_began to the trailer's time
 * (or the last STATS time, else the last record, in a file cut short). */
double xp_trace_duration(const struct xp_trace_reader *r);

#endif
