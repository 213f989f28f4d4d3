/*
 * `xputrace --gen bash|zsh|man`: the bash and zsh completion and the man
 * page, written by the build from what --help is printed from: the
 * capability table (names, summaries, about, examples, own options), the
 * common options each verb takes, and the option tables of doctor, record,
 * report, export, analyze and simulate. Internal: not in --help.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "core/msg.h"

#define MAX_OPTS 64

/* One verb as the generators see it. */
struct gverb {
	const char *name, *summary;
	const struct xp_cap *cap;		/* NULL: not a capability */
	const char *operands;			/* after the options, as the synopsis shows them */
	const struct xp_cap_opt *opts[MAX_OPTS];	/* every option --help lists, -h last */
	int nopts;
};

/* What the verbs that are not capabilities take after their options. */
static const struct {
	const char *name;
	const struct xp_verb_opts *o;
	const char *operands;	/* FILE: a file name; CAPABILITY, VIEW: a capability; "...": repeated */
} verb_extra[] = {
	{ "doctor", &xp_doctor_opts, "" },
	{ "record", &xp_record_opts, "[CAPABILITY...]" },
	{ "report", &xp_report_opts, "FILE [VIEW]" },
	{ "export", &xp_export_opts, "" },
	{ "serve", &xp_serve_opts, "[CAPABILITY...]" },
	{ "top", &xp_top_opts, "[CAPABILITY...]" },
	{ "analyze", &xp_analyze_opts, "FILE" },
	{ "simulate", &xp_simulate_opts, "FILE" },
};

static const struct xp_cap_opt help_opt = { "help", 'h', NULL, "this text", false, NULL };

static void add_opt(struct gverb *v, const struct xp_cap_opt *o)
{
	for (int i = 0; i < v->nopts; i++)
		if (!strcmp(v->opts[i]->name, o->name))
			return;
	if (v->nopts < MAX_OPTS)
		v->opts[v->nopts++] = o;
}

/* which of a capability's options a verb takes: all (its own verb), record's, or serve's */
enum { OPTS_ALL, OPTS_RECORD, OPTS_TRACED };

static void add_opts(struct gverb *v, unsigned int common, const struct xp_cap_opt *own, int which)
{
	v->nopts += xp_common_opts(common, v->opts + v->nopts, MAX_OPTS - v->nopts);
	for (int i = 0; own && own[i].name; i++)
		if (which == OPTS_ALL || (which == OPTS_RECORD && !own[i].no_record) ||
		    (which == OPTS_TRACED && own[i].record))
			add_opt(v, &own[i]);
}

/* The verbs in --help's order: the first of main's, the capabilities, the rest. 0, or -1. */
static int collect(struct gverb *out, size_t *n, const struct xp_gen_verb *verbs, size_t nverbs)
{
	size_t k = 0;

	for (size_t i = 0; i < nverbs + xp_ncaps; i++) {
		/* main's first verb comes before the capabilities, as usage() prints it */
		size_t at = i == 0 ? 0 : i <= xp_ncaps ? nverbs + i - 1 : i - xp_ncaps;
		struct gverb *v = &out[k];

		memset(v, 0, sizeof(*v));
		if (at >= nverbs) {
			const struct xp_cap *c = xp_caps[at - nverbs];

			if (!xp_cap_runs(c))
				continue;
			v->name = c->name;
			v->summary = c->summary;
			v->cap = c;
			v->operands = "";
			if (c->flags & XP_CAP_POSITIONAL_INTERVAL)
				v->operands = "[INTERVAL [COUNT]]";
			add_opts(v, xp_cap_common(c), c->opts, OPTS_ALL);
		} else {
			size_t e;

			for (e = 0; e < sizeof(verb_extra) / sizeof(verb_extra[0]); e++)
				if (!strcmp(verb_extra[e].name, verbs[at].name))
					break;
			if (e == sizeof(verb_extra) / sizeof(verb_extra[0])) {
				fprintf(stderr, "xputrace: --gen: no options known for the verb '%s' (cmd/complete.c)\n",
					verbs[at].name);
				return -1;
			}
			v->name = verbs[at].name;
			v->summary = verbs[at].summary;
			v->operands = verb_extra[e].operands;
			add_opts(v, verb_extra[e].o->common, verb_extra[e].o->opts, OPTS_ALL);
			/* record takes the capabilities' options but those it refuses; serve and
			 * top those that change what is traced */
			for (size_t c = 0; c < xp_ncaps; c++)
				if (xp_cap_runs(xp_caps[c]) && (verb_extra[e].o == &xp_record_opts ||
							       ((verb_extra[e].o == &xp_serve_opts ||
								 verb_extra[e].o == &xp_top_opts) &&
								xp_caps[c]->metrics_init)))
					add_opts(v, 0, xp_caps[c]->opts,
						 verb_extra[e].o == &xp_record_opts ? OPTS_RECORD : OPTS_TRACED);
		}
		add_opt(v, &help_opt);
		k++;
	}
	*n = k;
	return 0;
}

