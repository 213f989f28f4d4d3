#!/usr/bin/env bash
# Installs what building and testing xputrace needs, from Debian's packages.
# Idempotent and quick when everything is already there.
set -euo pipefail
# ocl-icd-libopencl1, libze1, libamdhip64-5, libhsa-runtime64-1: the OpenCL and
# Level Zero loaders and the HIP and HSA runtimes the api test traces (HIP's
# compiler support library, libamd-comgr2, makes it the largest: ~80 MB installed);
# curl, prometheus: serve's test scrapes with both
# libzstd-dev: `record --compress` (the build leaves zstd out without it)
# libdeflate-dev: `export --compress` (zlib streams, in about half zlib's time)
# libncurses-dev: top's terminal screen (curses; its static library for xputrace-static)
# protobuf-compiler: protoc decodes the native Perfetto export in its tests
# podman, runc: `make image`, and its test runs serve in the image (runc where
# crun cannot run containers: a cgroup v2 tree with controllers beside v1's)
# systemtap-sdt-dev: sys/sdt.h, the USDT probes of libxputrace-cuda.so
pkgs=(make gcc gcc-multilib clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev libzstd-dev libdeflate-dev libncurses-dev pkg-config bpftrace python3 util-linux man-db zsh
      curl prometheus ocl-icd-libopencl1 libze1 libamdhip64-5 libhsa-runtime64-1 protobuf-compiler podman runc python3-yaml systemtap-sdt-dev)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "deps: missing ${missing[*]}; run as root or install them with apt-get" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
