#!/usr/bin/env bash
# `xputrace ioctl` end to end on this machine's kernel: ioctl_driver issues a
# known set of ioctls on /dev/null while xputrace traces that node.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DRV=$E2E_BIN/ioctl_driver
CHECK="python3 tests/e2e/check_ioctl.py"

# Bad input fails with one line and exit status 2, BPF or not.
bad_input() {
	local name=$1 want=$2
	shift 2
	"$XP" "$@" > "$WORK/bad.out" 2> "$WORK/bad.err"
	local rc=$? lines
	lines=$(wc -l < "$WORK/bad.err")
	if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -q -- "$want" "$WORK/bad.err"; then
		pass "ioctl rejects $name"
	else
		fail "ioctl rejects $name: exit $rc, stderr: $(cat "$WORK/bad.err")"
	fi
}
if [ -x "$XP" ]; then
	bad_input "an unknown flag" "unknown option" ioctl --bogus
	bad_input "a bad duration" "duration" ioctl -d 5x
	bad_input "a missing device" "No such file" ioctl --device /nonexistent
	bad_input "a non-device" "not a character device" ioctl --device /etc/hostname
	bad_input "a bad pid" "pid" ioctl -p abc
	bad_input "an unknown hook" "--hook wants" ioctl --hook kfunc
	bad_input "an unknown command" "unknown command" frobnicate
else
	skip "ioctl bad input: $XP is not built"
fi

why=$(bpf_unavailable)
[ -x "$DRV" ] || why=${why:-"$DRV is not built"}
if [ -n "$why" ]; then
	for t in summary raw_tp stream pid-filter comm-filter sigterm interval text non-root; do
		skip "ioctl $t: $why"
	done
	exit 0
fi

# 1. summary mode (aggregated in the kernel), ended by SIGINT
run_case() { # name scale tracer-args... ; leaves $WORK/name.out and $WORK/name.pids
	local name=$1 scale=$2
	shift 2
	start_tracer "$name" ioctl --device /dev/null "$@" || return 1
	"$DRV" "$scale" > "$WORK/$name.pids" || return 1
	stop_tracer "${SIG:-INT}"
}
check() { # name verdict-name check-args...
	local name=$1 label=$2
	shift 2
	local msg
	if msg=$($CHECK "$WORK/$name.out" "$WORK/$name.pids" "$@" 2>&1); then
		pass "$label"
	else
		fail "$label: $(echo "$msg" | head -5 | tr '\n' ';')"
	fi
}

if run_case summary 3 --json; then
	check summary "ioctl summary counts calls, errnos and latency exactly" 3
else
	fail "ioctl summary: tracer exited with $?"
fi

# every hook this kernel has counts the same: the classic syscall events, the
# raw sys_enter/sys_exit pair as tp_btf and as raw_tp (kprobes: below)
for hook in tracepoint tp_btf raw_tp; do
	if run_case "h-$hook" 2 --json --hook $hook && grep -q '"hook":"'$hook'"' "$WORK/h-$hook.out"; then
		check "h-$hook" "ioctl on the $hook hook counts exactly" 2
	else
		fail "ioctl $hook hook: $(head -c 200 "$WORK/h-$hook.out") $(head -c 200 "$WORK/h-$hook.err")"
	fi
done

# up to 8 --device nodes are compared in the program, more go to a hash map:
# both count the same
others=$(find /dev -maxdepth 1 -type c ! -name null 2>/dev/null | sort | head -8)
if [ "$(echo "$others" | grep -c .)" -lt 8 ]; then
	skip "ioctl with 9 --device nodes: fewer than 8 other character devices in /dev"
elif run_case manydev 2 --json $(printf -- '--device %s ' $others); then
	check manydev "ioctl with 9 --device nodes (past the in-program list) counts exactly" 2
else
	fail "ioctl with 9 --device nodes: tracer exited with $?"
fi

# the hook is chosen by trying: kprobes first, where the kernel has them
if [ -e /sys/bus/event_source/devices/kprobe ]; then
	if run_case kprobe 2 --json --hook kprobe && grep -q '"hook":"kprobe"' "$WORK/kprobe.out"; then
		check kprobe "ioctl on kprobes counts exactly" 2
	else
		fail "ioctl kprobe hook: $(head -c 200 "$WORK/kprobe.out")"
	fi
	grep -q '"hook":"kprobe"' "$WORK/summary.out" && pass "ioctl picks kprobes where the kernel has them" ||
		fail "ioctl did not pick kprobes: $(grep -o '"hook":"[a-z_]*"' "$WORK/summary.out")"