/* Whether an option's value is a file name (FILE, OUT, PATH). */
static bool takes_file(const struct xp_cap_opt *o)
{
	return o->arg && (!strcmp(o->arg, "FILE") || !strcmp(o->arg, "OUT") || !strcmp(o->arg, "PATH"));
}

/* What an operand of the synopsis is: "file", "cap", or "none" (a value to type). */
static const char *operand_kind(const char *word)
{
	if (!strncmp(word, "FILE", 4))
		return "file";
	if (!strncmp(word, "CAPABILITY", 10) || !strncmp(word, "VIEW", 4))
		return "cap";
	return "none";
}

/* ---- bash ---- */

/* The option words of v: with `arg` only those taking a value, with `file` only file ones. */
static void bash_words(FILE *f, const struct gverb *v, bool arg, bool file)
{
	const char *sep = "";

	for (int i = 0; i < v->nopts; i++) {
		const struct xp_cap_opt *o = v->opts[i];

		if ((arg && !o->arg) || (file && !takes_file(o)))
			continue;
		if (o->short_name)
			fprintf(f, "%s-%c", sep, o->short_name), sep = " ";
		fprintf(f, "%s--%s", sep, o->name);
		sep = " ";
	}
}

/* The operands as words: "file cap" or "cap..." (the last one repeats). */
static void bash_operands(FILE *f, const char *syn)
{
	char word[64];
	const char *sep = "";
	int len;

	while (sscanf(syn, " %63[^ ]%n", word, &len) == 1) {
		const char *w = word + strspn(word, "[");

		fprintf(f, "%s%s%s", sep, operand_kind(w), strstr(w, "...") ? "..." : "");
		sep = " ";
		syn += len;
	}
}

static const char bash_body[] =
	"	# after an option that takes a value: a file name, or nothing to offer\n"
	"	case \" $argopts \" in\n"
	"	*\" $prev \"*)\n"
	"		case \" $fileopts \" in\n"
	"		*\" $prev \"*) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
	"		esac\n"
	"		return 0 ;;\n"
	"	esac\n"
	"	if [[ $cur == -* ]]; then\n"
	"		COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\"))\n"
	"		return 0\n"
	"	fi\n"
	"	# the operands before this word, skipping options and their values\n"
	"	n=0\n"
	"	for ((i = 2; i < COMP_CWORD; i++)); do\n"
	"		w=${COMP_WORDS[i]}\n"
	"		case $w in\n"
	"		=) i=$((i + 1)) ;;\n"
	"		-?*) case \" $argopts \" in *\" $w \"*) [ \"${COMP_WORDS[i + 1]}\" = = ] || i=$((i + 1)) ;; esac ;;\n"
	"		*) n=$((n + 1)) ;;\n"
	"		esac\n"
	"	done\n"
	"	# its kind: the one at its place, or the last when that repeats (\"cap...\")\n"
	"	kind=none\n"
	"	i=0\n"
	"	for w in $operands; do\n"
	"		if [ $i -eq $n ] || { [ \"${w%...}\" != \"$w\" ] && [ $i -lt $n ]; }; then\n"
	"			kind=${w%...}\n"
	"			break\n"
	"		fi\n"
	"		i=$((i + 1))\n"
	"	done\n"
	"	case $kind in\n"
	"	file) compopt -o filenames 2>/dev/null; COMPREPLY=($(compgen -f -- \"$cur\")) ;;\n"
	"	cap) COMPREPLY=($(compgen -W \"$caps\" -- \"$cur\")) ;;\n"
	"	*) COMPREPLY=($(compgen -W \"$opts\" -- \"$cur\")) ;;\n"
	"	esac\n"
	"	return 0\n"
	"}\n"
	"complete -F _xputrace xputrace\n";

