# Helpers of the scenarios on the nvidia test double (nvidia.sh, nvidia_hooks.sh),
# sourced in the guest after guest-lib.sh.
C=/sys/kernel/debug/nvidia_double/counts
PS=$(getconf PAGESIZE 2>/dev/null || echo 4096)
# what the module counted: "calls ns" of a function
cnt() { awk -v f=$2 '$1 == f { print $2 }' $1; }
ns() { awk -v f=$2 '$1 == f { print $3 }' $1; }
