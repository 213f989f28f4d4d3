#!/usr/bin/env bash
# The image and its deployment: deploy/kubernetes/'s manifests and Prometheus
# configuration checked; `make image` built with podman; `serve` run in it
# seeing the host's processes (host PID) and cgroups (the host's cgroup2
# mounted in), once privileged and once with the DaemonSet's capabilities
# (read from its manifest), read-only, in a cgroup namespace of its own;
# exact ioctl counts of processes in two cgroups made here, scraped over
# loopback (host network) and through a Prometheus configured by
# deploy/kubernetes/prometheus.yml.
set -u
cd "$(dirname "$0")/../.."
. tests/e2e/lib.sh
DRV=$E2E_BIN/ioctl_driver
CHECK="python3 tests/e2e/check_serve.py"
DEPLOY="python3 tests/e2e/check_deploy.py"
D=deploy/kubernetes

if python3 -c 'import yaml' 2> /dev/null; then
	$DEPLOY manifests $D
else
	skip "deploy: the manifests: python3 has no yaml module (Debian: python3-yaml)"
fi

cases="build privileged capabilities prometheus"
why=$(bpf_unavailable)
[ -x "$DRV" ] || why=${why:-"$DRV is not built"}
command -v podman > /dev/null || why=${why:-"podman is not installed (Debian's podman; scripts/deps.sh installs it)"}
python3 -c 'import yaml' 2> /dev/null || why=${why:-"python3 has no yaml module (Debian: python3-yaml)"}
cg2=$(cgroup2_root)
[ -n "$cg2" ] || why=${why:-"no cgroup v2 file system mounted"}
tracefs=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
[ -n "$tracefs" ] || why=${why:-"tracefs is not mounted on this host (the DaemonSet mounts the host's)"}
if [ -z "$why" ]; then
	A=$cg2/xpt-image-$$-a B=$cg2/xpt-image-$$-b
	if ! mkdir "$A" "$B" 2> /dev/null; then
		why="cgroup v2 at $cg2 is not writable here"
		rmdir "$A" 2> /dev/null
	fi
fi
if [ -n "$why" ]; then
	for t in $cases; do skip "image $t: $why"; done
	exit 0
fi
IMG=localhost/xputrace-e2e-$$
NAME=xpt-e2e-$$
trap "$MAIN_ONLY"' kill $(jobs -p) 2>/dev/null; wait 2>/dev/null
	podman rm -f -t 0 $NAME-priv $NAME-caps > /dev/null 2>&1; podman rmi $IMG:latest $IMG:$ver > /dev/null 2>&1
	rmdir "$A" "$B" 2>/dev/null; rm -rf "$WORK"' EXIT
