#!/usr/bin/env bash
# What every verb shares because one runner and one option parser serve them
# all: --help on stdout with status 0 (1 when stdout cannot be written), the
# same one-line errors for the common flags, and the top-level help listing
# exactly the capabilities that doctor says are in this build.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh

if [ ! -x "$XP" ]; then
	skip "verbs: $XP is not built"
	exit 0
fi
caps=$("$XP" doctor --json | python3 -c '
import json, sys
d = json.load(sys.stdin)
print(" ".join(k for k, v in d["capabilities"].items() if v["in_this_build"]))')
listed=$("$XP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1}' | tr '\n' ' ')
ok=1
for c in $caps; do
	case " $listed " in *" $c "*) ;; *) ok=0 ;; esac
done
if [ $ok -eq 1 ] && [ -n "$caps" ]; then
	pass "verbs: the top-level help lists every capability in this build ($caps)"
else
	fail "verbs: help lists '$listed', doctor's capabilities in this build '$caps'"
fi

for v in doctor $caps record report export; do
	"$XP" "$v" --help > "$WORK/h.out" 2> "$WORK/h.err"
	rc=$?
	"$XP" "$v" --help > /dev/full 2> "$WORK/full.err"
	rcf=$?
	if [ $rc -eq 0 ] && head -1 "$WORK/h.out" | grep -q "^Usage: xputrace $v" && [ ! -s "$WORK/h.err" ] &&
		[ $rcf -eq 1 ] && grep -q "writing the output failed" "$WORK/full.err"; then
		pass "verbs: $v --help (status 0; 1 when stdout is full)"
	else
		fail "verbs: $v --help: status $rc, to /dev/full $rcf: $(head -c 200 "$WORK/h.err" "$WORK/full.err")"
	fi
done

# the common flags fail alike on every tracing verb, naming the flag as written
for v in $caps; do
	"$XP" "$v" -d > /dev/null 2> "$WORK/e1"; r1=$?
	"$XP" "$v" -jx > /dev/null 2> "$WORK/e2"; r2=$?
	"$XP" "$v" -c '' > /dev/null 2> "$WORK/e3"; r3=$?
	"$XP" "$v" -i 0.0000001 > /dev/null 2> "$WORK/e4"; r4=$?
	if [ "$r1 $r2 $r3 $r4" = "2 2 2 2" ] && grep -q "^xputrace: $v: -d needs a value$" "$WORK/e1" &&
		grep -q "unknown option '-x'" "$WORK/e2" && grep -q -- "--comm wants a task name" "$WORK/e3" &&
		grep -q -- "--interval wants seconds" "$WORK/e4"; then
		pass "verbs: $v refuses a missing value, a bundled unknown flag, an empty comm, a tiny interval"
	else
		fail "verbs: $v bad flags: $r1 $r2 $r3 $r4: $(cat "$WORK/e1" "$WORK/e2" "$WORK/e3" "$WORK/e4" | head -c 400)"
	fi
done

# A reader that goes away (| head) ends every verb alike: quietly, status 1
# (never killed by SIGPIPE, never "success"), and a live run stops at once.
why=$(bpf_unavailable)
DRV=$E2E_BIN/ioctl_driver
[ -x "$DRV" ] || why=${why:-"$DRV is not built"}
if [ -n "$why" ]; then
	skip "verbs: reader goes away: $why"
