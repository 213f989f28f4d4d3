# Helpers for the end-to-end tests: sourced, not run.
XP=${XP:-./xputrace}
E2E_BIN=${E2E_BIN:-build/tests/e2e}
WORK=$(mktemp -d)
# Every EXIT trap of these tests starts with $MAIN_ONLY: a background
# subshell killed just after its fork (a timeout guard, when the command it
# guards ends at once) can run the script's EXIT trap itself, which would
# remove $WORK under the running test (seen: test_stop's early signals).
MAIN_ONLY='[ "$BASHPID" = "$$" ] || exit;'
trap "$MAIN_ONLY"' kill $(jobs -p) 2>/dev/null; rm -rf "$WORK"' EXIT

pass() { echo "PASS $*"; }
fail() { echo "FAIL $*"; }
skip() { echo "SKIP $*"; }

# xputrace ARGS must exit with want-status, one line on stderr matching
# want-regex, nothing on stdout.
one_line() { # label want-status want-regex args...
	local label=$1 want=$2 re=$3
	shift 3
	timeout 20 "$XP" "$@" > "$WORK/o.out" 2> "$WORK/o.err"
	local rc=$? lines
	lines=$(wc -l < "$WORK/o.err")
	if [ $rc -eq "$want" ] && [ "$lines" -eq 1 ] && grep -Eq -- "$re" "$WORK/o.err" && [ ! -s "$WORK/o.out" ]; then
		pass "$label"
	else
		fail "$label: exit $rc (want $want), stderr: $(head -c 300 "$WORK/o.err"), stdout bytes: $(wc -c < "$WORK/o.out")"
	fi
}

# Prints why this machine cannot run BPF tests, or nothing when it can.
bpf_unavailable() {
	[ "$(id -u)" -eq 0 ] || { echo "needs root"; return; }
	[ -x "$XP" ] || { echo "$XP is not built"; return; }
	[ -r /sys/kernel/btf/vmlinux ] || { echo "kernel has no BTF"; return; }
	command -v python3 >/dev/null || { echo "python3 missing"; return; }
}

# start_tracer NAME ARGS...: runs xputrace in the background, output in
# $WORK/NAME.out and .err, and waits until it has attached.
start_tracer() {
	local name=$1
	shift
	"$XP" "$@" > "$WORK/$name.out" 2> "$WORK/$name.err" &
	TRACER=$!
	for _ in $(seq 1 200); do
		grep -q '^Tracing' "$WORK/$name.err" 2>/dev/null && return 0
		kill -0 $TRACER 2>/dev/null || break
		sleep 0.05
	done
	echo "tracer did not start: $(head -c 300 "$WORK/$name.err")" >&2
	return 1
}

# stop_tracer [SIGNAL]: ends the tracer and returns its exit status.
stop_tracer() {
	kill -"${1:-INT}" $TRACER 2>/dev/null
	wait $TRACER
}

# The cgroup v2 mount point, or nothing when none is mounted.
cgroup2_root() {
	awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts
}

# in_cgroup DIR CMD...: runs CMD as a process of the cgroup v2 directory DIR
# (its children follow it).
in_cgroup() {
	local dir=$1
	shift
	sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$dir" "$@"
}

# pb_agrees LABEL TRACEFILE [empty-ok]: the native Perfetto export of TRACEFILE
# has every track, slice, flow and counter of its JSON export
# (check_perfetto_pb.py), and something is in it unless "empty-ok"; SKIP
# without protoc.
pb_agrees() {
	local label=$1 f=$2 empty_ok=${3:-} msg rc
	if ! command -v protoc > /dev/null; then
		skip "$label: protoc is missing (Debian: protobuf-compiler)"
		return
	fi
	if ! "$XP" export --perfetto "$f" -o "$WORK/pb.pftrace" --force 2> "$WORK/pb.err" ||
		! "$XP" export --perfetto "$f" --format json -o "$WORK/pb.json" --force 2>> "$WORK/pb.err"; then
		fail "$label: export failed: $(head -c 300 "$WORK/pb.err")"
		return
	fi
	msg=$(python3 tests/e2e/check_perfetto_pb.py "$WORK/pb.pftrace" "$WORK/pb.json" -v 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && [ -z "$empty_ok" ] && [[ "$msg" == *" 0 tracks, 0 slices, 0 instants, 0 flows, 0 counter samples"* ]]; then
		fail "$label: nothing exported: ${msg##*$'\n'}"
	elif [ $rc -eq 0 ]; then
		pass "$label: ${msg##*$'\n'}"
	elif [ $rc -eq 77 ]; then
		skip "$label: $msg"
	else
		fail "$label: $(printf '%s' "$msg" | head -5 | tr '\n' ';')"
	fi
}
