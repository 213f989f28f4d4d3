#!/usr/bin/env python3
"""Checks `xputrace cuda` output against what cuda_app printed it ran.

check_cuda.py OUT APPOUT CHECK...
  OUT     the JSON summary (or, for `stream`, the --stream -j lines)
  APPOUT  cuda_app's stdout: its pid and the workload's expectations
  CHECK   exact       the counts of cuda_app -n 200 -s 3 -d 20 -c 10 -x 7, for its pid
          totals      the run's totals are that one process's, nothing lost
          cgroup=ID   its rows carry cgroup id ID
          small=ID    cuda_app -n 100 -s 2 -d 0 -c 0 -x 0 in cgroup ID
          stream      cuda_app -n 50 -s 2 -d 5 -c 3 -x 2, one object per record
          perfetto    OUT is the JSON Perfetto export of cuda_app -n 200 -s 3 -d 20 -c 10
Prints what differs and exits 1, or nothing and 0.
"""
import json
import sys

bad = []


def want(cond, msg):
    if not cond:
        bad.append(msg)


def rows(d, key, pid, **kw):
    r = [x for x in d[key] if x["pid"] == pid and all(x.get(k) == v for k, v in kw.items())]
    return r[0] if len(r) == 1 else {"missing": kw, "gpu_ns": {}, "launch_to_start_ns": {}}


def exact(d, pid):
    g, dl = rows(d, "by_kernel", pid, name="xp_gemm"), rows(d, "by_kernel", pid, name="xp_delay")
    want(g.get("launches") == 600 and g["gpu_ns"].get("sum") == 600 * 300000, "xp_gemm: %s" % g)
    want(g["launch_to_start_ns"].get("count") == 600, "xp_gemm joined: %s" % g["launch_to_start_ns"])
    want(dl.get("launches") == 20 and dl["gpu_ns"].get("sum") == 20 * 50000, "xp_delay: %s" % dl)
    p50 = dl["launch_to_start_ns"].get("p50", 0)
    # 20 ms after the launch call; the buckets are 1/8 of a power of two wide
    want(dl["launch_to_start_ns"].get("count") == 20 and 17500000 <= p50 <= 20100000,
         "xp_delay launch->start p50 %s" % p50)
    p0, p1 = rows(d, "by_process", pid, device=0), rows(d, "by_process", pid, device=1)
    want(p0.get("busy_ns") == 200 * 500000, "device 0 busy %s != 100000000 (3 overlapping streams)" % p0.get("busy_ns"))
    want(p1.get("busy_ns") == 20 * 50000, "device 1 busy %s" % p1.get("busy_ns"))
    want(p0.get("kernels") == 600 and p1.get("kernels") == 20, "kernels per device")
    want(p0.get("htod") == {"n": 10, "bytes": 10 << 20, "ns": 10 * 200000}, "htod %s" % p0.get("htod"))
    want(p0.get("dtoh") == {"n": 10, "bytes": 40960, "ns": 10 * 10000}, "dtoh %s" % p0.get("dtoh"))
    want(p0.get("memset") == {"n": 10, "bytes": 5120, "ns": 10 * 5000}, "memset %s" % p0.get("memset"))


def totals(d):
    want(d["kernels"] == 620 and d["joined"] == 620 and d["launches"] == 620,
         "kernels %s joined %s launches %s" % (d["kernels"], d["joined"], d["launches"]))
    want(d["copies"] == 20 and d["memsets"] == 10, "copies %s memsets %s" % (d["copies"], d["memsets"]))
    want(d["cupti_dropped"] == 7, "cupti_dropped %s" % d["cupti_dropped"])
    want(d["drops"]["total"] == 0 and d["undecodable"] == 0, "records lost or undecodable")


