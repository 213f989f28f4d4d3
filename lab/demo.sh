#!/usr/bin/env bash
# A demo for a machine without a GPU: boots Debian's newest kernel under
# QEMU with the mock GPU (real DRM scheduler), vgem and vkms kept busy by a
# few programs, and shows what xputrace prints there.
#   lab/demo.sh [--kernel old|new]
# The first run downloads the kernels (~0.6 GB, a few minutes) into
# ${XPUTRACE_LAB_CACHE:-~/.cache/xputrace-lab}; later runs start in seconds.
set -euo pipefail
LAB=$(cd "$(dirname "$0")" && pwd)
kernel=new
[ "${1:-}" = --kernel ] && kernel=$2
if [ ! -x "$LAB/../xputrace-static" ] || [ -n "$(find "$LAB/../src" -newer "$LAB/../xputrace-static" -name '*.[ch]' | head -1)" ]; then
	make -s -C "$LAB/.." static
fi
exec "$LAB/run.sh" --kernel "$kernel" --timeout 300 "$LAB/demo/guest.sh"
