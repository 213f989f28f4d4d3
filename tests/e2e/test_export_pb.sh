#!/usr/bin/env bash
# export's native Perfetto format on every committed trace file (the golden
# data: every capability's records, cut and unfinished files): the protobuf,
# decoded by protoc, has the tracks, slices, async spans, flows and counters
# of the JSON export of the same file (check_perfetto_pb.py). The recordings
# made here (ioctl, latency, api) are checked where they are made
# (test_record.sh, test_latency.sh, test_api.sh). No root, no BPF.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
if [ ! -x "$XP" ]; then
	skip "export_pb: $XP is not built"
	exit 0
fi
for f in tests/golden/data/*.xpt tests/golden/data/gen/*.xpt; do
	# files export refuses (a byte-flipped header) have nothing to compare;
	# an empty recording and one cut before its first block export nothing
	"$XP" export --perfetto "$f" --format json -o "$WORK/probe.json" --force 2> /dev/null || continue
	case ${f##*/} in empty.xpt | cut.xpt) ok=empty-ok ;; *) ok= ;; esac
	pb_agrees "export_pb: ${f#tests/golden/data/}" "$f" $ok
done

# --format: one line and status 2 for a value it does not know; -o rules as for JSON
one_line "export_pb: an unknown --format is a usage error (status 2)" 2 "--format wants proto or json, not 'xml'" \
	export --perfetto tests/golden/data/mem.xpt --format xml -o "$WORK/x"
[ ! -e "$WORK/x" ] && pass "export_pb: a bad --format writes nothing" || fail "export_pb: a bad --format wrote $WORK/x"
echo keep > "$WORK/old"
ln -s "$WORK/old" "$WORK/lnk"
one_line "export_pb: the protobuf is not written through a symlink without --force" 2 "symbolic link" \
	export --perfetto tests/golden/data/mem.xpt -o "$WORK/lnk"
[ "$(cat "$WORK/old")" = keep ] && pass "export_pb: the linked file is untouched" || fail "export_pb: the linked file changed"
mkfifo "$WORK/fifo"
one_line "export_pb: the protobuf to a FIFO with no reader is refused at once" 1 "no process is reading" \
	export --perfetto tests/golden/data/mem.xpt -o "$WORK/fifo"

# --compress: the same packets, deflated in batches that Perfetto inflates;
# exactly the plain export's bytes once inflated, for every committed file
n=0 bad=
for f in tests/golden/data/*.xpt tests/golden/data/gen/*.xpt; do
	"$XP" export --perfetto "$f" -o "$WORK/plain.pftrace" --force 2> /dev/null || continue
	if ! "$XP" export --perfetto "$f" --compress -o "$WORK/z.pftrace" --force 2> "$WORK/z.err"; then
		bad+="${f##*/}: $(head -c 200 "$WORK/z.err"); "
	elif ! msg=$(python3 tests/e2e/check_perfetto_pb.py --inflates-to "$WORK/plain.pftrace" "$WORK/z.pftrace"); then
		bad+="${f##*/}: $msg; "
	fi
	n=$((n + 1))
done
[ -z "$bad" ] && [ $n -gt 10 ] && pass "export_pb: --compress inflates to the plain export for $n files" ||
	fail "export_pb: --compress, of $n files: ${bad:-none compared}"
one_line "export_pb: --compress with --format json is a usage error (status 2)" 2 "--compress is for the protobuf format" \
	export --perfetto tests/golden/data/mem.xpt --format json --compress -o "$WORK/x"
# and read as trace_processor reads it, the compressed export agrees with the JSON
if command -v protoc > /dev/null; then
	"$XP" export --perfetto tests/golden/data/gen/all.xpt --compress -o "$WORK/z.pftrace" --force 2> /dev/null
	"$XP" export --perfetto tests/golden/data/gen/all.xpt --format json -o "$WORK/z.json" --force 2> /dev/null
	"$XP" export --perfetto tests/golden/data/gen/all.xpt -o "$WORK/plain.pftrace" --force 2> /dev/null
	if msg=$(python3 tests/e2e/check_perfetto_pb.py "$WORK/z.pftrace" "$WORK/z.json" -v 2>&1); then
		pass "export_pb: --compress of gen/all.xpt: $msg"
	else
		fail "export_pb: --compress of gen/all.xpt: $(printf '%s' "$msg" | head -3 | tr '\n' ';')"
	fi
	zs=$(stat -c %s "$WORK/z.pftrace") ps=$(stat -c %s "$WORK/plain.pftrace")
	[ "$zs" -lt $((ps / 2)) ] && pass "export_pb: --compress writes $zs bytes for the plain $ps" ||
		fail "export_pb: --compress writes $zs bytes, not under half the plain $ps"
else
	skip "export_pb: --compress against the JSON: protoc is missing (Debian: protobuf-compiler)"
fi
