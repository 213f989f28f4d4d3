#!/usr/bin/env bash
# The golden outputs of report and export on the trace files in data/:
#   golden.sh check [XP]   one PASS/FAIL line per case (tests/e2e/test_golden.sh)
#   golden.sh regen [XP]   rewrite expected/ (after a change meant to alter output)
# XP defaults to ./xputrace. Run from anywhere; cases run from the repo root.
set -u
cd "$(dirname "$0")/../.."
mode=${1:-check} XP=${2:-./xputrace}
exp=tests/golden/expected
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$exp"
while read -r name args; do
	case $name in '' | '#'*) continue ;; esac
	# shellcheck disable=SC2086 # the arguments are words
	"$XP" $args > "$tmp/out" 2> "$tmp/err"
	echo $? > "$tmp/rc"
	if [ "$mode" = regen ]; then
		for k in out err rc; do cp "$tmp/$k" "$exp/$name.$k"; done
		continue
	fi
	bad=
	for k in rc err out; do
		if ! cmp -s "$tmp/$k" "$exp/$name.$k"; then
			bad="$k differs: $(diff "$exp/$name.$k" "$tmp/$k" 2>&1 | sed -n 2,3p | tr '\n' ' ' | head -c 240)"
			break
		fi
	done
	if [ -z "$bad" ]; then echo "PASS golden/$name"; else echo "FAIL golden/$name: $bad"; fi
done < tests/golden/cases.txt
