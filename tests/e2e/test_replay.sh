#!/usr/bin/env bash
# report and export of the raw-tracepoint capabilities (sched, vblank, mem) on a
# file with known content: the unit test test_replay writes it (40 jobs on two
# rings from two processes, one never done; 11 vblanks at 60 Hz with one
# missed, a client's requests and deliveries), with layouts that differ from
# this kernel's. This machine has no gpu_scheduler or drm events: recording
# them live is tested in the lab (lab/scenarios/record_*.sh).
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
GEN=build/tests/test_replay
F=$WORK/rawtp.xpt

if [ ! -x "$GEN" ] || [ ! -x "$XP" ]; then
	skip "report/export of sched and vblank: $GEN or $XP is not built"
	exit 0
fi
if ! XP_REPLAY_OUT=$F "$GEN" > /dev/null 2>&1 || [ ! -s "$F" ]; then
	fail "report/export of sched and vblank: $GEN did not write $F"
	exit 0
fi

# the default view is the file's first capability
out=$("$XP" report "$F" 2>&1)
if [ "$(printf '%s\n' "$out" | head -1)" = "$("$XP" report "$F" sched 2>&1 | head -1)" ] &&
	printf '%s\n' "$out" | grep -q "^sched: 0.2 s, 6.17+ events (5), 2 rings, 3 processes, 40 jobs done, incomplete: 1 (1 still in flight when tracing ended),"; then
	pass "report sched from a file: jobs, rings and processes"
else
	fail "report sched: $(printf '%s\n' "$out" | head -2 | tr '\n' ';')"
fi
if out=$("$XP" report "$F" vblank --json) &&
	python3 - "$out" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
c = d["crtcs"][0]
assert d["command"] == "vblank" and abs(d["duration_s"] - 0.25) < 1e-6, d
assert c["vblanks"] == 11 and c["missed"] == 1 and abs(c["refresh_hz"] - 60) < 0.01, c
assert d["clients"][0]["comm"] == "compositor" and d["clients"][0]["requests"] == 5, d["clients"]
PY
then
	pass "report vblank --json from a file: refresh, misses, clients"
else
	fail "report vblank --json: $(printf '%s' "$out" | head -c 300)"
fi
# mem: amdgpu and i915 records with their layouts, from the same unit test
MF=$WORK/mem.xpt
if XP_REPLAY_MEM_OUT=$MF "$GEN" > /dev/null 2>&1 && [ -s "$MF" ] &&
	out=$("$XP" report "$MF" mem --json) &&
	python3 - "$out" <<'PY'
import json, sys
d = json.loads(sys.argv[1])
assert d["command"] == "mem" and d["mode"] == "summary" and abs(d["duration_s"] - 0.25) < 1e-6, d
assert d["events_seen"] == 11 and d["undecodable"] == 0 and d["drops"]["total"] == 2, d
assert d["events"]["amdgpu_bo_move"]["present"] and not d["events"]["amdgpu_cs_ioctl"]["present"], d
PY
then
	pass "report mem --json from a file: events decoded with the file's layouts"
else
	fail "report mem --json: $(printf '%s' "${out:-}" | head -c 300)"
fi
if [ -s "$MF" ] && "$XP" report "$MF" 2>&1 | grep -q "^mem: 0.2 s, 4 of 25 events" &&
	"$XP" report "$MF" 2>&1 | grep -q "4 BOs, 1.3 MiB"; then
	pass "report from a mem file: mem is its default view"
else
	fail "report from a mem file: $("$XP" report "$MF" 2>&1 | head -2 | tr '\n' ';')"
fi
if "$XP" report "$F" ioctl > /dev/null 2> "$WORK/err"; then
	fail "report of a view the file lacks succeeded"
elif grep -q "has no ioctl capture" "$WORK/err" && [ "$(wc -l < "$WORK/err")" -eq 1 ]; then
	pass "report of a view the file lacks fails with one line"
else
	fail "report of a missing view: $(head -c 300 "$WORK/err")"
fi
if "$XP" export --perfetto "$F" --format json -o "$WORK/r.json" 2> "$WORK/err" &&
	msg=$(python3 tests/e2e/check_perfetto.py "$WORK/r.json" --jobs 40 --vblanks 11 2>&1); then
	pass "export: ring tracks with 40 job slices and submit arrows, a CRTC track with 11 vblanks"
else
	fail "export of sched and vblank: $(head -c 200 "$WORK/err") $(printf '%s' "${msg:-}" | head -3 | tr '\n' ';')"
fi
# mem events are exported too: an instant per event, on the causing thread or
# on the driver's track ("GPU memory"), with the decoded fields as args
pb_agrees "export: the native Perfetto export of sched and vblank agrees with the JSON" "$F"
if [ -s "$MF" ] && "$XP" export --perfetto "$MF" --format json -o "$WORK/m.json" 2> "$WORK/err" &&
	python3 - "$WORK/m.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
ev = [e for e in d["traceEvents"] if e.get("cat") == "mem"]
assert len(ev) == 11, len(ev)
assert all(e["ph"] == "i" and "fields" in e["args"] for e in ev), ev[:2]
names = {e["name"] for e in ev}
assert "amdgpu_bo_move" in names, names
tracks = [e for e in d["traceEvents"] if e.get("ph") == "M" and e["args"].get("name") == "GPU memory"]
assert tracks, "no GPU memory track"
PY
then
	pass "export: every mem event an instant with its fields"
else
	fail "export of mem: $(head -c 200 "$WORK/err")"
fi
