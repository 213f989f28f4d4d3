#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/tpformat.h"

static void copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* Reads "key:VALUE;" from p; returns a pointer after ';' or NULL. */
static const char *attr(const char *p, const char *key, const char **val, size_t *vlen)
{
	const char *k = strstr(p, key), *end;

	if (!k)
		return NULL;
	k += strlen(key);
	end = strchr(k, ';');
	if (!end)
		return NULL;
	*val = k;
	*vlen = (size_t)(end - k);
	return end + 1;
}

static int parse_num(const char *s, size_t n, unsigned long *out)
{
	char buf[24], *end;

	if (!n || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	*out = strtoul(buf, &end, 10);
	return *end ? -EINVAL : 0;
}

/*
 * One line: "\tfield:TYPE NAME[ARRAY];\toffset:N;\tsize:N;\tsigned:N;".
 * The declaration is split at its last identifier: "struct dma_fence * fence",
 * "__data_loc char[] name", "char comm[16]".
 */
static int parse_field(const char *line, size_t len, struct xp_tp_field *f)
{
	char decl[160];
	const char *v, *p;
	size_t vl, dl;
	unsigned long off, size, sgn = 0;
	char *name, *e;

	if (len >= sizeof(decl) + 64)
		return -EINVAL;
	p = attr(line, "field:", &v, &vl);
	if (!p || vl >= sizeof(decl))
		return -EINVAL;
	copy(decl, sizeof(decl), v, vl);
	if (!(p = attr(p, "offset:", &v, &vl)) || parse_num(v, vl, &off))
		return -EINVAL;
	if (!(p = attr(p, "size:", &v, &vl)) || parse_num(v, vl, &size))
		return -EINVAL;
	if (attr(p, "signed:", &v, &vl))	/* absent on very old kernels */
		parse_num(v, vl, &sgn);
	if (off > 0xffff || size > 0xffff)
		return -EINVAL;
	/* strip a trailing [N] array suffix from the name, then find the name */
	dl = strlen(decl);
	while (dl && decl[dl - 1] == ' ')
		decl[--dl] = '\0';
	e = decl + dl;
	if (dl && decl[dl - 1] == ']') {
		char *lb = strrchr(decl, '[');

		if (lb && lb > decl && lb[-1] != ' ' && lb[-1] != ']')
			e = lb;	/* "comm[16]": the array belongs to the name */
	}
	name = e;
	while (name > decl && (name[-1] == '_' || (name[-1] >= '0' && name[-1] <= '9') ||
			       (name[-1] >= 'a' && name[-1] <= 'z') ||
			       (name[-1] >= 'A' && name[-1] <= 'Z')))
		name--;
	if (name == e || name == decl)
		return -EINVAL;
	copy(f->name, sizeof(f->name), name, (size_t)(e - name));
	/* type: what precedes the name, trimmed */
	while (name > decl && name[-1] == ' ')
		name--;
	copy(f->type, sizeof(f->type), decl, (size_t)(name - decl));
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = sgn != 0;
	f->data_loc = !strncmp(decl, "__data_loc", 10) || !strncmp(decl, "__rel_loc", 9);
	f->rel_loc = !strncmp(decl, "__rel_loc", 9);
	f->common = !strncmp(f->name, "common_", 7);
	return 0;
}

int xp_tp_format_parse(const char *text, struct xp_tp_format *out)
{
	const char *p = text;

	memset(out, 0, sizeof(*out));
	if (!text)
		return -EINVAL;
	while (*p) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		const char *s = p;

		while (s < p + len && (*s == ' ' || *s == '\t'))
			s++;
		if (!strncmp(s, "name:", 5)) {
			const char *v = s + 5;

			while (*v == ' ')
				v++;
			copy(out->name, sizeof(out->name), v, (size_t)(p + len - v));
		} else if (!strncmp(s, "ID:", 3)) {
			out->id = (uint32_t)strtoul(s + 3, NULL, 10);
		} else if (!strncmp(s, "field:", 6) && out->nfields < XP_TP_MAX_FIELDS) {
			char line[256];
			struct xp_tp_field *f = &out->fields[out->nfields];

			copy(line, sizeof(line), s, (size_t)(p + len - s));
			if (!parse_field(line, strlen(line), f)) {
				if (f->offset + f->size > out->size)
					out->size = (uint16_t)(f->offset + f->size);
				out->nfields++;
			}
		} else if (!strncmp(s, "print fmt:", 10)) {
			break;
		}
		p += len;
		if (*p == '\n')
			p++;
	}
	return out->nfields ? 0 : -EINVAL;
}

int xp_tp_format_load(const char *tracefs, const char *group, const char *name,
		      struct xp_tp_format *out)
{
	char path[512], *buf;
	size_t n = 0;
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, group, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	buf = malloc(16384);
	if (!buf) {
		fclose(f);
		return -ENOMEM;
	}
	n = fread(buf, 1, 16383, f);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	buf[n] = '\0';
	if (!err)
		err = xp_tp_format_parse(buf, out);
	free(buf);
	return err;
}

const struct xp_tp_field *xp_tp_field(const struct xp_tp_format *f, const char *name)
{
	for (int i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

int xp_tp_read_u64(const struct xp_tp_field *fld, const void *raw, size_t len, uint64_t *v)
{
	const unsigned char *p = (const unsigned char *)raw + fld->offset;

	if ((size_t)fld->offset + fld->size > len)
		return -ERANGE;
	switch (fld->size) {
	case 1: { uint8_t x; memcpy(&x, p, 1); *v = fld->is_signed ? (uint64_t)(int64_t)(int8_t)x : x; break; }
	case 2: { uint16_t x; memcpy(&x, p, 2); *v = fld->is_signed ? (uint64_t)(int64_t)(int16_t)x : x; break; }
	case 4: { uint32_t x; memcpy(&x, p, 4); *v = fld->is_signed ? (uint64_t)(int64_t)(int32_t)x : x; break; }
	case 8: memcpy(v, p, 8); break;
	default: return -EINVAL;
	}
	return 0;
}

int xp_tp_read_str(const struct xp_tp_field *fld, const void *raw, size_t len, char *buf,
		   size_t buflen)
{
	uint64_t loc;
	size_t off, n;
	int err;

	if (!buflen)
		return -EINVAL;
	buf[0] = '\0';
	if (!fld->data_loc)
		return -EINVAL;
	if ((err = xp_tp_read_u64(fld, raw, len, &loc)))
		return err;
	off = (size_t)(loc & 0xffff) + (fld->rel_loc ? fld->offset + fld->size : 0);
	n = (size_t)((loc >> 16) & 0xffff);
	if (off + n > len)
		return -ERANGE;
	copy(buf, buflen, (const char *)raw + off, strnlen((const char *)raw + off, n));
	return 0;
}
