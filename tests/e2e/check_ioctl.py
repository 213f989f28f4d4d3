"""Checks an `xputrace ioctl` JSON summary against what ioctl_driver did.

usage: check_ioctl.py SUMMARY.json DRIVER_PIDS.json SCALE [only=a|b] [stream=FILE] [bits=32]
bits=32: the driver was built with -m32 (its unsigned long is 4 bytes).
Prints nothing and exits 0 when everything matches; otherwise one line per
mismatch and exit 1.
"""
import json
import sys

FIONBIO, FIOCLEX = 0x5421, 0x5451
IOWR_X1 = (3 << 30) | (8 << 16) | (ord('x') << 8) | 1
IOWR_X1_32 = (3 << 30) | (4 << 16) | (ord('x') << 8) | 1   # sizeof(unsigned long) in i386
IOR_X2 = (2 << 30) | (4 << 16) | (ord('x') << 8) | 2


def expected(scale, bits=64):
    # per process: cmd -> (calls, {errno: count})
    return {
        "a": {FIONBIO: (120 * scale, {"EFAULT": 20 * scale}),
              IOWR_X1 if bits == 64 else IOWR_X1_32: (50 * scale, {"ENOTTY": 50 * scale})},
        "b": {IOR_X2: (30 * scale, {"ENOTTY": 30 * scale}),
              FIOCLEX: (7 * scale, {})},
    }


def main():
    summary_path, pids_path, scale = sys.argv[1], sys.argv[2], int(sys.argv[3])
    opts = dict(a.split("=", 1) for a in sys.argv[4:])
    bad = []
    lines = open(summary_path).read().splitlines()
    stream_events = []
    if opts.get("stream"):
        # stream mode: one object per call, the summary last
        docs = [json.loads(l) for l in lines if l.strip()]
        stream_events = [d for d in docs if d.get("event") == "ioctl"]
        summaries = [d for d in docs if "processes" in d]
    else:
        summaries = [json.loads("\n".join(lines))]
    if len(summaries) != 1:
        print(f"expected one summary document, got {len(summaries)}")
        return 1
    s = summaries[0]
    pids = json.load(open(pids_path))
    want = expected(scale, int(opts.get("bits", 64)))
    if opts.get("only"):
        want = {opts["only"]: want[opts["only"]]}
    if s.get("drops", {}).get("total") != 0:
        bad.append(f"drops: {s.get('drops')}")
    got = {p["pid"]: p for p in s["processes"]}
    for who, cmds in want.items():
        p = got.get(pids[who])
        if not p:
            bad.append(f"process {who} (pid {pids[who]}) missing")
            continue
        if p["comm"] != f"xpt-drv-{who}":
            bad.append(f"process {who}: comm {p['comm']!r}")
        by_cmd = {int(i["cmd"], 16): i for i in p["ioctls"]}
        if set(by_cmd) != set(cmds):
            bad.append(f"process {who}: commands {sorted(map(hex, by_cmd))} != {sorted(map(hex, cmds))}")
        for cmd, (calls, errnos) in cmds.items():
            i = by_cmd.get(cmd)
            if not i:
                continue
            if i["calls"] != calls:
                bad.append(f"{who} {hex(cmd)}: calls {i['calls']} != {calls}")
            if i["errnos"] != errnos:
                bad.append(f"{who} {hex(cmd)}: errnos {i['errnos']} != {errnos}")
            if i["errors"] != sum(errnos.values()):
                bad.append(f"{who} {hex(cmd)}: errors {i['errors']}")
            lat = i["latency_ns"]
            if lat["count"] != calls or sum(b["count"] for b in lat["log2"]) != calls:
                bad.append(f"{who} {hex(cmd)}: histogram total {lat['count']} != {calls}")
            if not (0 < lat["p50"] <= lat["p99"] <= lat["max"]):
                bad.append(f"{who} {hex(cmd)}: p50 {lat['p50']} p99 {lat['p99']} max {lat['max']}")
    # other processes on the machine may use /dev/null too: they are not checked
    if opts.get("stream"):
        mine = [e for e in stream_events if e["pid"] in {pids[w] for w in want}]
        total = sum(c for cmds in want.values() for c, _ in cmds.values())
        if len(mine) != total:
            bad.append(f"stream: {len(mine)} events != {total}")
    for b in bad:
        print(b)
    return 1 if bad else 0


sys.exit(main())