static void gen_bash(FILE *f, const struct gverb *v, size_t n)
{
	fprintf(f, "# bash completion for xputrace: written by 'xputrace --gen bash' when it is built\n"
		   "# from its capability table; do not edit.\n\n"
		   "_xputrace()\n{\n"
		   "	local cur=${COMP_WORDS[COMP_CWORD]} prev= verb= v w i n=0 kind\n"
		   "	local opts= argopts= fileopts= operands=\n");
	fprintf(f, "	local verbs=\"");
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? " " : "", v[i].name);
	fprintf(f, "\"\n	local caps=\"");
	for (size_t i = 0, k = 0; i < n; i++)
		if (v[i].cap)
			fprintf(f, "%s%s", k++ ? " " : "", v[i].name);
	fprintf(f, "\"\n\n	COMPREPLY=()\n"
		   "	if [ \"$COMP_CWORD\" -eq 1 ]; then\n"
		   "		COMPREPLY=($(compgen -W \"$verbs help -h --help -V --version\" -- \"$cur\"))\n"
		   "		return 0\n"
		   "	fi\n"
		   "	prev=${COMP_WORDS[COMP_CWORD - 1]}\n"
		   "	# --opt=VALUE: bash splits it at '='\n"
		   "	if [ \"$cur\" = = ]; then\n"
		   "		cur=\n"
		   "	elif [ \"$prev\" = = ] && [ \"$COMP_CWORD\" -gt 2 ]; then\n"
		   "		prev=${COMP_WORDS[COMP_CWORD - 2]}\n"
		   "	fi\n"
		   "	# the verb, or the one verb it abbreviates\n"
		   "	for v in $verbs; do\n"
		   "		case $v in\n"
		   "		\"${COMP_WORDS[1]}\") verb=$v; n=1; break ;;\n"
		   "		\"${COMP_WORDS[1]}\"*) verb=$v; n=$((n + 1)) ;;\n"
		   "		esac\n"
		   "	done\n"
		   "	[ \"$n\" -eq 1 ] || return 0\n"
		   "	case $verb in\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "	%s)\n		opts=\"", v[i].name);
		bash_words(f, &v[i], false, false);
		fprintf(f, "\"\n		argopts=\"");
		bash_words(f, &v[i], true, false);
		fprintf(f, "\"\n		fileopts=\"");
		bash_words(f, &v[i], true, true);
		fprintf(f, "\"\n		operands=\"");
		bash_operands(f, v[i].operands);
		fprintf(f, "\" ;;\n");
	}
	fprintf(f, "	esac\n%s", bash_body);
}

/* ---- zsh ---- */

/*
 * A text quoted for a '...' word of zsh: its lines joined, cut to one short
 * line; `spec` also escapes what _arguments' [...] and :...: parse.
 */
static void zsh_desc(FILE *f, const char *s, bool spec)
{
	size_t len = strlen(s);

	if (len > 70) {	/* at a word, with an ellipsis */
		for (len = 67; len && s[len] != ' ' && s[len] != '\n'; len--)
			;
	}
	for (size_t i = 0; i < len; i++) {
		if (s[i] == '\'')
			fputs("'\\''", f);
		else if (s[i] == '\n')
			fputc(' ', f);
		else if (spec && (s[i] == '[' || s[i] == ']' || s[i] == '\\' || s[i] == ':'))
			fprintf(f, "\\%c", s[i]);
		else
			fputc(s[i], f);
	}
	if (len < strlen(s))
		fputs("...", f);
}

static void zsh_opt(FILE *f, const struct xp_cap_opt *o)
{
	const char *value = !o->arg ? "" : takes_file(o) ? "_files" : " ";

	fprintf(f, " \\\n\t\t\t");
	if (o->short_name)
		fprintf(f, "'(-%c --%s)'{-%c%s,--%s%s}'[", o->short_name, o->name, o->short_name,
			o->arg ? "+" : "", o->name, o->arg ? "=" : "");
	else
		fprintf(f, "'--%s%s[", o->name, o->arg ? "=" : "");
	zsh_desc(f, o->help, true);
	fputc(']', f);
	if (o->arg) {
		fputc(':', f);
		zsh_desc(f, o->arg, true);
		fprintf(f, ":%s", value);
	}
	fputc('\'', f);
}

