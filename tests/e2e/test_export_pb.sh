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