else
	( while :; do "$DRV" 1 > /dev/null; done ) &
	LOOP=$!
	t0=$(date +%s)
	"$XP" ioctl --device /dev/null --stream -d 20 2> "$WORK/pipe.err" | head -1 > /dev/null
	rc=${PIPESTATUS[0]} t1=$(date +%s)
	"$XP" record -o "$WORK/p.xpt" --device /dev/null -d 1 2> /dev/null
	"$XP" export --perfetto "$WORK/p.xpt" -o - 2> "$WORK/pipe2.err" | head -c 10 > /dev/null
	rc2=${PIPESTATUS[0]}
	kill $LOOP 2>/dev/null; wait $LOOP 2>/dev/null
	why=
	[ "$rc" -eq 1 ] || why="$why ioctl status $rc;"
	[ $((t1 - t0)) -le 5 ] || why="$why ioctl ended after $((t1 - t0)) s;"
	# besides its Tracing line, only its note of 32-bit programs another job ran meanwhile
	quiet() { grep -v -e '^Tracing' -e '^ioctl: [0-9]* 32-bit programs\{0,1\} started while tracing' "$WORK/pipe.err"; }
	! quiet | grep -q . || why="$why ioctl said: $(quiet | head -c 200 | od -c | head -3 | tr '\n' ' ');"
	[ "$rc2" -eq 1 ] || why="$why export status $rc2;"
	[ ! -s "$WORK/pipe2.err" ] || why="$why export said: $(head -c 200 "$WORK/pipe2.err" | od -c | head -3 | tr '\n' ' ');"
	if [ -z "$why" ]; then
		pass "verbs: a reader that goes away ends ioctl --stream and export quietly with status 1"
	else
		fail "verbs: reader gone:$why"
	fi
fi

# --cgroup must name a cgroup v2 directory (any directory's inode was taken
# as an id once: a silently empty trace)
v1=$(awk '$3 == "cgroup" { print $2; exit }' /proc/mounts)
for dir in /tmp $v1; do
	"$XP" ioctl -G "$dir" -d 1 > /dev/null 2> "$WORK/cg.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q "not a cgroup v2 directory" "$WORK/cg.err" && [ "$(wc -l < "$WORK/cg.err")" -eq 1 ]; then
		pass "verbs: --cgroup $dir is refused (not cgroup v2)"
	else
		fail "verbs: --cgroup $dir: status $rc: $(head -c 200 "$WORK/cg.err")"
	fi
done

# Privilege messages say what is missing (no verifier is involved when the
# process simply lacks the capabilities), and doctor knows capability runs
if [ "$(id -u)" -ne 0 ] || ! command -v setpriv > /dev/null; then
	skip "verbs: privilege messages: needs root and setpriv"
else
	nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	caps=(--inh-caps=+bpf,+perfmon --ambient-caps=+bpf,+perfmon)
	ok=1 out=""
	for v in $("$XP" --help | awk '/^Commands:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do
		case $v in doctor | record | report | export | analyze | simulate) continue ;; esac	# they read files
		case $v in fdinfo) continue ;; esac	# no BPF: reads the processes this user may (test_fdinfo.sh)
		args=()
		case $v in latency) args=(--preset syscall:nanosleep) ;; esac	# needs its probes
		"${nobody[@]}" "$XP" "$v" "${args[@]}" -d 1 > /dev/null 2> "$WORK/np.err"
		rc=$?
		if [ $rc -ne 1 ] || grep -q verifier "$WORK/np.err" || ! grep -q "lacks CAP_BPF and CAP_PERFMON" "$WORK/np.err"; then
			ok=0 out="$out $v($rc): $(head -c 160 "$WORK/np.err")"
		fi
	done
	[ $ok -eq 1 ] && pass "verbs: without privileges every tracing verb says which capabilities are missing" ||
		fail "verbs: privilege messages:$out"
	line=$("${nobody[@]}" "${caps[@]}" "$XP" doctor 2>&1 | grep '^Privileges')
	miss=$("${nobody[@]}" "$XP" doctor --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["missing_capabilities"])')
	if echo "$line" | grep -q "CAP_BPF and CAP_PERFMON, not root: ioctl can trace" && [ "$miss" = "CAP_BPF and CAP_PERFMON" ]; then
		pass "verbs: doctor recognises a run with CAP_BPF and CAP_PERFMON, and says what a plain user lacks"
	else
		fail "verbs: doctor privileges: '$line' / '$miss'"
	fi
fi
