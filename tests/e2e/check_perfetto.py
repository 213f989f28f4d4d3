"""Checks a Chrome trace-event JSON file (what `xputrace export --perfetto`
writes) against the format's rules, and optionally against what
ioctl_driver did.

usage: check_perfetto.py TRACE.json [DRIVER_PIDS.json SCALE]
       check_perfetto.py TRACE.json --jobs N --vblanks N
Prints nothing and exits 0 when it holds; otherwise one line per problem.

Rules checked (Trace Event Format, the JSON object form):
- the document is an object with a "traceEvents" array
- every event has ph, pid, tid and a numeric ts >= 0 (microseconds)
- "X" events have a name and a numeric dur >= 0
- "X" events on one track (pid, tid) nest properly: sorted by start, each
  one ends before, or inside, the one that encloses it
- "i" instants have a scope "s" of t, p or g
- async "b"/"e": every begin has one end with the same cat, name and id,
  not before it
- with --jobs / --vblanks: that many GPU job slices (cat gpu_job), each with
  a flow from a "submit" slice on the submitting thread to the job's own
  track at the job's start; that many vblank instants, on named CRTC tracks
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
    slices = defaultdict(list)  # (pid, tid) -> [(ts, end, i)]
    pnames, tnames, used = set(), set(), set()
    flows_s, flows_f = {}, defaultdict(list)
    async_b, async_e = {}, defaultdict(list)
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
            slices[key].append((e["ts"], e["ts"] + e["dur"], i))
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
        elif ph == "i":
            used.add(key)
            if e.get("s") not in ("t", "p", "g") or not e.get("name"):
                bad.append(f"event {i}: instant {e}")
        elif ph in ("b", "e"):
            used.add(key)
            akey = (e.get("cat"), e.get("name"), e.get("id"))
            if None in akey:
                bad.append(f"event {i}: async event without cat, name or id")
            elif ph == "b":
                if akey in async_b:
                    bad.append(f"event {i}: async {akey} begins twice")
                async_b[akey] = e
            else:
                async_e[akey].append(e)
        else:
            bad.append(f"event {i}: phase {ph!r} not expected here")
    for key, lst in slices.items():
        stack = []
        for ts, end, i in sorted(lst, key=lambda x: (x[0], -x[1])):
            while stack and stack[-1] <= ts + 1e-3:
                stack.pop()
            if stack and end > stack[-1] + 1e-3:
                bad.append(f"event {i}: overlaps a slice it is not inside on {key}")
            stack.append(end)
    for fid, s in flows_s.items():
        f = flows_f.get(fid, [])
        if len(f) != 1:
            bad.append(f"flow {fid}: {len(f)} ends")
        elif f[0]["ts"] < s["ts"]:
            bad.append(f"flow {fid}: ends before it starts")
    for fid in flows_f:
        if fid not in flows_s:
            bad.append(f"flow {fid}: ends without a start")
    for akey, b in async_b.items():
        e = async_e.get(akey, [])
        if len(e) != 1:
            bad.append(f"async {akey}: {len(e)} ends")
        elif e[0]["ts"] < b["ts"]:
            bad.append(f"async {akey}: ends before it begins")
    for akey in async_e:
        if akey not in async_b:
            bad.append(f"async {akey}: ends without a begin")
    for pid, tid in used:
        if pid not in pnames:
            bad.append(f"pid {pid} has no process_name")
        if (pid, tid) not in tnames:
            bad.append(f"thread {pid}/{tid} has no thread_name")
    return bad, evs


def check_gpu(evs, jobs, vblanks):
    """The sched and vblank tracks: counts, and each job's arrow."""
    bad = []
    tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs
             if e.get("ph") == "M" and e.get("name") == "thread_name"}
    pname = {e["pid"]: e["args"]["name"] for e in evs
             if e.get("ph") == "M" and e.get("name") == "process_name"}
    job = [e for e in evs if e.get("ph") == "X" and e.get("cat") == "gpu_job"]
    sub = {(e["pid"], e["tid"], e["ts"]) for e in evs
           if e.get("ph") == "X" and e.get("cat") == "gpu_submit"}
    fs = {e["id"]: e for e in evs if e.get("ph") == "s"}
    ff = {e["id"]: e for e in evs if e.get("ph") == "f"}
    if jobs is not None and len(job) != jobs:
        bad.append(f"{len(job)} job slices, expected {jobs}")
    starts = {(e["pid"], e["tid"], e["ts"]) for e in job}
    for e in job:
        if pname.get(e["pid"]) != "GPU rings":
            bad.append(f"job on process {pname.get(e['pid'])!r}, not 'GPU rings'")
        if not tname.get((e["pid"], e["tid"]), "").startswith(e["args"].get("ring", "?")):
            bad.append(f"job of ring {e['args'].get('ring')} on track {tname.get((e['pid'], e['tid']))!r}")
    arrows = 0
    for fid, f in ff.items():
        s = fs.get(fid)
        if s is None:
            continue
        if (f["pid"], f["tid"], f["ts"]) in starts:
            arrows += 1
            if (s["pid"], s["tid"], s["ts"]) not in sub:
                bad.append(f"flow {fid} does not start at a submit slice of its thread")
            if s["pid"] >= 1 << 23:
                bad.append(f"flow {fid} starts on a synthetic track, not a thread")
    if jobs is not None and arrows != jobs:
        bad.append(f"{arrows} jobs with a submit arrow, expected {jobs}")
    vbl = [e for e in evs if e.get("ph") == "i" and e.get("name") == "vblank"]
    if vblanks is not None and len(vbl) != vblanks:
        bad.append(f"{len(vbl)} vblank instants, expected {vblanks}")
    for e in vbl:
        if pname.get(e["pid"]) != "Displays" or \
                not tname.get((e["pid"], e["tid"]), "").startswith("CRTC "):
            bad.append(f"vblank instant off a CRTC track: {e}")
    return bad


def main():
    try:
        doc = json.load(open(sys.argv[1]))
    except ValueError as e:
        print(f"not valid JSON: {e}")
        return 1
    bad, evs = check(doc)
    if len(sys.argv) > 2 and sys.argv[2].startswith("--"):
        opts = dict(zip(sys.argv[2::2], sys.argv[3::2]))
        bad += check_gpu(evs, int(opts["--jobs"]) if "--jobs" in opts else None,
                         int(opts["--vblanks"]) if "--vblanks" in opts else None)
    elif len(sys.argv) > 3:
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
