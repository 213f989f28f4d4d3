# The guest boots, and the lab's modules load on the real kernel.
say "$(uname -r)"
check "tracefs mounted" test -d $T/events
load mockgpu
check "mockgpu char device" test -c /dev/mockgpu
check "gpu_scheduler events" test -d $T/events/gpu_scheduler
lsmod
finish
