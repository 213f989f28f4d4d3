#!/usr/bin/env bash
# What xputrace says when it cannot do what was asked: libbpf's own error
# codes in words, no verb said twice, usage errors with status 2, a huge
# argument cut in its error line; and '-' as the trace file of report.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
if [ ! -x "$XP" ]; then
	skip "messages: $XP is not built"
	exit 0
fi

one_line "messages: export -o '' is a usage error (status 2)" 2 "-o wants a file name, not ''" \
	export --perfetto tests/golden/data/mem.xpt -o ''
one_line "messages: export --perfetto '' is a usage error (status 2)" 2 "--perfetto wants a trace file" \
	export --perfetto '' -o "$WORK/x.json"

# a 100 KB argument: one line, cut to about 1 KB, its start and its reason kept
big=$(head -c 100000 /dev/zero | tr '\0' 7)
for args in "ioctl -p $big" "report $WORK/$big" "latency --from tracepoint:a:$big --to tracepoint:a:b"; do
	"$XP" $args > "$WORK/big.out" 2> "$WORK/big.err"
	rc=$?
	bytes=$(wc -c < "$WORK/big.err")
	verb=${args%% *}
	if [ $rc -ne 0 ] && [ "$(wc -l < "$WORK/big.err")" -eq 1 ] && [ "$bytes" -le 1200 ] &&
		grep -q "^xputrace: $verb: " "$WORK/big.err"; then
		pass "messages: a 100 KB argument to $verb is cut in its one error line ($bytes bytes, status $rc)"
	else
		fail "messages: a 100 KB argument to $verb: status $rc, $(wc -l < "$WORK/big.err") lines, $bytes bytes: $(head -c 150 "$WORK/big.err")"
	fi
done

# record takes every option of the capabilities (tests/e2e/test_options.sh);
# the few it cannot honour are refused by name with why, as its --help says
one_line "messages: record refuses nvidia's --on-xid by name, saying why" 2 "--on-xid is the live verb's own recorder" \
	record -o "$WORK/m.xpt" --on-xid "$WORK/x.xpt" nvidia
one_line "messages: record names the capabilities of an option none of the named ones has" 2 \
	"--max-keys is an option of ioctl, latency, none of which is in this run" record -o "$WORK/m.xpt" --max-keys 5 fence
if "$XP" record --help | grep -q "^  nvidia *--on-xid FILE: it is the live verb's own recorder"; then
	pass "messages: record --help says which capability options it refuses, and why"
else
	fail "messages: record --help does not say which capability options it refuses"
fi

# report - reads the trace from standard input, as the file itself reads
"$XP" report tests/golden/data/mem.xpt -j > "$WORK/f.json" 2> /dev/null
"$XP" report - -j < tests/golden/data/mem.xpt > "$WORK/s.json" 2> "$WORK/s.err"
rc=$?
if [ $rc -eq 0 ] && python3 - "$WORK/f.json" "$WORK/s.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
a.pop("source"); b.pop("source")
sys.exit(0 if a == b else 1)
PY
then
	pass "messages: report - reads the trace from standard input"
else
	fail "messages: report -: status $rc: $(head -c 200 "$WORK/s.err")"
fi

# a refused file is one line: not its undecodable records after it (all.xpt has
# one, before its trailer, here damaged), nor a read error for a directory
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[-12] ^= 0xff; open(sys.argv[2], "wb").write(d)' \
	tests/golden/data/gen/all.xpt "$WORK/bad.xpt"
one_line "messages: export of a damaged file is its one line of refusal" 1 "export: .*bad.xpt: corrupt trace file: trailer block" \
	export --perfetto "$WORK/bad.xpt" -o "$WORK/bad.pftrace"
for verb in report export simulate; do
	case $verb in
	report) args="report $WORK" ;;
	export) args="export --perfetto $WORK -o $WORK/d.pftrace" ;;
	simulate) args="simulate $WORK --policy fifo" ;;
	esac
	one_line "messages: $verb of a directory says it is one" 1 "^xputrace: $verb: $WORK is a directory, not a trace file$" $args
done

why=$(bpf_unavailable)
if [ -n "$why" ]; then
	skip "messages: kernel-side messages: $why"
	exit 0
fi
# a uprobe into a file that is not ELF: said in words, not libbpf's code 4001
one_line "messages: a uprobe into a file that is not ELF says so" 1 "/etc/passwd is not an ELF executable" \
	latency --from uprobe:/etc/passwd:main --to uretprobe:/etc/passwd:main -d 1
# without privilege: the verb once ("ioctl: tracing needs root", not "ioctl: ioctl: ...")
if command -v setpriv > /dev/null; then
	for verb in ioctl latency; do
		args="-d 1"
		[ $verb = latency ] && args="--preset syscall:read -d 1"
		setpriv --reuid=65534 --regid=65534 --clear-groups "$XP" $verb $args > /dev/null 2> "$WORK/np.err"
		rc=$?
		if [ $rc -eq 1 ] && [ "$(wc -l < "$WORK/np.err")" -eq 1 ] && ! grep -q "$verb: $verb:" "$WORK/np.err" &&
			grep -q "^xputrace: $verb: " "$WORK/np.err"; then
			pass "messages: $verb without privilege names the verb once: $(head -c 80 "$WORK/np.err")"
		else
			fail "messages: $verb without privilege: status $rc: $(head -c 200 "$WORK/np.err")"
		fi
	done
else
	skip "messages: without privilege: setpriv missing"
fi

# no GPU/NPU device majors: a note (tracing goes on and ends well), said once a
# run, never as an error line
if grep -qE ' (drm|accel|nvidia.*|kfd)$' /proc/devices; then
	skip "messages: the note of no device majors: this machine has GPU/NPU majors"
else
	LIB=$E2E_BIN/libapiwork.so	# api: a library of its own, wherever the machine's are
	ok=0 runs=0
	api=
	[ -e "$LIB" ] && api="api --lib $LIB:clFinish"
	for args in "ioctl -d 0.2" "record -o $WORK/n.xpt -d 0.2 ioctl $api"; do
		runs=$((runs + 1))
		timeout 20 "$XP" $args > /dev/null 2> "$WORK/n.err"
		rc=$?
		verb=${args%% *}
		if [ $rc -eq 0 ] && [ "$(grep -c "^note: $verb: no GPU/NPU device majors on this machine" "$WORK/n.err")" -eq 1 ] &&
			! grep -q "^xputrace: .*no GPU/NPU device majors" "$WORK/n.err"; then
			ok=$((ok + 1))
		else
			echo "messages: '$args': status $rc: $(head -c 300 "$WORK/n.err")" >&2
		fi
	done
	[ $ok -eq $runs ] && pass "messages: no device majors is a note, once a run, and the run goes on (ioctl, record)" ||
		fail "messages: no device majors: $((runs - ok)) of $runs runs said it otherwise (see above)"
fi
