#!/usr/bin/env bash
# The Grafana dashboard docs/grafana/xputrace.json: importable (panels with
# PromQL targets, a Prometheus datasource variable, its $variables defined),
# every metric name and label in its queries one that `xputrace serve` serves,
# and every query PromQL that promtool parses. Then the same checks on broken copies of
# it must fail, or they prove nothing. Loopback only.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DASH=${DASH:-docs/grafana/xputrace.json}
CHECK="python3 tests/e2e/check_grafana.py"
# the C files that declare metric families (serve's own, each capability's)
mapfile -t SRCS < <(grep -rlE 'xp_metrics_(family|histogram|declare)\(' src --include='*.c' | sort)
EVENT_SRCS="src/caps/sched/sched_metrics.c src/caps/vblank/vblank_metrics.c src/caps/fence/fence_metrics.c
	src/caps/mem/mem_metrics.c src/caps/npu/npu_metrics.c src/caps/nvidia/nvidia_metrics.c"

if [ ! -f "$DASH" ]; then
	fail "grafana: $DASH is not there"
	exit 0
fi

# 1. what Grafana needs to import it
$CHECK shape "$DASH"

# 2. metric names: those the source declares (always), then those a running
# serve really serves (as root, with BPF)
$CHECK names "$DASH" --src "${SRCS[@]}"

# labels: those the C files put on series, or Prometheus on every target
$CHECK labels "$DASH" src

why=$(bpf_unavailable)
command -v curl > /dev/null || why=${why:-"curl is missing (scripts/deps.sh installs it)"}
if [ -n "$why" ]; then
	skip "grafana names against a running serve: $why"
elif start_tracer serve serve --listen 127.0.0.1:0 --device /dev/null; then
	ADDR=$(grep -o 'http://[0-9.]*:[0-9]*' "$WORK/serve.err" | head -1 | sed 's|http://||')
	# ioctls on /dev/null, one of them failing, so the ioctl families have
	# samples; a scrape, until they show (the tracer reads in batches)
	python3 -c '
import fcntl, os, struct, termios
fd = os.open("/dev/null", os.O_RDONLY)
for _ in range(5):
    fcntl.ioctl(fd, termios.FIONBIO, struct.pack("i", 1))
    try:
        fcntl.ioctl(fd, termios.TCGETS, bytes(64))
    except OSError:
        pass'
	for _ in $(seq 1 100); do
		curl -s "http://$ADDR/metrics" > "$WORK/scrape.txt"
		grep -q '^xputrace_ioctl_errors_total{' "$WORK/scrape.txt" && break
		sleep 0.1
	done
	stop_tracer TERM > /dev/null
	# the families of sched, vblank, fence, mem, npu and nvidia are declared only where the
	# kernel has their events: for those a scrape here may lack, their
	# source is the witness
	$CHECK names "$DASH" --live "$WORK/scrape.txt" --src $EVENT_SRCS
else
	fail "grafana names against a running serve: serve did not start: $(head -c 300 "$WORK/serve.err")"
fi

# 3. every query (and variable query's selector) parses as PromQL: each
# becomes a recording rule, its $variables replaced, for promtool
promql() { # DASH: PASS/FAIL by promtool check rules
	local n out where
	n=$($CHECK rules "$1" "$WORK/rules.yml") || { fail "grafana promql: no rules from $1"; return; }
	if out=$(promtool check rules "$WORK/rules.yml" 2>&1); then
		pass "grafana dashboard's $n queries parse (promtool check rules)"
	else
		# the query promtool names, by where it is in the dashboard
		where=$(python3 -c 'import json, re, sys
rs = json.load(open(sys.argv[1]))["groups"][0]["rules"]
print("; ".join(r["labels"]["where"] for r in rs if re.search(r"\b%s\b" % re.escape(r["record"]), sys.argv[2])))' \
			"$WORK/rules.yml" "$out")
		fail "grafana promql: $where: $(echo "$out" | grep -v '^Checking' | head -5 | tr '\n' ';')"
	fi
}
if command -v promtool > /dev/null; then
	promql "$DASH"
else
	skip "grafana promql: promtool is missing (Debian's prometheus package; scripts/deps.sh installs it)"
fi

# 4. the checks above fail on a dashboard broken as it could be by hand: a
# misspelled name or label, a histogram without _bucket, a counter without
# _total, an unbalanced parenthesis, no datasource variable, a variable
# nobody defined
must_fail() { # LABEL FROM TO CHECK...: CHECK on DASH with its first FROM made TO must FAIL
	local label=$1 from=$2 to=$3 out
	shift 3
	python3 -c 'import sys; t = open(sys.argv[1]).read(); print(t.replace(sys.argv[2], sys.argv[3], 1), end="")' \
		"$DASH" "$from" "$to" > "$WORK/broken.json"
	if cmp -s "$DASH" "$WORK/broken.json"; then
		fail "grafana self-check '$label': $from is not in $DASH"
		return
	fi
	out=$(DASH="$WORK/broken.json" "$@" 2>&1)
	if grep -q '^FAIL' <<< "$out"; then
		pass "grafana self-check: $label fails"
	else
		fail "grafana self-check: $label passed: $(head -c 300 <<< "$out")"
	fi
}
names_src() { $CHECK names "$DASH" --src "${SRCS[@]}"; }
shape_of() { $CHECK shape "$DASH"; }
labels_of() { $CHECK labels "$DASH" src; }
promql_of() { promql "$DASH"; }
names_live() { $CHECK names "$DASH" --live "$WORK/scrape.txt" --src $EVENT_SRCS; }
must_fail "a misspelled metric name" "xputrace_ioctl_errors_total{" "xputrace_ioctl_error_total{" names_src
must_fail "a histogram without _bucket" "xputrace_gpu_job_queue_seconds_bucket{" "xputrace_gpu_job_queue_seconds{" names_src
must_fail "a counter without _total" "xputrace_drops_total{" "xputrace_drops{" names_src
if [ -s "$WORK/scrape.txt" ]; then
	must_fail "a misspelled name, against the scrape" "xputrace_ioctls_total{" "xputrace_ioctl_total{" names_live
	must_fail "a misspelled sched name, against the scrape" "xputrace_gpu_jobs_total{" "xputrace_gpu_job_total{" names_live
fi
must_fail "a misspelled label matcher" 'container_id=~\"$container\"' 'containr_id=~\"$container\"' labels_of
must_fail "a misspelled label grouped by" 'sum by (name, cgroup)' 'sum by (name, cgroups)' labels_of
must_fail "a misspelled label in a legend" '{{errno}}' '{{erno}}' labels_of
must_fail "no datasource variable" '"type": "datasource"' '"type": "custom"' shape_of
must_fail "an undefined variable" 'ring=~\"$ring\"' 'ring=~\"$rings\"' shape_of
if command -v promtool > /dev/null; then
	must_fail "an unbalanced parenthesis" '[$__rate_interval]))"' '[$__rate_interval])"' promql_of
fi
