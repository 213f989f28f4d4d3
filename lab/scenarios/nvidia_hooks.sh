# xputrace nvidia on the nvidia test double with each hook forced (kprobe, kprobe.multi,
# fentry/fexit), then the one picked by itself and named by doctor. A guest of its own (kprobes
# first; see lab/README.md). Each forced tracer's stderr file is removed before it starts: the
# last tracer's lines, read as the new one's before its shell had truncated the file, left this
# script waiting for good on a tracer that was tracing, in about half of the 6.1 runs. It
# passes in 30-300 s; a guest still running after 480 s is hung.
# lab-timeout: 480
need_xputrace
C=/sys/kernel/debug/nvidia_double/counts
PS=$(getconf PAGESIZE 2>/dev/null || echo 4096)
load nvidia || finish
mknod /dev/nvidiactl c 195 255; mknod /dev/nvidia0 c 195 0
kv=$(uname -r | awk -F. '{ print $1 * 100 + $2 }')

group hooks
# each hook, forced, sees one client's known calls alike: exact counts per process, escape and
# function (process context: nothing else of ours runs then); interrupts seen + drops = the
# module's count; the delays on medians of 11 calls against the module's clock (nv_timing)
for hk in kprobe kprobe.multi fentry; do
	cp $C $S/hb.txt
	# the last tracer's lines must not be read as this one's: the redirection below truncates
	# the file only once the background shell runs, maybe after the first grep has read it
	rm -f $S/h.err
	XPUTRACE_NVIDIA_HOOK=$hk xputrace nvidia --json --no-hist >$S/h.json 2>$S/h.err & HX=$!
	# (an exited child stays signalable until waited for: its error line says it ended)
	i=0; while ! grep -q '^Tracing\|^xputrace:' $S/h.err 2>/dev/null && [ $i -lt 400 ]; do sleep 0.05; i=$((i + 1)); done
	# still starting (neither line): said with where it is, and stopped, never waited for
	if ! grep -q '^Tracing\|^xputrace:' $S/h.err 2>/dev/null; then
		bad "$hk: neither tracing nor ended after $i polls; its stack: $(tr '\n' ' ' </proc/$HX/stack 2>/dev/null)"
		kill -INT $HX; wait $HX
		continue
	fi
	if ! grep -q '^Tracing' $S/h.err; then
		wait $HX; rh=$?
		if [ $hk = fentry ] && [ ! -e /sys/kernel/btf/nvidia ]; then
			expect_eq "fentry, forced, without module BTF: one line, status 1" "1 1" \
				"$(grep -c 'XPUTRACE_NVIDIA_HOOK=fentry: the nvidia module has no BTF' $S/h.err) $rh"
		elif [ $hk = kprobe.multi ] && [ $kv -lt 607 ]; then
			expect_eq "kprobe.multi, forced, where this kernel has none: one line, status 1" "1 1" \
				"$(grep -c 'XPUTRACE_NVIDIA_HOOK=kprobe.multi: ' $S/h.err) $rh"
		else
			bad "$hk: did not start (status $rh): $(cat $S/h.err)"
		fi
		continue
	fi
	cat $S/h.err
	nvclient alloc=2 control=3 pages=4 >/dev/null & Q=$!; wait $Q
	i=0; while [ "$(cnt $C nvidia_isr_kthread_bh)" != "$(($(cnt $S/hb.txt nvidia_isr_kthread_bh) + 5))" ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
	sleep 0.3
	for k in 1 2 3; do echo suspend >/sys/kernel/debug/nvidia_double/trigger; done
	sleep 0.2
	kill -INT $HX; wait $HX; rh=$?
	cp $C $S/ha.txt
	H=$S/h.json
	expect_eq "$hk: exit status, hook" "0 $(case $hk in fentry) echo fentry/fexit ;; *) echo $hk ;; esac)" "$rh $(jget $H hook)"
	expect_eq "$hk: 'Tracing' names it" 1 "$(grep -c "^Tracing nvidia.ko (12 of 14 functions, $(jget $H hook)[,;]" $S/h.err)"
	for e in "opens 2" "closes 2" "ioctls 8" "mmaps 1" "mmap_bytes $((4 * PS))" "faults 4"; do
		set -- $e
		expect_eq "$hk: client $Q: $1" $2 "$(jget $H "processes[pid=$Q].$1")"
	done
	for e in "NV_ESC_RM_ALLOC 2" "NV_ESC_RM_FREE 2" "NV_ESC_RM_CONTROL 3" "NV_ESC_CARD_INFO 1"; do
		set -- $e
		expect_eq "$hk: $1 calls" $2 "$(jget $H "ioctls[name=$1].calls")"
	done
	for f in nvidia_open nvidia_close nvidia_unlocked_ioctl nvidia_mmap nvidia_fault nvidia_suspend nvidia_resume; do
		expect_eq "$hk: $f = the module's count" $(($(cnt $S/ha.txt $f) - $(cnt $S/hb.txt $f))) "$(jget $H "functions[name=$f].calls")"
	done
	lost=0
	for f in nvidia_isr nvidia_isr_msix nvidia_isr_kthread_bh; do
		lost=$((lost + $(cnt $S/ha.txt $f) - $(cnt $S/hb.txt $f) - $(jget $H "functions[name=$f].calls")))
	done
	expect_eq "$hk: interrupt calls not seen = drops counted" $lost "$(jget $H drops.total)"
	# the delays on medians of 11 calls, a tracer of this hook alone
	nv_timing $hk $S/ht.json
	say "$hk: hooks passed over: $(jget $H hooks_passed_over 2>/dev/null)"
done

group picked
# fentry/fexit where the module has BTF (the lab builds it without on kernels whose pahole it lacks),
# kprobe.multi where the kernel counts its misses (6.7 and later), else kprobes
if [ -e /sys/kernel/btf/nvidia ]; then want=fentry/fexit; elif [ $kv -ge 607 ]; then want=kprobe.multi; else want=kprobe; fi
xputrace nvidia --json -d 0.3 >$S/auto.json 2>$S/auto.err; ra=$?
cat $S/auto.err
expect_eq "auto: the cheapest hook that counts its misses" "0 $want" "$ra $(jget $S/auto.json hook)"
if [ $want != fentry/fexit ]; then
	expect_eq "auto: it says why not fentry" 1 "$(grep -c '^Tracing nvidia.ko (.*; not fentry: the nvidia module has no BTF' $S/auto.err)"
fi
if [ $want = kprobe ]; then
	expect_eq "auto: it says why not kprobe.multi" 1 "$(grep -c '^Tracing nvidia.ko (.*; kprobe.multi: ' $S/auto.err)"
fi
xputrace doctor >$S/doc.txt 2>&1
grep -E '^ *nvidia +(yes|no) ' $S/doc.txt
expect_eq "doctor: the hook it would pick" 1 "$(grep -cE "^ *nvidia +yes +$want on nvidia.ko" $S/doc.txt)"
finish