CG_A=/${A#"$cg2"/} CG_B=/${B#"$cg2"/}
ver=$(sed -n 's/^#define XP_VERSION "\(.*\)"$/\1/p' src/core/msg.h)

# 1. `make image`, and what is in it
if ! make --no-print-directory image IMAGE=$IMG > "$WORK/make.out" 2>&1; then
	fail "image build: make image failed: $(tail -3 "$WORK/make.out" | tr '\n' ';')"
	for t in privileged capabilities prometheus; do skip "image $t: the image was not built"; done
	exit 0
fi
# The runtime: podman's own, or runc where that one cannot run containers
# here (crun refuses a host whose cgroup v2 tree has controllers beside v1's);
# limits within the hard ones, which a runtime without CAP_SYS_RESOURCE
# cannot raise.
RUN=(--ulimit "nofile=$(ulimit -Hn):$(ulimit -Hn)" --ulimit nproc=4096:4096)
probe() { podman run --rm "${RUN[@]}" "$@" --entrypoint /usr/bin/xputrace $IMG:latest --version 2>&1; }
out=$(probe)
rc=$?
if [ $rc -ne 0 ] && command -v runc > /dev/null && alt=$(probe --runtime runc); then
	RUN+=(--runtime runc)
	out=$alt rc=0
fi
entry=$(podman image inspect --format '{{json .Config.Entrypoint}}' $IMG:latest)
size=$(podman image inspect --format '{{.Size}}' $IMG:latest)
if [ $rc -ne 0 ]; then
	# built, but this machine cannot run a container (the runtime's error)
	why="podman cannot run containers here: $(printf '%s' "$out" | tail -1)"
	if [ "$entry" = '["/usr/bin/xputrace","serve"]' ]; then
		pass "image build: make image builds $IMG:$ver FROM scratch ($((size / 1024)) KiB) running \`serve\` (not run: $why)"
	else
		fail "image build: entry point $entry"
	fi
	for t in privileged capabilities prometheus; do skip "image $t: $why"; done
	exit 0
elif [ "$out" = "xputrace $ver" ] && [ "$entry" = '["/usr/bin/xputrace","serve"]' ]; then
	pass "image build: make image builds $IMG:$ver FROM scratch ($((size / 1024)) KiB), xputrace $ver running \`serve\`"
else
	fail "image build: --version said '$out', entry point $entry"
fi

addr_of() { # NAME: the address serve printed
	grep -o 'http://[0-9.]*:[0-9]*' "$WORK/$1.err" | head -1 | sed 's|http://||'
}
# serve_in NAME FLAGS...: serve in the image, as the DaemonSet runs it, but on
# the host's network and its loopback; waits until it has attached.
serve_in() {
	local name=$1
	shift
	XP=podman start_tracer "$name" run --rm --name "$NAME-$name" "${RUN[@]}" --pid=host --network=host \
		-v "$cg2:$cg2:ro" -v "$tracefs:/sys/kernel/tracing" "$@" $IMG:latest \
		--listen 127.0.0.1:0 --device /dev/null --per-process 2> /dev/null
}
# counted MODE: the ioctls of one run of the drivers in each cgroup, exactly,
# from serve in the image (check_serve.py's checks, named after MODE)
counted() {
	in_cgroup "$A" "$DRV" --self 123 > "$WORK/a.pids" && in_cgroup "$B" "$DRV" 1 > "$WORK/b.pids" ||
		fail "image $1: ioctl_driver failed"
	$CHECK counts "$ADDR" "$CG_A" "$CG_B" 10 | sed "s/^\(PASS\|FAIL\|SKIP\) serve /\1 image $1: serve /"
}
ends() { # MODE: serve in the container ends on SIGTERM (passed on by podman), status 0
	local rc
	stop_tracer TERM
	rc=$?
	if [ $rc -eq 0 ]; then
		pass "image $1: serve ends on SIGTERM with status 0"
	else
		fail "image $1: exit status $rc after SIGTERM: $(tail -c 300 "$WORK/$2.err")"
	fi
}

# 2. privileged, host PID
if serve_in priv --privileged; then
	ADDR=$(addr_of priv)
	counted privileged
	ends privileged priv
else
	fail "image privileged: serve did not start in the container: $(tail -c 300 "$WORK/priv.err")"
	kill $TRACER 2> /dev/null
	wait $TRACER 2> /dev/null
fi

# 3. the DaemonSet's capabilities and nothing else, a read-only root, the
# runtime's seccomp profile, a cgroup namespace of its own (Kubernetes gives
# one on cgroup v2); and a Prometheus configured by prometheus.yml, with the
# targets its Kubernetes discovery would find (this one's and another
# Service's, which it must drop)
if serve_in caps --cap-drop=all --cap-add="$($DEPLOY caps $D)" --read-only --cgroupns=private; then
	ADDR=$(addr_of caps)
	counted capabilities
	if command -v prometheus > /dev/null; then
		pport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
		$DEPLOY promconf $D "$WORK/prom.yml" "$ADDR" node-$$
		prometheus --config.file="$WORK/prom.yml" --storage.tsdb.path="$WORK/tsdb" \
			--web.listen-address="127.0.0.1:$pport" > "$WORK/prometheus.log" 2>&1 &
		PROM=$!
		$DEPLOY prom "127.0.0.1:$pport" "$CG_A" 123 node-$$ 40
		kill $PROM 2> /dev/null
		wait $PROM 2> /dev/null
	else
		skip "image prometheus: prometheus is not installed (Debian's prometheus package)"
	fi
	ends capabilities caps
else
	fail "image capabilities: serve did not start with the DaemonSet's capabilities: $(tail -c 300 "$WORK/caps.err")"
	kill $TRACER 2> /dev/null
	wait $TRACER 2> /dev/null
fi