else
	# without kprobes, a run that asks for them fails with one line saying why
	"$XP" ioctl --hook kprobe --device /dev/null -d 1 > "$WORK/kp.out" 2> "$WORK/kp.err"
	rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l < "$WORK/kp.err")" -eq 1 ] && grep -q "kprobe: .*__x64_sys_ioctl" "$WORK/kp.err"; then
		pass "ioctl without kprobes: asked for them, fails with one line naming the hook"
	else
		fail "ioctl without kprobes: exit $rc, stderr: $(cat "$WORK/kp.err")"
	fi
	# no 32-bit program runs here (the test starts its own later)
	grep -q '"hook":"tracepoint"' "$WORK/summary.out" && pass "ioctl falls back to the syscall tracepoints without kprobes" ||
		fail "ioctl fallback: $(grep -o '"hook":"[a-z_]*"' "$WORK/summary.out")"
fi

# A long burst across many of the kernel map's once-a-second drains: every call
# counted, none lost to an update landing in an entry being copied out.
LOOP=build/bench/ioctl_loop
if [ -x "$LOOP" ]; then
	for mode in summary interval; do
		extra=""; [ $mode = interval ] && extra="-i 0.7"
		if start_tracer burst-$mode ioctl --device /dev/null -c ioctl_loop --json $extra; then
			"$LOOP" 400000 8 > /dev/null
			stop_tracer INT
			n=$(python3 - "$WORK/burst-$mode.out" <<'PY'
import json, sys
dec, text, pos, total = json.JSONDecoder(), open(sys.argv[1]).read(), 0, 0
while pos < len(text):
    while pos < len(text) and text[pos].isspace(): pos += 1
    if pos >= len(text): break
    doc, pos = dec.raw_decode(text, pos)
    for p in doc.get("processes", []):
        for i in p["ioctls"]:
            if i["cmd"] == "0xc0087801": total += i["calls"]
print(total)
PY
)
			[ "$n" = 3200000 ] && pass "ioctl $mode mode counts all 3,200,000 calls of a burst across drains" ||
				fail "ioctl $mode mode counted $n of 3200000 calls of a burst"
		else
			fail "ioctl burst $mode: tracer did not start"
		fi
	done
else
	skip "ioctl burst: $LOOP is not built"
fi

if run_case stream 2 --json --stream; then
	check stream "ioctl stream reports every call and the same summary" 2 stream=1
else
	fail "ioctl stream: tracer exited with $?"
fi

# 2. filters: only the selected process is counted
start_tracer comm ioctl --device /dev/null --json --comm xpt-drv-b && "$DRV" 1 > "$WORK/comm.pids" && stop_tracer INT &&
	check comm "ioctl --comm keeps one process" 1 only=b || fail "ioctl --comm: tracer failed"

# --pid needs the pid before the calls: a shell waits for a go signal, then
# becomes a driver that issues its calls itself, while another driver runs too
mkfifo "$WORK/go"
( read -r _ < "$WORK/go"; exec "$DRV" --self 25 ) > "$WORK/pid.self" &
holder=$!
start_tracer pid ioctl --device /dev/null --json -p $holder && echo go > "$WORK/go" &&
	"$DRV" 1 > /dev/null && wait $holder && stop_tracer INT
if python3 - "$WORK/pid.out" "$WORK/pid.self" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
me = json.load(open(sys.argv[2]))["self"]
ok = [p["pid"] for p in s["processes"]] == [me] and \
     [(i["cmd"], i["calls"]) for i in s["processes"][0]["ioctls"]] == [("0x00005421", 25)]
sys.exit(0 if ok else 1)
PY
then pass "ioctl -p counts that process only"
else fail "ioctl -p counts that process only: $(head -c 300 "$WORK/pid.out")"; fi

# 3. SIGTERM also ends with the full summary
SIG=TERM run_case sigterm 1 --json
if [ -s "$WORK/sigterm.out" ] && $CHECK "$WORK/sigterm.out" "$WORK/sigterm.pids" 1 >/dev/null; then
	pass "ioctl writes the summary on SIGTERM"
else
	fail "ioctl writes the summary on SIGTERM: $(head -c 200 "$WORK/sigterm.out")"
fi

# 4. --interval: the intervals add up to every call, and -d ends the run
start_tracer interval ioctl --device /dev/null --json -i 0.3 -d 2 &&
	"$DRV" 2 > "$WORK/interval.pids" && sleep 0.5 && "$DRV" 1 > "$WORK/interval2.pids" && wait $TRACER
