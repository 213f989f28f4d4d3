/* `latency`'s key fields (latency_keys.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps/latency/latency_keys.h"

static void field_list(const struct xp_tp_format *fmt, char *buf, size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < fmt->nfields && k < len; i++)
		if (!fmt->fields[i].common)
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? ", " : "", fmt->fields[i].name);
}

static bool is_char_array(const struct xp_tp_field *f)
{
	/* the parser keeps the element type: "char name[16]" is a char of 16 bytes */
	return !f->data_loc && !strcmp(f->type, "char") && f->size > 1;
}

int xp_lat_key_resolve(const struct xp_keyspec *k, const struct xp_probe *p,
		       const struct xp_tp_format *fmt, struct xp_lat_side_cfg *cfg,
		       uint8_t kind[XP_LAT_MAX_KEYS], char *err, size_t len)
{
	char ps[512];

	memset(cfg, 0, sizeof(*cfg));
	memset(kind, 0, XP_LAT_MAX_KEYS);
	xp_probe_str(p, ps, sizeof(ps));
	for (int i = 0; i < k->n; i++) {
		struct xp_lat_field_cfg *c = &cfg->f[i];
		const char *name = k->name[i];
		int arg = xp_key_arg(name);

		if (!strcmp(name, "tid") || !strcmp(name, "pid")) {
			c->src = name[0] == 't' ? XP_LAT_SRC_TID : XP_LAT_SRC_PID;
			kind[i] = XP_LAT_KIND_UINT;
			continue;
		}
		if (xp_probe_has_args(p->kind)) {
			if (arg < 0) {
				snprintf(err, len, "--key %s: %s has arguments arg0..arg5, tid and pid, no field '%s'",
					 name, ps, name);
				return -EINVAL;
			}
			if (xp_probe_is_return(p->kind) && !xp_probe_args_at_return(p->kind)) {
				snprintf(err, len, "--key %s: %s fires at the return, where the arguments are "
						   "gone; key by tid instead", name, ps);
				return -EINVAL;
			}
			c->src = XP_LAT_SRC_ARG;
			c->arg = (uint8_t)arg;
			kind[i] = XP_LAT_KIND_HEX;
			continue;
		}
		{
			const struct xp_tp_field *f = fmt ? xp_tp_field(fmt, name) : NULL;
			char list[400];

			if (!f) {
				if (fmt)
					field_list(fmt, list, sizeof(list));
				snprintf(err, len, "--key %s: %s has no field '%s' (fields: %s)", name, ps, name,
					 fmt ? list : "unknown");
				return -EINVAL;
			}
			c->off = f->offset;
			c->size = f->size;
			if (f->data_loc) {
				c->src = f->rel_loc ? XP_LAT_SRC_RELLOC : XP_LAT_SRC_STRLOC;
				kind[i] = XP_LAT_KIND_STR;
				if (strstr(f->type, "char") == NULL) {
					snprintf(err, len, "--key %s: field '%s' of %s is a dynamic array (%s), "
							   "not a string or a number", name, name, ps, f->type);
					return -EINVAL;
				}
			} else if (is_char_array(f)) {
				c->src = XP_LAT_SRC_CHARS;
				kind[i] = XP_LAT_KIND_STR;
			} else if (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) {
				c->src = XP_LAT_SRC_NUM;
				c->is_signed = f->is_signed;
				kind[i] = f->is_signed ? XP_LAT_KIND_INT : XP_LAT_KIND_UINT;
			} else {
				snprintf(err, len, "--key %s: field '%s' of %s (%s, %u bytes) is neither a number "
						   "nor a string", name, name, ps, f->type, f->size);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static const char *kind_name(uint8_t k)
{
	return k == XP_LAT_KIND_STR ? "a string" : k == XP_LAT_KIND_HEX ? "an argument" : "a number";
}

int xp_lat_key_agree(const struct xp_keyspec *k, const uint8_t a[XP_LAT_MAX_KEYS],
		     const uint8_t b[XP_LAT_MAX_KEYS], char *err, size_t len)
{
	for (int i = 0; i < k->n; i++) {
		bool sa = a[i] == XP_LAT_KIND_STR, sb = b[i] == XP_LAT_KIND_STR;

		if (sa != sb) {
			snprintf(err, len, "--key %s: %s at --from but %s at --to: the two cannot pair",
				 k->name[i], kind_name(a[i]), kind_name(b[i]));
			return -EINVAL;
		}
	}
	return 0;
}
