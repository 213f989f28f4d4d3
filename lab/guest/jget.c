/*
 * jget: read one value out of a JSON document, for lab scenarios that run
 * under busybox (no jq in the guest).
 *
 *   jget FILE PATH      print the value at PATH (strings without quotes,
 *                       objects and arrays as compact JSON); exit 1 if absent
 *   jget -n FILE PATH   print the number of members of the array/object
 *
 * PATH: segments separated by '.': a member name, [N] for an array index,
 * or [key=value] for the first array element whose member key is value
 * (string or number, compared as text). Example:
 *   processes[comm=drmioctl].ioctls[name=DRM_IOCTL_VERSION].calls
 * FILE "-" is standard input.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *p; /* parse cursor */

static void ws(void) { while (*p && isspace((unsigned char)*p)) p++; }

/* Skip one value; return its start (after whitespace) and set *end. */
static const char *skip_value(const char **end);

static const char *skip_string(void)
{
	const char *s = p;
	if (*p != '"') return NULL;
	for (p++; *p && *p != '"'; p++)
		if (*p == '\\' && p[1]) p++;
	if (*p != '"') return NULL;
	p++;
	return s;
}

static const char *skip_value(const char **end)
{
	const char *s;
	ws();
	s = p;
	if (*p == '"') {
		if (!skip_string()) return NULL;
	} else if (*p == '{' || *p == '[') {
		char close = *p == '{' ? '}' : ']';
		p++; ws();
		if (*p == close) { p++; *end = p; return s; }
		for (;;) {
			const char *e;
			if (close == '}') {
				ws();
				if (!skip_string()) return NULL;
				ws();
				if (*p++ != ':') return NULL;
			}
			if (!skip_value(&e)) return NULL;
			ws();
			if (*p == ',') { p++; continue; }
			if (*p == close) { p++; break; }
			return NULL;
		}
	} else {
		while (*p && !strchr(",]} \t\r\n", *p)) p++;
		if (p == s) return NULL;
	}
	*end = p;
	return s;
}

/* Text of a scalar value into buf (strings unquoted, escapes kept simple). */
static void scalar(const char *s, const char *e, char *buf, size_t n)
{
	size_t i = 0;
	if (*s == '"') { s++; e--; }
	for (; s < e && i + 1 < n; s++) {
		if (*s == '\\' && s + 1 < e) s++;
		buf[i++] = *s;
	}
	buf[i] = 0;
}

/* Find member `key` of the object at s; return value start or NULL. */
static const char *member(const char *s, const char *key, size_t klen)
{
	const char *e;
	p = s; ws();
	if (*p != '{') return NULL;
	p++; ws();
	if (*p == '}') return NULL;
	for (;;) {
		const char *k, *v;
		ws();
		k = skip_string();
		if (!k) return NULL;
		ws();
		if (*p++ != ':') return NULL;
		v = skip_value(&e);
		if (!v) return NULL;
		if ((size_t)(p - k) >= 2 && (size_t)(e - v) > 0 && strlen(key) >= klen &&
		    (size_t)(e - k) > 0) {
			size_t kl = 0;
			const char *q = k + 1;
			while (q[kl] != '"') kl++;
			if (kl == klen && !strncmp(q, key, klen)) return v;
		}
		ws();
		if (*p == ',') { p++; continue; }
		return NULL;
	}
}

/* Element of the array at s: by index, or the first with member k == v. */
static const char *element(const char *s, long idx, const char *k, const char *v)
{
	const char *e;
	long i = 0;
	p = s; ws();
	if (*p != '[') return NULL;
	p++; ws();
	if (*p == ']') return NULL;
	for (;;) {
		const char *el = skip_value(&e), *save;
		if (!el) return NULL;
		save = p;
		if (k) {
			const char *mv = member(el, k, strlen(k));
			if (mv) {
				const char *me;
				char buf[512];
				p = mv;
				skip_value(&me);
				scalar(mv, me, buf, sizeof buf);
				if (!strcmp(buf, v)) return el;
			}
		} else if (i == idx) {
			return el;
		}
		i++;
		p = save; ws();
		if (*p == ',') { p++; continue; }
		return NULL;
	}
}

static long count(const char *s)
{
	const char *e;
	long n = 0;
	p = s; ws();
	if (*p != '[' && *p != '{') return -1;
	char close = *p == '[' ? ']' : '}';
	p++; ws();
	if (*p == close) return 0;
	for (;;) {
		if (close == '}') { ws(); skip_string(); ws(); p++; }
		if (!skip_value(&e)) return -1;
		n++;
		ws();
		if (*p == ',') { p++; continue; }
		return n;
	}
}

int main(int argc, char **argv)
{
	int want_count = 0;
	if (argc > 1 && !strcmp(argv[1], "-n")) { want_count = 1; argv++; argc--; }
	if (argc != 3) {
		fprintf(stderr, "usage: jget [-n] FILE PATH\n");
		return 2;
	}
	FILE *f = strcmp(argv[1], "-") ? fopen(argv[1], "r") : stdin;
	if (!f) { perror(argv[1]); return 2; }
	size_t cap = 1 << 16, len = 0, r;
	char *doc = malloc(cap);
	while ((r = fread(doc + len, 1, cap - len - 1, f)) > 0) {
		len += r;
		if (len + 1 >= cap) doc = realloc(doc, cap *= 2);
	}
	doc[len] = 0;
	/* The document is the first line that starts with '{' (tools may print
	 * a banner first). */
	const char *cur = doc;
	while (*cur && *cur != '{') {
		const char *nl = strchr(cur, '\n');
		if (!nl) break;
		cur = nl + 1;
	}
	char *path = argv[2], *seg;
	while (cur && (seg = strsep(&path, ".")) != NULL) {
		char *br = strchr(seg, '[');
		if (br != seg && *seg) {
			cur = member(cur, seg, br ? (size_t)(br - seg) : strlen(seg));
		}
		while (cur && br) {
			char *close = strchr(br, ']');
			if (!close) return 2;
			*close = 0;
			char *eq = strchr(br + 1, '=');
			if (eq) { *eq = 0; cur = element(cur, 0, br + 1, eq + 1); }
			else cur = element(cur, atol(br + 1), NULL, NULL);
			br = strchr(close + 1, '[');
		}
	}
	if (!cur) return 1;
	if (want_count) {
		printf("%ld\n", count(cur));
		return 0;
	}
	const char *e;
	p = cur;
	const char *s = skip_value(&e);
	if (!s) return 1;
	if (*s == '{' || *s == '[') printf("%.*s\n", (int)(e - s), s);
	else { char buf[4096]; scalar(s, e, buf, sizeof buf); printf("%s\n", buf); }
	return 0;
}