static void zsh_operands(FILE *f, const char *syn, const char *caps)
{
	char word[64];
	int len, pos = 1;

	while (sscanf(syn, " %63[^ ]%n", word, &len) == 1) {
		const char *w = word + strspn(word, "["), *kind = operand_kind(w);
		char at[16];

		if (strstr(w, "..."))
			snprintf(at, sizeof(at), "*");
		else
			snprintf(at, sizeof(at), "%d", pos++);
		if (!strcmp(kind, "file"))
			fprintf(f, " \\\n\t\t\t'%s:trace file:_files'", at);
		else if (!strcmp(kind, "cap"))
			fprintf(f, " \\\n\t\t\t'%s:capability:(%s)'", at, caps);
		else
			fprintf(f, " \\\n\t\t\t'%s:%.*s: '", at, (int)strcspn(w, "]"), w);
		syn += len;
	}
}

static void gen_zsh(FILE *f, const struct gverb *v, size_t n)
{
	char caps[256] = "";
	size_t k = 0;

	for (size_t i = 0; i < n && k < sizeof(caps); i++)
		if (v[i].cap)
			k += (size_t)snprintf(caps + k, sizeof(caps) - k, "%s%s", k ? " " : "", v[i].name);
	fprintf(f, "#compdef xputrace\n"
		   "# zsh completion for xputrace: written by 'xputrace --gen zsh' when it is built\n"
		   "# from its capability table; do not edit.\n\n"
		   "_xputrace() {\n"
		   "	local curcontext=$curcontext state line verb ret=1\n"
		   "	local -a verbs names m\n"
		   "	verbs=(\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\t\t'%s:", v[i].name);
		zsh_desc(f, v[i].summary, false);
		fprintf(f, "'\n");
	}
	fprintf(f, "	)\n"
		   "	_arguments -C \\\n"
		   "		'(- *)'{-h,--help}'[the commands]' \\\n"
		   "		'(- *)'{-V,--version}'[the version]' \\\n"
		   "		'1: :->verb' \\\n"
		   "		'*:: :->args' && ret=0\n"
		   "	case $state in\n"
		   "	verb)\n"
		   "		_describe -t commands 'xputrace command' verbs && ret=0 ;;\n"
		   "	args)\n"
		   "		# the verb, or the one verb it abbreviates\n"
		   "		verb=$words[1]\n"
		   "		names=(${verbs%%%%:*})\n"
		   "		if (( ! ${names[(Ie)$verb]} )); then\n"
		   "			m=(${(M)names:#${(b)verb}*})\n"
		   "			(( $#m == 1 )) && verb=$m[1]\n"
		   "		fi\n"
		   "		curcontext=${curcontext%%:*:*}:xputrace-$verb:\n"
		   "		case $verb in\n");
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "\t\t%s)\n\t\t\t_arguments -s -S", v[i].name);
		for (int o = 0; o < v[i].nopts; o++)
			zsh_opt(f, v[i].opts[o]);
		zsh_operands(f, v[i].operands, caps);
		fprintf(f, " && ret=0 ;;\n");
	}
	fprintf(f, "		esac ;;\n"
		   "	esac\n"
		   "	return ret\n"
		   "}\n\n"
		   "_xputrace \"$@\"\n");
}

/* ---- man ---- */

/* Text for troff: backslashes escaped, a line never starting with a control character. */
static void man_text(FILE *f, const char *s, size_t len, bool hyphens)
{
	bool bol = true;

	for (size_t i = 0; i < len && s[i]; i++) {
		char c = s[i];

		if (bol && (c == '.' || c == '\''))
			fputs("\\&", f);
		if (c == '\\')
			fputs("\\e", f);
		else if (c == '-' && hyphens)
			fputs("\\-", f);
		else
			fputc(c, f);
		bol = c == '\n';
	}
}

static void man_str(FILE *f, const char *s, bool hyphens)
{
	man_text(f, s, strlen(s), hyphens);
}

static void man_opt(FILE *f, const struct xp_cap_opt *o)
{
	fprintf(f, ".TP\n");
	if (o->short_name)
		fprintf(f, "\\fB\\-%c\\fR, ", o->short_name);
	fprintf(f, "\\fB\\-\\-");
	man_str(f, o->name, true);
	fprintf(f, "\\fR");
	if (o->arg) {
		fprintf(f, " \\fI");
		man_str(f, o->arg, true);
		fprintf(f, "\\fR");
	}
	fprintf(f, "\n");
	/* help's lines are wrapped for a terminal: troff fills them again */
	man_str(f, o->help, false);
	fprintf(f, "\n");
}

