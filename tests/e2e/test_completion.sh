#!/usr/bin/env bash
# The bash and zsh completion and the man page that the build writes from the
# capability table (xputrace --gen): every verb of `xputrace --help` and every
# option of each `xputrace VERB --help` is completed by the bash function
# (run, not grepped), is in the zsh function's block for the verb, and in
# the verb's section of the rendered man page; `make install DESTDIR=...`
# puts the three files in place.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "completion: $XP is not built"
	exit 0
fi
# what the build wrote; another build of xputrace (ASan's) writes its own here
if [ "$XP" = ./xputrace ]; then
	BASHF=$PWD/build/completion/xputrace.bash ZSHF=$PWD/build/completion/_xputrace MANF=$PWD/build/man/xputrace.1
else
	BASHF=$WORK/xputrace.bash ZSHF=$WORK/_xputrace MANF=$WORK/xputrace.1
	"$XP" --gen bash > "$BASHF" && "$XP" --gen zsh > "$ZSHF" && "$XP" --gen man > "$MANF" ||
		fail "completion: $XP --gen failed"
fi
for f in "$BASHF" "$ZSHF" "$MANF"; do
	if [ ! -s "$f" ]; then
		fail "completion: $f was not written (make xputrace writes it)"
		exit 0
	fi
done

# complete WORD...: the bash function's answer, one a line, for the last word
complete_words() {
	bash -c '. "$1" || exit 1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _xputrace
		printf "%s\n" "${COMPREPLY[@]}"' _ "$BASHF" "$@"
}
# the options a --help lists: option lines, record's "CAP --opt" lines (not
# those it lists as refused: nothing offers them), the usage line
help_opts() {
	"$XP" "$1" --help | awk '
		/^[A-Z]/ { refused = /^Refused by/ }
		refused { next }
		/^Usage:/ { for (i = 3; i <= NF; i++) { w = $i; gsub(/[][]/, "", w); if (w ~ /^--?[A-Za-z]/) print w } }
		/^ +-/ { for (i = 1; i <= NF; i++) { w = $i; sub(/,$/, "", w); if (w !~ /^--?[A-Za-z]/) break; print w } }
		/^  [a-z]+ +--[a-z]/ && !/^  xputrace/ { print $2 }' | sort -u
}
# the lines of FILE from the line matching START to the next matching END
section() { # file start-regex end-regex
	awk -v s="$2" -v e="$3" 'on && $0 ~ e { exit } $0 ~ s { on = 1 } on' "$1"
}
has_word() { # text word
	grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|\$)" <<< "$1"
}

if command -v man > /dev/null; then
	MANWIDTH=200 LC_ALL=C man -l "$MANF" 2> "$WORK/man.err" | col -b > "$WORK/man.txt"
elif command -v groff > /dev/null; then
	groff -man -Tascii "$MANF" 2> "$WORK/man.err" | col -b > "$WORK/man.txt"
else
	cp "$MANF" "$WORK/man.txt"	# the source: options are written \-\-name there
	sed -i 's/\\-/-/g' "$WORK/man.txt"
	: > "$WORK/man.err"
fi

verbs=$("$XP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1}')
top=$(complete_words xputrace "")
missing=
for v in $verbs; do
	grep -qx -- "$v" <<< "$top" || missing="$missing bash:$v"
	grep -qE "^[[:space:]]+'$v:" "$ZSHF" || missing="$missing zsh:$v"
	grep -qE "^ +xputrace $v \[OPTIONS\]" "$WORK/man.txt" || missing="$missing man:$v"
done
if [ -n "$verbs" ] && [ -z "$missing" ]; then
	pass "completion: every verb of --help ($(echo $verbs)) in bash, zsh and the man page"
else
	fail "completion: verbs missing:$missing"
fi

for v in $verbs; do
	opts=$(help_opts "$v")
	reply=$(complete_words xputrace "$v" -)
	zblock=$(awk -v s="^\t\t$v\\)\$" '$0 ~ s { on = 1 } on { print } on && /ret=0 ;;/ { exit }' "$ZSHF")
	mblock=$(section "$WORK/man.txt" "^ +xputrace $v \\[OPTIONS\\]" "^ +xputrace [a-z]+ \\[OPTIONS\\]|^EXIT STATUS")
	missing=
	for o in $opts; do
		grep -qx -- "$o" <<< "$reply" || missing="$missing bash:$o"
		has_word "$zblock" "$o" || missing="$missing zsh:$o"
		has_word "$mblock" "$o" || missing="$missing man:$o"
	done
	if [ -n "$opts" ] && [ -z "$missing" ]; then
		pass "completion: $v: every option of its --help ($(echo $opts | wc -w)) in bash, zsh and the man page"
	else
		fail "completion: $v: options missing:${missing:- none listed by --help}"
	fi
done

# what follows an option or takes an operand: files, capabilities
touch "$WORK/gpu.xpt"
caps=$("$XP" doctor --json | python3 -c '
import json, sys
print(" ".join(k for k, v in json.load(sys.stdin)["capabilities"].items() if v["in_this_build"]))')
after_o=$(cd "$WORK" && complete_words xputrace record -o gp)
after_file=$(complete_words xputrace report "$WORK/gpu.xpt" "")
abbrev=$(complete_words xputrace rep "$WORK/gpu.xpt" -j "")
export_in=$(cd "$WORK" && complete_words xputrace export --perfetto = g)
if [ "$after_o" = gpu.xpt ] && [ "$(echo $after_file)" = "$caps" ] && [ "$(echo $abbrev)" = "$caps" ] &&
	[ "$export_in" = gpu.xpt ]; then
	pass "completion: bash completes files after -o and --perfetto=, capabilities after report FILE"
else
	fail "completion: bash: after -o '$after_o', report FILE '$(echo $after_file)', rep FILE -j '$(echo $abbrev)' (want '$caps'), --perfetto= '$export_in'"
fi

if command -v zsh > /dev/null; then
	if zsh -n "$ZSHF" 2> "$WORK/zsh.err"; then
		pass "completion: the zsh function parses (zsh -n)"
	else
		fail "completion: zsh -n: $(head -c 300 "$WORK/zsh.err")"
	fi
else
	skip "completion: zsh -n: zsh is not installed"
fi

if ! command -v man > /dev/null; then
	skip "completion: man --warnings: man is not installed"
elif LC_ALL=C man --warnings -l "$MANF" 2>&1 > /dev/null | grep . > "$WORK/manw.err"; then
	fail "completion: man --warnings: $(head -c 300 "$WORK/manw.err")"
else
	pass "completion: the man page renders without warnings (man --warnings -l)"
fi

if [ "$XP" != ./xputrace ]; then
	skip "completion: make install: tests the build's ./xputrace, not $XP"
elif ! make --no-print-directory -s install DESTDIR="$WORK/dest" PREFIX=/usr > "$WORK/inst.out" 2>&1; then
	fail "completion: make install DESTDIR: $(tail -c 300 "$WORK/inst.out")"
else
	d=$WORK/dest/usr/share
	if cmp -s "$BASHF" "$d/bash-completion/completions/xputrace" && cmp -s "$ZSHF" "$d/zsh/site-functions/_xputrace" &&
		cmp -s "$MANF" "$d/man/man1/xputrace.1"; then
		pass "completion: make install DESTDIR puts the bash and zsh completion and the man page in place"
	else
		fail "completion: make install DESTDIR: $(cd "$WORK/dest" && find . -type f | tr '\n' ' ')"
	fi
fi
