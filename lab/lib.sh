# Shared helpers for the lab scripts (sourced, not run).
# The cache lives outside the clone: kernels, headers and builds are large.
LAB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_DIR=$(cd "$LAB_DIR/.." && pwd)
CACHE=${XPUTRACE_LAB_CACHE:-$HOME/.cache/xputrace-lab}
ARCHIVE=${XPUTRACE_LAB_MIRROR:-http://deb.debian.org/debian}
SECURITY=${XPUTRACE_LAB_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# Exit status meaning "could not run here" (test.sh turns it into SKIP).
EX_SKIP=77

log() { printf 'lab: %s\n' "$*" >&2; }
die() { printf 'lab: error: %s\n' "$*" >&2; exit 1; }
skip() { printf 'lab: skip: %s\n' "$*" >&2; exit $EX_SKIP; }

# Which suites a kernel generation comes from. "old" is Debian 12's own
# kernel (the gpu_scheduler events of 6.1..6.16); "new" is the newest kernel
# >= 6.17 Debian has (the drm_sched_job_queue/_run/_done generation).
suites_for() {
	case $1 in
	old) echo "$ARCHIVE bookworm|$ARCHIVE bookworm-updates|$SECURITY bookworm-security" ;;
	new) echo "$ARCHIVE trixie-backports" ;;
	sid) echo "$ARCHIVE sid" ;;
	*) die "unknown kernel generation '$1' (old, new)" ;;
	esac
}

# apt with a private configuration per generation: its own sources, lists
# and package cache, no host preferences, an empty dpkg status (so nothing
# installed on the host changes what resolves).
apt_dir() { echo "$CACHE/apt/$1"; }
apt_setup() {
	local tag=$1 d; d=$(apt_dir "$tag")
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/parts" "$d/prefs"
	: >"$d/status"
	local IFS='|' s
	: >"$d/sources.list.tmp"
	for s in $(suites_for "$tag"); do
		echo "deb [signed-by=$KEYRING] ${s% *} ${s#* } main" >>"$d/sources.list.tmp"
	done
	mv "$d/sources.list.tmp" "$d/sources.list"
}
apt_opts() {
	local d; d=$(apt_dir "$1")
	printf '%s\n' -o "Dir::Etc::SourceList=$d/sources.list" -o "Dir::Etc::SourceParts=$d/parts" \
		-o "Dir::Etc::Preferences=$d/prefs/none" -o "Dir::Etc::PreferencesParts=$d/prefs" \
		-o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache" -o "Dir::State::status=$d/status" \
		-o "APT::Architecture=amd64" -o "Acquire::Retries=3" -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root"
}
apt_run() { # apt_run TAG apt-get|apt-cache ARGS...
	local tag=$1 tool=$2; shift 2
	local -a o; mapfile -t o < <(apt_opts "$tag")
	"$tool" "${o[@]}" "$@"
}

# Host tools the lab needs. Installed with apt-get when missing (the CI
# machine is a fresh Debian 12 where we are root).
# (busybox-static is unpacked into the cache instead: it conflicts with busybox.)
HOST_PKGS=(qemu-system-x86 cpio xz-utils gzip gcc-12 make bc bison flex
	libelf-dev libssl-dev libdrm-dev binutils ca-certificates dwarves)
host_tools() {
	local missing=() p
	for p in "${HOST_PKGS[@]}"; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
	done
	[ ${#missing[@]} -eq 0 ] && return 0
	[ "$(id -u)" -eq 0 ] || die "missing host packages: ${missing[*]} (run as root or install them)"
	log "installing host packages: ${missing[*]}"
	export DEBIAN_FRONTEND=noninteractive
	if ! apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
		apt-get update -qq >/dev/null 2>&1 || skip "cannot reach Debian's archive to install ${missing[*]}"
		apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
			die "apt-get install ${missing[*]} failed"
	fi
}

BUSYBOX="$CACHE/tools/busybox/bin/busybox"

# Load what fetch.sh resolved for a generation into K_* variables.
load_kernel() {
	local f="$CACHE/$1.env"
	[ -f "$f" ] || die "kernel '$1' is not set up: run lab/fetch.sh $1"
	# shellcheck disable=SC1090
	. "$f"
}