rc=$?
if python3 - "$WORK/interval.out" "$WORK/interval.pids" "$WORK/interval2.pids" <<'PY'
import json, sys
docs = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pids = {json.load(open(p))[k] for p in sys.argv[2:] for k in "ab"}
calls = sum(i["calls"] for d in docs for p in d["processes"] if p["pid"] in pids for i in p["ioctls"])
nums = [d["interval"] for d in docs]
ok = len(docs) >= 3 and calls == 207 * 3 and nums == list(range(1, len(docs) + 1))
sys.exit(0 if ok else print(len(docs), calls, nums) or 1)
PY
then pass "ioctl --interval splits the calls without losing any"
else fail "ioctl --interval (exit $rc)"; fi

# 5. the text summary names the calls and shows histograms and drops
if run_case text 1; then
	if grep -q "^drops: 0\|drops: 0$" "$WORK/text.out" || grep -q "drops: 0" "$WORK/text.out"; then
		if grep -q "FIONBIO\|_IOWR('x',0x01,8)" "$WORK/text.out" && grep -q "errors: EFAULT 20" "$WORK/text.out" &&
			grep -q '|@' "$WORK/text.out"; then
			pass "ioctl text summary names calls, errnos and histograms"
		else
			fail "ioctl text summary: $(head -c 400 "$WORK/text.out")"
		fi
	else
		fail "ioctl text summary has no drops line"
	fi
else
	fail "ioctl text: tracer exited with $?"
fi

# 6. without privilege: a clear error, not a crash
if command -v setpriv >/dev/null; then
	setpriv --reuid=65534 --regid=65534 --clear-groups "$XP" ioctl -d 1 > "$WORK/np.out" 2> "$WORK/np.err"
	rc=$?
	if [ $rc -eq 1 ] && grep -q "needs root" "$WORK/np.err" && [ "$(wc -l < "$WORK/np.err")" -eq 1 ]; then
		pass "ioctl without privilege says it needs root"
	else
		fail "ioctl without privilege: exit $rc: $(cat "$WORK/np.err")"
	fi
else
	skip "ioctl non-root: setpriv missing"
fi

# 7. 32-bit programs: the compat ioctl (i386 nr 54) traced and named like the
# native one, on both hooks; native nr 54 (setsockopt) is not mistaken for it
DRV32=$E2E_BIN/ioctl_driver32
# Whether this kernel runs 32-bit programs at all, found once: a kernel built
# without IA32_EMULATION, or with it off (ia32_emulation=0), has no 32-bit
# callers, and refuses the exec ("Exec format error").
why32=""
if [ ! -x "$DRV32" ]; then
	why32="$DRV32 is not built (no gcc -m32: install gcc-multilib)"
elif ! err32=$("$DRV32" --self 0 2>&1 >/dev/null); then
	why32="this kernel does not run 32-bit programs (${err32##*: })"
fi
if [ -n "$why32" ]; then
	for t in "compat (tp_btf)" "compat (raw_tp)" "tracepoint and 32-bit programs" \
		"default hook with a 32-bit program running" "--hook tracepoint with a 32-bit program running"; do
		skip "ioctl $t: $why32"
	done
	# what the product says of such a machine: doctor names it, and no hook is passed over
	if [ -x "$DRV32" ]; then
		if "$XP" doctor 2>&1 | grep -q '^32-bit progs   the kernel refuses to run 32-bit programs'; then
			pass "doctor says this kernel runs no 32-bit programs"
		else
			fail "doctor on a kernel without 32-bit programs: $("$XP" doctor 2>&1 | grep '^32-bit')"
		fi
	fi
