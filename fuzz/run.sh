#!/usr/bin/env bash
# Fuzzes the trace file reader with libFuzzer for a bounded time.
#   bash fuzz/run.sh [SECONDS]     (make fuzz FUZZ_TIME=SECONDS)
# First replays fuzz/regress/ (inputs that crashed the reader once), then
# mutates fuzz/seeds/ plus the corpus kept in build/fuzz/corpus. A crash
# leaves its input in build/fuzz/crashes/ and fails the run: fix the
# reader, then keep the input as fuzz/regress/NAME (the unit test
# test_tracefile replays that folder on every `make test`).
set -u
cd "$(dirname "$0")/.."
secs=${1:-60}
bin=build/fuzz/fuzz_reader
[ -x "$bin" ] || { echo "fuzz: $bin is not built (make fuzz builds it)" >&2; exit 2; }
mkdir -p build/fuzz/corpus build/fuzz/crashes
regress=(fuzz/regress/*)
if [ -e "${regress[0]}" ]; then
	"$bin" "${regress[@]}" > build/fuzz/regress.log 2>&1 ||
		{ echo "fuzz: a regression input crashes the reader again (build/fuzz/regress.log)" >&2; exit 1; }
	echo "fuzz: ${#regress[@]} regression inputs replayed"
fi
"$bin" -max_total_time="$secs" -max_len=65536 -timeout=10 -print_final_stats=1 \
	-artifact_prefix=build/fuzz/crashes/ build/fuzz/corpus fuzz/seeds > build/fuzz/fuzz.log 2>&1
rc=$?
grep -E "^stat::number_of_executed_units|^#[0-9]+.*DONE" build/fuzz/fuzz.log | tail -2
if [ $rc -ne 0 ]; then
	echo "fuzz: the reader crashed; input and log in build/fuzz/ (crashes/, fuzz.log):" >&2
	grep -m3 -E "ERROR|SUMMARY" build/fuzz/fuzz.log >&2
	exit 1
fi
echo "fuzz: no crash in ${secs} s"
