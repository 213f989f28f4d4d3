#!/usr/bin/env bash
# The README's main job: what this machine can trace, then a short trace of
# what it has. On a machine without a GPU or NPU, the lab demo boots a real
# Debian kernel under QEMU with a mock GPU on the real DRM scheduler and vkms,
# and shows xputrace there.
set -euo pipefail
cd "$(dirname "$0")/.."
./xputrace doctor
echo
if grep -Eq '^ *[0-9]+ (drm|accel|kfd|nvidia)' <(sed -n '/^Character devices:/,/^$/p' /proc/devices); then
	echo "== xputrace ioctl -d 10: the GPU ioctls of every process on this machine"
	./xputrace ioctl -d 10 --no-hist
	for verb in sched vblank mem; do
		if ./xputrace doctor --json | grep -A2 "\"$verb\": {" | grep -q '"available": true'; then
			echo "== xputrace $verb -d 10"
			./xputrace "$verb" -d 10 --no-hist
		fi
	done
else
	echo "== no GPU or NPU here: booting the lab demo (a real Debian kernel with a mock GPU; the first run downloads ~0.6 GB)"
	lab/demo.sh
fi
