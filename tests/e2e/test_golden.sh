#!/usr/bin/env bash
# report and export on committed trace files (tests/golden/data) print exactly
# what they printed when the expected outputs were written: every verb's
# text, JSON, --info and Perfetto output, the errors of bad files, and the
# command line's usage, help and option errors (cases.txt). And the
# synthetic files in data/gen are what mkfixtures writes, so the generator
# and the committed files cannot drift apart. No root, no BPF.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
GEN=${GEN:-build/tests/golden/mkfixtures}
if [ -x "$GEN" ]; then
	bash tests/golden/golden.sh fixtures "$GEN"
else
	skip "golden/fixtures: $GEN is not built (make helpers)"
fi
if [ ! -x "$XP" ]; then
	skip "golden: $XP is not built"
	exit 0
fi
bash tests/golden/golden.sh check "$XP"
