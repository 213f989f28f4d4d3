"""Checks `xputrace serve` and `top` against what cuda_app did (cuda_app.c).

usage:
  check_cuda_serve.py scrape METRICS CGROUP APPOUT...
      the scrape (Prometheus text) has, for cgroup CGROUP, the kernels,
      busy seconds (source="cupti") per device and copied bytes the
      cuda_apps that printed APPOUT... ran, summed: exact (busy to the ns)
  check_cuda_serve.py top OUTPUT APPOUT
      top's plain text: the app's row's gpu_busy_seconds% times each
      block's seconds adds up to its busy time on both devices (within 3 %:
      printed rounded)
Prints nothing and exits 0 when it all holds; else the first mismatch, exit 1.
"""
import re
import sys


def app(path):
    t = open(path).read()
    g = re.search(r"gemm kernels (\d+) time_ns \d+ busy_ns (\d+)", t)
    d = re.search(r"delay kernels (\d+) time_ns \d+ busy_ns (\d+)", t)
    c = re.search(r"copies htod \d+ bytes (\d+) dtoh \d+ bytes (\d+) memset \d+ bytes (\d+)", t)
    return {"pid": re.search(r"pid (\d+)", t).group(1),
            "k0": int(g.group(1)), "b0": int(g.group(2)), "k1": int(d.group(1)), "b1": int(d.group(2)),
            "htod": int(c.group(1)), "dtoh": int(c.group(2)), "memset": int(c.group(3))}


def series(text, cgroup):
    """{(family, frozenset of the other labels): value} of the cgroup's series"""
    out = {}
    for line in text.splitlines():
        m = re.match(r'(\w+)\{(.*)\} (\S+)$', line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', m.group(2)))
        if labels.pop("cgroup", None) != cgroup:
            continue
        for k in ("container_id", "pod_uid", "systemd_unit", "pid", "comm"):
            labels.pop(k, None)
        key = (m.group(1), frozenset(labels.items()))
        out[key] = out.get(key, 0) + float(m.group(3))
    return out


def scrape(path, cgroup, apps):
    s = series(open(path).read(), cgroup)
    a = [app(p) for p in apps]
    want = {
        ("xputrace_cuda_kernels_total", frozenset({("device", "0")})): sum(x["k0"] for x in a),
        ("xputrace_gpu_busy_seconds_total", frozenset({("device", "0"), ("source", "cupti")})):
            sum(x["b0"] for x in a) / 1e9,
    }
    for d in ("htod", "dtoh", "memset"):
        if sum(x[d] for x in a):
            want[("xputrace_cuda_copy_bytes_total", frozenset({("device", "0"), ("direction", d)}))] = \
                sum(x[d] for x in a)
    if sum(x["k1"] for x in a):
        want[("xputrace_cuda_kernels_total", frozenset({("device", "1")}))] = sum(x["k1"] for x in a)
        want[("xputrace_gpu_busy_seconds_total", frozenset({("device", "1"), ("source", "cupti")}))] = \
            sum(x["b1"] for x in a) / 1e9
    for k, v in want.items():
        got = s.get(k)
        assert got is not None, "no %s%s for cgroup %s (has: %s)" % (k[0], dict(k[1]), cgroup, sorted(s))
        assert abs(got - v) <= 1e-9 * max(1, v), "%s%s: %r, not %r" % (k[0], dict(k[1]), got, v)


def top(path, appout):
    a = app(appout)
    want = (a["b0"] + a["b1"]) / 1e9
    total, col = 0.0, None
    for b in [b for b in open(path).read().split("\n\n") if b.strip()]:
        lines = b.splitlines()
        dt = float(re.search(r"  ([0-9.]+) s  ", lines[0]).group(1))
        heads = lines[1].split()
        if "gpu_busy_seconds%" not in heads:
            continue
        col = heads.index("gpu_busy_seconds%")
        for row in lines[2:]:
            f = row.split()
            if f[0] == a["pid"]:
                total += float(f[col]) / 100 * dt
    assert col is not None, "no gpu_busy_seconds% column"
    assert abs(total - want) < want * 0.03, "the app's GPU time %.4f s, not %.4f" % (total, want)


if __name__ == "__main__":
    try:
        if sys.argv[1] == "scrape":
            scrape(sys.argv[2], sys.argv[3], sys.argv[4:])
        else:
            top(sys.argv[2], sys.argv[3])
    except (AssertionError, AttributeError, ValueError, IndexError) as e:
        print("%s: %s" % (type(e).__name__, e))
        sys.exit(1)