else
	if "$XP" doctor 2>&1 | grep -q '^32-bit progs   can run'; then
		pass "doctor says this kernel runs 32-bit programs"
	else
		fail "doctor on a kernel with 32-bit programs: $("$XP" doctor 2>&1 | grep '^32-bit')"
	fi
	for hook in tp_btf raw_tp; do
		start_tracer c32-$hook ioctl --device /dev/null --json --hook $hook || { fail "ioctl compat $hook: tracer did not start"; continue; }
		"$DRV32" 2 > "$WORK/c32-$hook.pids"
		# a 64-bit setsockopt (nr 54) on an fd that is the traced node's number
		python3 -c 'import socket; s=socket.socket(); [s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1) for _ in range(100)]'
		stop_tracer INT
		if msg=$($CHECK "$WORK/c32-$hook.out" "$WORK/c32-$hook.pids" 2 bits=32 2>&1) &&
			grep -q '"hook": *"'$hook'"' "$WORK/c32-$hook.out"; then
			pass "ioctl compat (32-bit) calls counted exactly ($hook)"
		else
			fail "ioctl compat ($hook): $(echo "$msg" | head -3 | tr '\n' ';') $(head -c 200 "$WORK/c32-$hook.err")"
		fi
	done

	# The classic syscall events never see 32-bit calls: a 32-bit program that
	# starts while they are traced is said on stderr at the end, by pid and name.
	# (-c: other 32-bit programs on this machine, ldd's loader among them, are not ours)
	if start_tracer c32-tp ioctl --device /dev/null --hook tracepoint -c ioctl_driver32; then
		"$DRV32" 1 > "$WORK/c32-tp.pids"
		sleep 0.2
		"$DRV32" 1 >> "$WORK/c32-tp.pids"
		stop_tracer INT
		rc=$?
		if [ $rc -eq 0 ] && grep -q "^ioctl: 2 32-bit programs started while tracing (first: [0-9]* ioctl_driver32); .*--hook tp_btf" "$WORK/c32-tp.err"; then
			pass "ioctl on the tracepoint hook says which 32-bit programs it could not see"
		else
			fail "ioctl tracepoint and 32-bit programs: exit $rc, stderr: $(cat "$WORK/c32-tp.err")"
		fi
	else
		fail "ioctl tracepoint with 32-bit programs: tracer did not start"
	fi
	# xputrace's own probe of whether 32-bit programs run (another xputrace
	# starting beside it runs one: doctor, top) is not said to be one; doctor
	# runs in a cgroup of its own, the one traced, where no other program runs
	cg2=$(cgroup2_root) cgown=
	if [ -n "$cg2" ] && mkdir "$cg2/xpt-c32-$$" 2>/dev/null; then
		cgown=$cg2/xpt-c32-$$
	fi
	if start_tracer c32-own ioctl --device /dev/null --hook tracepoint ${cgown:+-G "$cgown"}; then
		if [ -n "$cgown" ]; then
			in_cgroup "$cgown" "$XP" doctor > "$WORK/c32-own.doctor" 2>&1
		else
			"$XP" doctor > "$WORK/c32-own.doctor" 2>&1
		fi
		stop_tracer INT
		rc=$?
		if [ $rc -eq 0 ] && grep -q '^32-bit progs *can run' "$WORK/c32-own.doctor" &&
			! grep -q "32-bit program" "$WORK/c32-own.err"; then
			pass "ioctl on the tracepoint hook does not take another xputrace's 32-bit probe for a 32-bit program"
		else
			fail "ioctl tracepoint and xputrace's own 32-bit probe: exit $rc, doctor: $(grep '^32-bit' "$WORK/c32-own.doctor"), stderr: $(cat "$WORK/c32-own.err")"
		fi
	else
		fail "ioctl tracepoint beside doctor: tracer did not start"
	fi
	[ -z "$cgown" ] || rmdir "$cgown" 2>/dev/null

	# While a 32-bit program runs, the default passes the classic events over
	# (where it would take them: no kprobes) and says why; its calls are counted.
	if [ -e /sys/bus/event_source/devices/kprobe ]; then
		skip "ioctl default hook with a 32-bit program running: kprobes are taken here, which see 32-bit calls"
	else
		rm -f "$WORK/c32.fifo"
		mkfifo "$WORK/c32.fifo"
		"$DRV32" --wait < "$WORK/c32.fifo" > "$WORK/c32-wait.pid" &
		waiter=$!
		exec 9> "$WORK/c32.fifo"
		for _ in $(seq 1 100); do [ -s "$WORK/c32-wait.pid" ] && break; sleep 0.05; done
		wpid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["wait"])' "$WORK/c32-wait.pid" 2>/dev/null)
		if start_tracer c32-def ioctl --device /dev/null --json; then
			"$DRV32" 2 > "$WORK/c32-def.pids"
			stop_tracer INT
			if grep -q "^Tracing GPU ioctls (tp_btf: 32-bit program running: $wpid ioctl_driver32)" "$WORK/c32-def.err" &&
				msg=$($CHECK "$WORK/c32-def.out" "$WORK/c32-def.pids" 2 bits=32 2>&1); then
				pass "ioctl takes tp_btf while a 32-bit program runs, says so, and counts its calls"
			else
				fail "ioctl default hook with a 32-bit program running: $(head -1 "$WORK/c32-def.err") $msg"
			fi
		else
			fail "ioctl default hook with a 32-bit program running: tracer did not start"
		fi
		# asked for by name, the classic events still run, and say whom they miss
		"$XP" ioctl --hook tracepoint --device /dev/null -d 0.5 > "$WORK/c32-ex.out" 2> "$WORK/c32-ex.err"
		if grep -q "^Tracing GPU ioctls (tracepoint: blind to the running 32-bit program $wpid ioctl_driver32)" "$WORK/c32-ex.err"; then
			pass "ioctl --hook tracepoint names the running 32-bit program it cannot see"
		else
			fail "ioctl --hook tracepoint with a 32-bit program running: $(head -1 "$WORK/c32-ex.err")"
		fi
		exec 9>&-
		wait $waiter
	fi
fi
