# Helpers of the scenarios on the nvidia test double (nvidia.sh, nvidia_hooks.sh),
# sourced in the guest after guest-lib.sh.
C=/sys/kernel/debug/nvidia_double/counts
PS=$(getconf PAGESIZE 2>/dev/null || echo 4096)
# what the module counted: "calls ns" of a function
cnt() { awk -v f=$2 '$1 == f { print $2 }' $1; }
ns() { awk -v f=$2 '$1 == f { print $3 }' $1; }
# within NAME XP_SUM XP_N MOD_SUM MOD_N IMPOSED_NS: the tracer's mean within
# 10 % of the module's mean by its own clock, and that mean the delay the
# module imposes (a busy wait: at least 95 % of it)
within() {
	set -- "$1" "${2:-0}" "${3:-0}" "${4:-0}" "${5:-0}" "$6"
	if [ "$3" -eq 0 ] || [ "$5" -eq 0 ]; then bad "$1: no calls timed (tracer $3, module $5)"; return; fi
	awk -v xs=$2 -v xn=$3 -v ms=$4 -v mn=$5 -v imp=$6 'BEGIN {
		x = xs / xn; m = ms / mn; d = (x - m) / m; if (d < 0) d = -d
		printf "%.0f %.0f %.3f\n", x, m, d; exit !(d <= 0.10 && m >= 0.95 * imp) }' >$S/w.txt
	if [ $? -eq 0 ]; then ok "$1: tracer mean / module mean / deviation: $(cat $S/w.txt)"
	else bad "$1: tracer mean / module mean / deviation (imposed $6 ns): $(cat $S/w.txt)"; fi
}

