#!/usr/bin/env bash
# The golden outputs of xputrace on the trace files in data/ (cases.txt):
#   golden.sh check [XP]      one PASS/FAIL line per case (tests/e2e/test_golden.sh)
#   golden.sh regen [XP]      rewrite expected/ (after a change meant to alter
#                             output; tests/golden/regen.sh), drop what no case has
#   golden.sh fixtures [GEN]  one PASS/FAIL line per file of data/gen: is it what
#                             the generator GEN (build/tests/golden/mkfixtures) writes?
# XP defaults to ./xputrace. Run from anywhere; cases run from the repo root.
set -u
cd "$(dirname "$0")/../.."
mode=${1:-check}
exp=tests/golden/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# first_diff EXPECTED ACTUAL: where they first differ, on one line
first_diff() {
	awk -v A="$1" -v B="$2" '
	function clip(s, c) {	# the text around column c, printable
		s = substr(s, c > 40 ? c - 40 : 1, 100)
		gsub(/[^ -~]/, "?", s)
		return "\"" s "\""
	}
	BEGIN {
		for (n = 1; ; n++) {
			ra = (getline a < A) > 0
			rb = (getline b < B) > 0
			if (!ra && !rb) {
				print "same lines, different bytes (a final newline?)"
				exit
			}
			if (ra && rb && a == b)
				continue
			if (!ra) {
				print "line " n ": expected end of output, got " clip(b, 1)
				exit
			}
			if (!rb) {
				print "line " n ": expected " clip(a, 1) ", got end of output"
				exit
			}
			for (c = 1; substr(a, c, 1) == substr(b, c, 1); c++)
				;
			print "line " n " col " c ": expected " clip(a, c) ", got " clip(b, c)
			exit
		}
	}'
}

if [ "$mode" = fixtures ]; then
	GEN=${2:-build/tests/golden/mkfixtures}
	data=tests/golden/data/gen
	if ! "$GEN" "$tmp" 2> "$tmp/.err"; then
		echo "FAIL golden/fixtures: $GEN failed: $(head -c 200 "$tmp/.err")"
		exit 0
	fi
	rm -f "$tmp/.err"
	seen=
	for f in "$tmp"/* "$data"/*; do
		n=${f##*/}
		case " $seen " in *" $n "*) continue ;; esac
		seen="$seen $n"
		if [ ! -e "$data/$n" ]; then
			echo "FAIL golden/fixture/$n: written by $GEN but not in $data"
		elif [ ! -e "$tmp/$n" ]; then
			echo "FAIL golden/fixture/$n: in $data but $GEN does not write it"
		elif ! cmp -s "$data/$n" "$tmp/$n"; then
			echo "FAIL golden/fixture/$n: not what $GEN writes: $(cmp "$data/$n" "$tmp/$n" 2>&1 | sed 's/^[^:]*: //; s/.*differ: //' | head -c 200)"
		else
			echo "PASS golden/fixture/$n"
		fi
	done
	exit 0
fi

XP=${2:-./xputrace}
mkdir -p "$exp"
# The capability table's rows are not written into expected outputs: the
# list "a, b, c" becomes @CAPS@ and the top-level help's rows one line
# @CAPABILITY ROWS@, so a new row changes no golden file.
"$XP" --gen caps > "$tmp/caps" || { echo "FAIL golden: $XP --gen caps failed"; exit 0; }
caplist=$(cut -f1 "$tmp/caps" | paste -sd, | sed 's/,/, /g')
norm() { # FILE: rewritten in place
	awk -v list="$caplist" -v rows="$tmp/caps" '
	BEGIN { while ((getline l < rows) > 0) { split(l, f, "\t"); row[sprintf("  %-8s %s", f[1], f[2])] = 1 } }
	row[$0] { if (!inrows) print "  @CAPABILITY ROWS@"; inrows = 1; next }
	{ inrows = 0; while ((i = index($0, list)) > 0) $0 = substr($0, 1, i - 1) "@CAPS@" substr($0, i + length(list)); print }
	' "$1" > "$1.n" && mv "$1.n" "$1"
}
names=" "
while read -r name args; do
	case $name in '' | '#'*) continue ;; esac
	names="$names$name "
	# shellcheck disable=SC2086 # the arguments are words
	"$XP" $args > "$tmp/out" 2> "$tmp/err" < /dev/null
	echo $? > "$tmp/rc"
	case $name in *.pftrace)	# a native Perfetto trace: compared as protoc decodes it
		if ! command -v protoc > /dev/null; then
			echo "SKIP golden/$name: protoc is missing (Debian: protobuf-compiler)"
			continue
		fi
		protoc --decode=perfetto.protos.Trace -I tests/e2e tests/e2e/perfetto_subset.proto \
			< "$tmp/out" > "$tmp/out.txt" 2>&1
		mv "$tmp/out.txt" "$tmp/out"
	esac
	norm "$tmp/out"; norm "$tmp/err"
	if [ "$mode" = regen ]; then
		for k in out err rc; do cp "$tmp/$k" "$exp/$name.$k"; done
		continue
	fi
	bad=
	for k in rc err out; do
		if [ ! -e "$exp/$name.$k" ]; then
			bad="no $exp/$name.$k (a new case? tests/golden/regen.sh writes it)"
			break
		fi
		if ! cmp -s "$exp/$name.$k" "$tmp/$k"; then
			bad="$k $(first_diff "$exp/$name.$k" "$tmp/$k")"
			break
		fi
	done
	if [ -z "$bad" ]; then echo "PASS golden/$name"; else echo "FAIL golden/$name: $bad"; fi
done < tests/golden/cases.txt
if [ "$mode" = regen ]; then
	# expected outputs of cases no longer in cases.txt
	for f in "$exp"/*.rc; do
		[ -e "$f" ] || continue
		n=${f##*/}
		n=${n%.rc}
		case $names in *" $n "*) ;; *) rm -f "$exp/$n.out" "$exp/$n.err" "$exp/$n.rc" ;; esac
	done
fi