def small(d, pid, cg):
    b = rows(d, "by_process", pid, device=0)
    want(b.get("busy_ns") == 100 * 400000 and b.get("kernels") == 200,
         "busy %s kernels %s" % (b.get("busy_ns"), b.get("kernels")))
    want(b.get("cgroup_id") == cg, "cgroup %s != %s" % (b.get("cgroup_id"), cg))


def stream(path, pid):
    ev = {}
    for line in open(path):
        try:
            o = json.loads(line)
        except ValueError:
            continue
        if isinstance(o, dict) and o.get("pid") == pid and "what" in o:
            ev.setdefault(o["what"], []).append(o)
    k = ev.get("kernel", [])
    joined = sum("launch_to_start_ns" in o for o in k)
    want(len(k) == 105 and joined == 105, "kernels %d, joined %d" % (len(k), joined))
    want(all(o["comm"] == "cuda_app" for o in k), "comms %s (the process's)" % sorted({o["comm"] for o in k}))
    want(sorted({o["stream"] for o in k if o["name"] == "xp_gemm"}) == [1, 2], "streams")
    want(all(o["dur_ns"] == 300000 for o in k if o["name"] == "xp_gemm"), "durations")
    la = ev.get("launch", [])
    want(len(la) == 105 and len({o["corr"] for o in la}) == 105, "launches %d" % len(la))
    want(len(ev.get("memcpy", [])) == 6 and len(ev.get("memset", [])) == 3, "copies")
    want(sum(o["bytes"] for o in ev.get("drops", [])) == 2, "drops")


def perfetto(path, pid):
    ev = json.load(open(path))
    ev = ev["traceEvents"] if isinstance(ev, dict) else ev
    names = {(e["pid"], e["tid"]): e["args"]["name"] for e in ev if e.get("ph") == "M" and e.get("name") == "thread_name"}
    x = [e for e in ev if e.get("ph") == "X"]
    k = [e for e in x if e.get("cat") == "cuda_kernel"]
    c = [e for e in x if e.get("cat") == "cuda_copy"]
    la = [e for e in x if e.get("cat") == "cuda_launch" and e["pid"] == pid]
    want(len(k) == 620 and len(c) == 30, "kernel slices %d, copy slices %d" % (len(k), len(c)))
    tracks = {names.get((e["pid"], e["tid"]), "") for e in k}
    want(sorted(tracks) == sorted("cuda_app/%d GPU %d stream %d" % (pid, d, s) for d, s in ((0, 1), (0, 2), (0, 3), (1, 1))),
         "kernel tracks %s" % sorted(tracks))
    want(sum(e["name"] == "xp_gemm" and e["dur"] == 300 for e in k) == 600, "xp_gemm slices of 300 us")
    want(len(la) == 620, "launch slices %d" % len(la))
    fs = [e for e in ev if e.get("ph") == "s"]
    ff = [e for e in ev if e.get("ph") == "f"]
    want(len(fs) == 620 and len(ff) == 620 and {e["id"] for e in fs} == {e["id"] for e in ff},
         "flows %d -> %d" % (len(fs), len(ff)))
    kt = {(e["pid"], e["tid"]) for e in k}
    want(all((e["pid"], e["tid"]) in kt for e in ff), "arrows end on stream tracks")


def main():
    out, appout, checks = sys.argv[1], sys.argv[2], sys.argv[3:]
    pid = int(open(appout).readline().split()[1])
    if checks == ["stream"]:
        stream(out, pid)
    elif checks == ["perfetto"]:
        perfetto(out, pid)
    else:
        d = json.load(open(out))
        for c in checks:
            if c == "exact":
                exact(d, pid)
            elif c == "totals":
                totals(d)
            elif c.startswith("cgroup="):
                cg = int(c[7:])
                want(all(r["cgroup_id"] == cg for r in d["by_process"] if r["pid"] == pid), "cgroup != %d" % cg)
            elif c.startswith("small="):
                small(d, pid, int(c[6:]))
    print("; ".join(bad))
    sys.exit(1 if bad else 0)


main()
