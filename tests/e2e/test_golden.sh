#!/usr/bin/env bash
# report and export on committed trace files (tests/golden/data) print exactly
# what they printed when the expected outputs were written: every verb's
# text, JSON, --info and Perfetto output, and the errors of bad files.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
if [ ! -x "$XP" ]; then
	skip "golden: $XP is not built"
	exit 0
fi
bash tests/golden/golden.sh check "$XP"
