/*
 * Tracepoint record layouts, read from tracefs `events/GROUP/NAME/format` at
 * start-up instead of being hard-coded per kernel version. The raw bytes a
 * BPF `tracepoint` program sees (its ctx) are laid out exactly as that file
 * says; decoding them with the parsed layout keeps kernel differences in data.
 * No libbpf here: record/report decode files with the layouts stored in them.
 */
#ifndef XP_CORE_TPFORMAT_H
#define XP_CORE_TPFORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XP_TP_MAX_FIELDS 32
#define XP_TP_NAME_LEN 48
#define XP_TP_TYPE_LEN 64

struct xp_tp_field {
	char name[XP_TP_NAME_LEN];
	char type[XP_TP_TYPE_LEN];	/* "u64", "struct dma_fence *", "__data_loc char[]" */
	uint16_t offset, size;
	bool is_signed;
	bool data_loc;			/* __data_loc / __rel_loc: a u32 (len << 16 | offset) */
	bool rel_loc;			/* __rel_loc: offset relative to the field's end */
	bool common;			/* common_* header field */
};

struct xp_tp_format {
	char name[XP_TP_NAME_LEN];
	uint32_t id;
	int nfields;
	uint16_t size;			/* end of the last fixed field */
	struct xp_tp_field fields[XP_TP_MAX_FIELDS];
};

/* Parses the text of a format file; -EINVAL when it has no usable field lines. */
int xp_tp_format_parse(const char *text, struct xp_tp_format *out);
/* Reads and parses TRACEFS/events/GROUP/NAME/format; -errno on failure. */
int xp_tp_format_load(const char *tracefs, const char *group, const char *name,
		      struct xp_tp_format *out);

const struct xp_tp_field *xp_tp_field(const struct xp_tp_format *f, const char *name);

/*
 * Reads an integer (or pointer) field of 1, 2, 4 or 8 bytes from `raw`
 * (sign-extended when the field is signed). -ERANGE when the field lies
 * beyond `len`, -EINVAL for other sizes.
 */
int xp_tp_read_u64(const struct xp_tp_field *fld, const void *raw, size_t len, uint64_t *v);
/* Copies a __data_loc string out of a whole raw record into buf (NUL-terminated). */
int xp_tp_read_str(const struct xp_tp_field *fld, const void *raw, size_t len, char *buf,
		   size_t buflen);

#endif
