/*
 * Loads the benchmark's floor (bench/bpf/floor.bpf.c) on one hook, says
 * "Attached", and on SIGINT prints the ioctl entries and returns it counted.
 * With "clock", it also reads the clock at each entry and return. With
 * "uprobe LIB FUNC", on the entry and return of FUNC in the library LIB.
 *   floor tp_btf|tracepoint|kprobe [clock]
 *   floor uprobe LIB FUNC [clock]
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

static volatile sig_atomic_t stop;
static void on_sig(int s) { (void)s; stop = 1; }

/* the uprobe and uretprobe on FUNC in LIB, for every process */
static int attach_up(struct floor_bpf *skel, const char *lib, const char *func)
{
	LIBBPF_OPTS(bpf_uprobe_opts, o, .func_name = func);

	if (!bpf_program__attach_uprobe_opts(skel->progs.floor_enter_up, -1, lib, 0, &o))
		return -1;
	o.retprobe = true;
	return bpf_program__attach_uprobe_opts(skel->progs.floor_exit_up, -1, lib, 0, &o) ? 0 : -1;
}

int main(int argc, char **argv)
{
	const char *hook = argc > 1 ? argv[1] : "tp_btf";
	int kp = !strcmp(hook, "kprobe"), tp = !strcmp(hook, "tracepoint"), up = !strcmp(hook, "uprobe");
	struct floor_bpf *skel = floor_bpf__open();
	unsigned long long total[2] = { 0, 0 };
	int ncpu = libbpf_num_possible_cpus();

	if (!skel)
		return 1;
	skel->rodata->with_clock = argc > (up ? 4 : 2) && !strcmp(argv[up ? 4 : 2], "clock");
	if ((!kp && !tp && !up && strcmp(hook, "tp_btf")) || (up && argc < 4)) {
		fprintf(stderr, "floor: no hook '%s' (tp_btf, tracepoint, kprobe, uprobe LIB FUNC)\n", hook);
		return 2;
	}
	bpf_program__set_autoload(skel->progs.floor_enter_btf, !kp && !tp && !up);
	bpf_program__set_autoload(skel->progs.floor_exit_btf, !kp && !tp && !up);
	bpf_program__set_autoload(skel->progs.floor_enter_up, up);
	bpf_program__set_autoload(skel->progs.floor_exit_up, up);
	bpf_program__set_autoload(skel->progs.floor_enter_tp, tp);
	bpf_program__set_autoload(skel->progs.floor_exit_tp, tp);
	bpf_program__set_autoload(skel->progs.floor_enter_kp, kp);
	bpf_program__set_autoload(skel->progs.floor_exit_kp, kp);
	if (floor_bpf__load(skel) || floor_bpf__attach(skel))
		goto fail;
	if (kp && (!bpf_program__attach_kprobe(skel->progs.floor_enter_kp, false, "__x64_sys_ioctl") ||
		   !bpf_program__attach_kprobe(skel->progs.floor_exit_kp, true, "__x64_sys_ioctl")))
		goto fail;
	if (up && attach_up(skel, argv[2], argv[3]))
		goto fail;
	signal(SIGINT, on_sig);
	signal(SIGTERM, on_sig);
	fprintf(stderr, "Attached (%s)\n", hook);
	while (!stop)
		pause();
	for (unsigned int i = 0; i < 2; i++) {
		unsigned long long v[ncpu > 0 ? ncpu : 1];

		if (!bpf_map_lookup_elem(bpf_map__fd(skel->maps.counts), &i, v))
			for (int c = 0; c < ncpu; c++)
				total[i] += v[c];
	}
	printf("entries %llu returns %llu\n", total[0], total[1]);
	floor_bpf__destroy(skel);
	return 0;
fail:
	fprintf(stderr, "floor: cannot load or attach on %s\n", hook);
	floor_bpf__destroy(skel);
	return 1;
}
