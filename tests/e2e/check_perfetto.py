"""Checks a Chrome trace-event JSON file (what `xputrace export --perfetto`
writes) against the format's rules, and optionally against what
ioctl_driver did.

usage: check_perfetto.py TRACE.json [DRIVER_PIDS.json SCALE]
Prints nothing and exits 0 when it holds; otherwise one line per problem.

Rules checked (Trace Event Format, the JSON object form):
- the document is an object with a "traceEvents" array
- every event has ph, pid, tid and a numeric ts >= 0 (microseconds)
- "X" events have a name and a numeric dur >= 0
- "X" events on one thread do not overlap unless nested, and their ts does
  not decrease in file order (a thread makes one syscall at a time)
- "M" events are process_name / thread_name with args.name; every pid and
  (pid, tid) that has events is named
- flow events: every "s" id has exactly one "f" with the same id, after it
  in time, and the "f" binds to an enclosing slice ("bp": "e")
"""
import json
import sys
from collections import defaultdict


def check(doc):
    bad = []
    if not isinstance(doc, dict) or not isinstance(doc.get("traceEvents"), list):
        return ["no traceEvents array"], []
    evs = doc["traceEvents"]
    last_end = defaultdict(lambda: (-1.0, -1.0))  # (pid, tid) -> (ts, end)
    pnames, tnames, used = set(), set(), set()
    flows_s, flows_f = {}, defaultdict(list)
    for i, e in enumerate(evs):
        for k in ("ph", "pid", "tid", "ts"):
            if k not in e:
                bad.append(f"event {i} lacks {k}: {e}")
        if any(k not in e for k in ("ph", "pid", "tid", "ts")):
            continue
        if not isinstance(e["ts"], (int, float)) or e["ts"] < 0:
            bad.append(f"event {i}: ts {e['ts']!r}")
            continue
        ph, key = e["ph"], (e["pid"], e["tid"])
        if ph == "X":
            used.add(key)
            if not isinstance(e.get("dur"), (int, float)) or e["dur"] < 0:
                bad.append(f"event {i}: dur {e.get('dur')!r}")
                continue
            if not e.get("name"):
                bad.append(f"event {i}: no name")
            ts, end = last_end[key]
            if e["ts"] < ts:
                bad.append(f"event {i}: ts {e['ts']} before {ts} on {key}")
            elif e["ts"] < end and e["ts"] + e["dur"] > end + 1e-3:
                bad.append(f"event {i}: overlaps the slice before it on {key}")
            last_end[key] = (e["ts"], max(end, e["ts"] + e["dur"]))
        elif ph == "M":
            if e.get("name") not in ("process_name", "thread_name") or \
                    not isinstance(e.get("args", {}).get("name"), str):
                bad.append(f"event {i}: metadata {e}")
            (pnames if e["name"] == "process_name" else tnames).add(
                e["pid"] if e["name"] == "process_name" else key)
        elif ph == "s":
            if e.get("id") in flows_s:
                bad.append(f"event {i}: flow id {e.get('id')} starts twice")
            flows_s[e.get("id")] = e
            used.add(key)
        elif ph == "f":
            flows_f[e.get("id")].append(e)
            used.add(key)
            if e.get("bp") != "e":
                bad.append(f"event {i}: flow end without bp:e")
        else:
            bad.append(f"event {i}: phase {ph!r} not expected here")
    for fid, s in flows_s.items():
        f = flows_f.get(fid, [])
        if len(f) != 1:
            bad.append(f"flow {fid}: {len(f)} ends")
        elif f[0]["ts"] < s["ts"]:
            bad.append(f"flow {fid}: ends before it starts")
    for fid in flows_f:
        if fid not in flows_s:
            bad.append(f"flow {fid}: ends without a start")
    for pid, tid in used:
        if pid not in pnames:
            bad.append(f"pid {pid} has no process_name")
        if (pid, tid) not in tnames:
            bad.append(f"thread {pid}/{tid} has no thread_name")
    return bad, evs


def main():
    try:
        doc = json.load(open(sys.argv[1]))
    except ValueError as e:
        print(f"not valid JSON: {e}")
        return 1
    bad, evs = check(doc)
    if len(sys.argv) > 3:
        # the driver's calls: every one a slice, named, on its process
        pids, scale = json.load(open(sys.argv[2])), int(sys.argv[3])
        # by command number (FIONBIO, FIOCLEX): /dev/null has no name table
        want = {("a", "0x00005421"): 120, ("b", "0x00005451"): 7}
        names = {e["pid"]: e["args"]["name"] for e in evs
                 if e.get("ph") == "M" and e.get("name") == "process_name"}
        for (who, cmd), n in want.items():
            got = [e for e in evs if e.get("ph") == "X" and e["pid"] == pids[who]
                   and e.get("args", {}).get("cmd") == cmd]
            if len(got) != n * scale:
                bad.append(f"{who}: {len(got)} {cmd} slices, expected {n * scale}")
            if any(not e.get("name") or e.get("cat") != "ioctl" for e in got):
                bad.append(f"{who}: {cmd} slices without a name or category")
            if names.get(pids[who]) != f"xpt-drv-{who}":
                bad.append(f"{who}: process named {names.get(pids[who])!r}")
        mine = sum(1 for e in evs if e.get("ph") == "X" and e["pid"] in pids.values())
        if mine != 207 * scale:
            bad.append(f"{mine} slices of the driver, expected {207 * scale}")
    for b in bad[:20]:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