/* An "about" text: its blank lines start paragraphs, indented lines are kept as they are. */
static void man_about(FILE *f, const char *s)
{
	bool nofill = false;

	while (*s) {
		size_t len = strcspn(s, "\n");
		bool indented = s[0] == ' ';

		if (!len) {
			fprintf(f, "%s.PP\n", nofill ? ".fi\n" : "");
			nofill = false;
		} else {
			if (indented != nofill)
				fprintf(f, indented ? ".nf\n" : ".fi\n");
			nofill = indented;
			man_text(f, s, len, indented);
			fputc('\n', f);
		}
		s += len + (s[len] == '\n');
	}
	if (nofill)
		fprintf(f, ".fi\n");
}

static void gen_man(FILE *f, const struct gverb *v, size_t n)
{
	fprintf(f, ".\\\" xputrace(1): written by 'xputrace --gen man' when it is built from its\n"
		   ".\\\" capability table; do not edit.\n"
		   ".TH XPUTRACE 1 \"\" \"xputrace %s\" \"User Commands\"\n"
		   ".nh\n"
		   ".SH NAME\n"
		   "xputrace \\- observe the kernel drivers of GPUs and NPUs\n"
		   ".SH SYNOPSIS\n"
		   ".B xputrace\n.I COMMAND\n.RI [ OPTIONS ]\n.br\n"
		   ".B xputrace\n.BR \\-\\-help \" | \" \\-\\-version\n"
		   ".SH DESCRIPTION\n"
		   "xputrace traces what the kernel drivers of GPUs and NPUs do, with BPF programs\n"
		   "that it loads into the running kernel: each command below is one thing it\n"
		   "traces (a capability), or works with what they traced.\n"
		   "A command may be abbreviated to any prefix that names only it; an option may\n"
		   "not: each is spelled in full.\n"
		   "\\fBxputrace \\fICOMMAND \\fB\\-\\-help\\fR describes a command.\n"
		   ".SH COMMANDS\n", XP_VERSION);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, ".SS \"xputrace %s [OPTIONS]%s%s\"\n", v[i].name, v[i].operands[0] ? " " : "", v[i].operands);
		man_str(f, v[i].summary, false);
		fprintf(f, ".\n");
		if (v[i].cap && v[i].cap->about) {
			fprintf(f, ".PP\n");
			man_about(f, v[i].cap->about);
		}
		fprintf(f, ".PP\nOptions:\n.RS\n");
		for (int o = 0; o < v[i].nopts; o++)
			man_opt(f, v[i].opts[o]);
		fprintf(f, ".RE\n");
	}
	fprintf(f, ".SH EXIT STATUS\n"
		   ".TP\n0\nsuccess: a summary was written, or a file was read or written\n"
		   ".TP\n1\nfailed: what could not be done is said on standard error in one line\n"
		   ".TP\n2\nbad usage: an unknown option, a missing or wrong value\n"
		   ".SH EXAMPLES\n");
	for (size_t i = 0; i < n; i++) {
		if (!v[i].cap || !v[i].cap->examples)
			continue;
		fprintf(f, ".PP\n.nf\n");
		man_str(f, v[i].cap->examples, true);
		fprintf(f, ".fi\n");
	}
	fprintf(f, ".SH SEE ALSO\n"
		   "\\fBbpf\\fR(2), \\fBperf\\fR(1)\n");
}

int xp_cmd_gen(int argc, char **argv, const struct xp_gen_verb *verbs, size_t nverbs)
{
	static struct gverb v[64];
	size_t n;

	if (nverbs + xp_ncaps > sizeof(v) / sizeof(v[0]))
		return xp_fail(1, "--gen: more than %zu verbs", sizeof(v) / sizeof(v[0]));
	if (argc != 2)
		return xp_fail(2, "--gen wants one of bash, zsh, man, caps");
	if (!strcmp(argv[1], "caps")) {
		/* the runnable rows as top-level help lists them: for tests that
		 * must not change when a row is added (tests/golden/golden.sh) */
		for (size_t i = 0; i < xp_ncaps; i++)
			if (xp_cap_runs(xp_caps[i]))
				printf("%s\t%s\n", xp_caps[i]->name, xp_caps[i]->summary);
		return xp_finish_stdout(0);
	}
	if (collect(v, &n, verbs, nverbs))
		return 1;
	if (!strcmp(argv[1], "bash"))
		gen_bash(stdout, v, n);
	else if (!strcmp(argv[1], "zsh"))
		gen_zsh(stdout, v, n);
	else if (!strcmp(argv[1], "man"))
		gen_man(stdout, v, n);
	else
		return xp_fail(2, "--gen wants one of bash, zsh, man, caps, not '%s'", argv[1]);
	return xp_finish_stdout(0);
}
