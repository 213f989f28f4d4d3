"""Checks a native Perfetto trace (what `xputrace export --perfetto` writes by
default) against the JSON export of the same recording (--format json).

usage: check_perfetto_pb.py TRACE.pftrace TRACE.json [-v]
       check_perfetto_pb.py --inflates-to PLAIN.pftrace TRACE.pftrace
Prints nothing and exits 0 when they agree (-v: one line of what was
compared); otherwise one line per difference. Exits 77 when protoc is
missing. The second form checks that TRACE's compressed batches (written by
`export --compress`) inflate to exactly the bytes of PLAIN.

A packet with compressed_packets (field 50, a zlib stream of packets) is
read as trace_processor reads it: the packets it inflates to, in its place.
It must hold nothing else.

The protobuf is decoded by `protoc --decode=perfetto.protos.Trace` with
perfetto_subset.proto (beside this file), then replayed as trace_processor
reads it: packets sorted by timestamp (ties in file order), each track's
SLICE_BEGIN / SLICE_END a stack. It must have:
- every packet on one trusted_packet_sequence_id; the first one with
  SEQ_INCREMENTAL_STATE_CLEARED, every track event that names an interned
  string or has its time on a clock of the sequence with
  SEQ_NEEDS_INCREMENTAL_STATE; every name and category iid interned on the
  sequence before an event uses it; every track uuid described before use
- times as trace_processor reads them: on the packet's timestamp_clock_id,
  else the sequence's TracePacketDefaults', else BOOTTIME; a clock other than
  BOOTTIME defined by a ClockSnapshot on the sequence before it is used (its
  BOOTTIME time with it), an incremental one's timestamps deltas from the
  last packet's on that clock
- a track event without track_uuid on the track of the sequence's
  TracePacketDefaults at that point (the last packet of them replaces those
  before)
- the JSON's threads (pid, tid, name), its processes' names, and its named
  tracks (group, name) as TrackDescriptors
- on each track the same slices (begin, end, name, category) and instants
- each async span ("b"/"e") as a slice on a child track of its thread named
  after it ("queued", "queued (2)", ...)
- each flow ("s" -> "f") from the same slice to the same slice: the JSON
  binds a flow to the innermost slice enclosing its time on its thread
- no counters where the JSON has none ("C" events), and the same counter
  samples where it has them
"""
import json
import os
import re
import subprocess
import sys
import zlib
from collections import defaultdict

PROTO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perfetto_subset.proto")
SYNTH_PID = 1 << 23
TOKEN = re.compile(r'\s*(?:(\})|([A-Za-z_][A-Za-z0-9_]*)\s*(\{|:\s*("(?:[^"\\]|\\.)*"|[^\s{}]+)))')


def parse_text(text):
    """protoc's text format as nested dicts of lists."""
    root, stack, pos = defaultdict(list), [], 0
    cur = root
    while pos < len(text):
        m = TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip():
                raise ValueError(f"text format at {pos}: {text[pos:pos + 40]!r}")
            break
        pos = m.end()
        if m.group(1):
            cur = stack.pop()
        elif m.group(3) == "{":
            child = defaultdict(list)
            cur[m.group(2)].append(child)
            stack.append(cur)
            cur = child
        else:
            v = m.group(4)
            if v.startswith('"'):
                v = v[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape") \
                    .encode("latin-1").decode("utf-8", "replace")
            elif re.fullmatch(r"-?\d+", v):
                v = int(v)
            cur[m.group(2)].append(v)
    return root


def one(d, k, default=None):
    v = d.get(k)
    return v[-1] if v else default


def varint(b, i):
    v = shift = 0
    while True:
        if i >= len(b):
            raise ValueError("a varint runs past the end")
        c = b[i]
        i += 1
        v |= (c & 0x7F) << shift
        shift += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field, wire type, value or bytes) of one message, at the wire level."""
    i = 0
    while i < len(b):
        tag, i = varint(b, i)
        f, w = tag >> 3, tag & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            v, i = b[i:i + 8], i + 8
        elif w == 5:
            v, i = b[i:i + 4], i + 4
        elif w == 2:
            n, i = varint(b, i)
            v, i = b[i:i + n], i + n
            if i > len(b):
                raise ValueError(f"field {f} runs past the end")
        else:
            raise ValueError(f"field {f}: wire type {w}")
        yield f, w, v


def inflate(data):
    """The Trace with every compressed batch replaced by its packets; and how many batches."""
    out, batches = bytearray(), 0
    for f, w, v in fields(data):
        fl = list(fields(v)) if (f, w) == (1, 2) else []
        if any(x[0] == 50 for x in fl):
            if len(fl) != 1 or fl[0][1] != 2:
                raise ValueError("a compressed_packets packet holds other fields too")
            inner = zlib.decompress(fl[0][2])
            for g, wg, _ in fields(inner):
                if (g, wg) != (1, 2):
                    raise ValueError(f"a compressed batch holds field {g}, not packets")
            out += inner
            batches += 1
        else:
            if (f, w) != (1, 2):
                raise ValueError(f"the trace holds field {f}, not packets")
            out += b"\x0a" + encode_varint(len(v)) + v
    return bytes(out), batches


def encode_varint(n):
    b = bytearray()
    while n >= 0x80:
        b.append(n & 0x7F | 0x80)
        n >>= 7
    b.append(n)
    return bytes(b)


def decode(path):
    with open(path, "rb") as f:
        data, _ = inflate(f.read())
    r = subprocess.run(["protoc", "--decode=perfetto.protos.Trace", "-I",
                        os.path.dirname(PROTO), PROTO], input=data, capture_output=True)
    if r.returncode:
        raise ValueError("protoc: " + r.stderr.decode(errors="replace").strip())
    return parse_text(r.stdout.decode("utf-8", "replace")).get("packet", [])


class PbTrace:
    """The tracks, slices, instants and flows of the decoded packets."""

    def __init__(self, packets):
        self.bad, self.desc, self.procs = [], {}, {}
        names, cats, events = {}, {}, []
        self.clocks, self.default_clock, self.default_track = {}, None, None
        for i, p in enumerate(packets):
            seq, flags = one(p, "trusted_packet_sequence_id"), one(p, "sequence_flags", 0)
            if seq != 1:
                self.bad.append(f"packet {i}: sequence {seq}")
            if i == 0 and flags != 1:
                self.bad.append("the first packet does not clear the incremental state")
            for cs in p.get("clock_snapshot", []):
                self.snapshot(i, cs)
            for d in p.get("trace_packet_defaults", []):
                self.default_clock = one(d, "timestamp_clock_id")
                self.default_track = one(one(d, "track_event_defaults", {}), "track_uuid")
            ts, own_clock = self.time(i, p)
            for idata in p.get("interned_data", []):
                for e in idata.get("event_names", []):
                    names[one(e, "iid")] = one(e, "name")
                for e in idata.get("event_categories", []):
                    cats[one(e, "iid")] = one(e, "name")
            for td in p.get("track_descriptor", []):
                self.describe(td)
            for te in p.get("track_event", []):
                if i and flags != 2 and (one(te, "type") != "TYPE_SLICE_END" or own_clock):
                    self.bad.append(f"packet {i}: a track event without SEQ_NEEDS_INCREMENTAL_STATE")
                if ts is None:
                    self.bad.append(f"packet {i}: a track event without a timestamp")
                uuid = one(te, "track_uuid", self.default_track)
                if uuid not in self.desc:
                    self.bad.append(f"packet {i}: track {uuid} used before it is described")
                ev = {"type": one(te, "type"), "uuid": uuid, "ts": ts or 0,
                      "flows": te.get("flow_ids", []), "term": te.get("terminating_flow_ids", [])}
                if ev["type"] != "TYPE_SLICE_END":
                    ni, ci = one(te, "name_iid"), one(te, "category_iids")
                    if ni not in names or ci not in cats:
                        self.bad.append(f"packet {i}: name {ni} or category {ci} not interned before")
                    ev["name"], ev["cat"] = names.get(ni), cats.get(ci)
                if one(te, "counter_value") is not None or ev["type"] == "TYPE_COUNTER":
                    ev["type"] = "TYPE_COUNTER"
                events.append(ev)
        self.replay(events)

    def snapshot(self, i, cs):
        """A ClockSnapshot: each clock's time at BOOTTIME's in the same snapshot."""
        clocks = {one(c, "clock_id"): c for c in cs.get("clocks", [])}
        if 6 not in clocks:
            self.bad.append(f"packet {i}: a clock snapshot without BOOTTIME")
            return
        boot = one(clocks[6], "timestamp", 0)
        for cid, c in clocks.items():
            if cid != 6:
                t = one(c, "timestamp", 0)
                self.clocks[cid] = {"boot": boot, "base": t, "last": t,
                                    "mult": one(c, "unit_multiplier_ns", 1),
                                    "incr": one(c, "is_incremental") == "true"}

    def time(self, i, p):
        """(the packet's time on BOOTTIME or None, whether its clock is the sequence's own)."""
        ts = one(p, "timestamp")
        cid = one(p, "timestamp_clock_id", self.default_clock or 6)
        if ts is None:
            return None, False
        if cid == 6:
            return ts, False
        c = self.clocks.get(cid)
        if c is None:
            self.bad.append(f"packet {i}: clock {cid} used before a snapshot defines it")
            return None, True
        v = c["last"] + ts if c["incr"] else ts
        c["last"] = v
        return c["boot"] + (v - c["base"]) * c["mult"], cid >= 64

    def describe(self, td):
        uuid = one(td, "uuid")
        proc = one(td, "process")
        if proc is not None:
            self.procs[one(proc, "pid")] = one(proc, "process_name", "")
            self.desc[uuid] = ("process", one(proc, "pid"))
            return
        th = one(td, "thread")
        if th is not None:
            self.desc[uuid] = ("thread", one(th, "pid"), one(th, "tid"), one(th, "thread_name", ""))
            return
        self.desc[uuid] = ("named", one(td, "parent_uuid"), one(td, "name", ""))

    def key(self, uuid):
        """("thread", pid, tid, name), ("track", group, name) or ("async", owner, name)."""
        d = self.desc.get(uuid)
        if d is None or d[0] != "named":
            return d
        parent = self.desc.get(d[1])
        if parent and parent[0] == "named" and parent[1] is None:
            return ("track", parent[2], d[2])
        return ("async", self.key(d[1]), re.sub(r" \(\d+\)$", "", d[2]))

    def replay(self, events):
        self.slices, self.instants, self.flows = defaultdict(list), defaultdict(list), {}
        self.counters = defaultdict(list)
        open_ = defaultdict(list)
        ends = {}
        for ev in sorted(events, key=lambda e: e["ts"]):
            k = self.key(ev["uuid"])
            if ev["type"] == "TYPE_SLICE_BEGIN":
                open_[ev["uuid"]].append(ev)
            elif ev["type"] == "TYPE_SLICE_END":
                if not open_[ev["uuid"]]:
                    self.bad.append(f"a slice end with nothing open on {k}")
                    continue
                b = open_[ev["uuid"]].pop()
                self.slice(k, b, ev["ts"], ends)
            elif ev["type"] == "TYPE_INSTANT":
                self.instants[k].append((ev["ts"], ev["name"], ev["cat"]))
                self.slice(None, ev, ev["ts"], ends)
            elif ev["type"] == "TYPE_COUNTER":
                self.counters[k].append(ev["ts"])
        for uuid, lst in open_.items():
            for b in lst:
                self.slice(self.key(uuid), b, None, ends)
        for fid, src in list(self.flows.items()):
            if fid not in ends:
                self.bad.append(f"flow {fid} never ends")
            else:
                self.flows[fid] = (src, ends.pop(fid))
        for fid in ends:
            self.bad.append(f"flow {fid} ends without a start")

    def slice(self, k, b, end, ends):
        s = (k, b["ts"], end, b["name"])
        if k is not None:
            self.slices[k].append((b["ts"], end, b["name"], b["cat"]))
        for fid in b["flows"]:
            self.flows[fid] = s
        for fid in b["term"]:
            ends[fid] = s


def us_to_ns(v):
    return int(round(v * 1000))


class JsonTrace:
    """The same from the JSON export."""

    def __init__(self, doc):
        evs = doc["traceEvents"]
        self.tname = {(e["pid"], e["tid"]): e["args"]["name"] for e in evs
                      if e.get("ph") == "M" and e.get("name") == "thread_name"}
        self.pname = {e["pid"]: e["args"]["name"] for e in evs
                      if e.get("ph") == "M" and e.get("name") == "process_name"}
        self.slices, self.instants, self.counters = defaultdict(list), defaultdict(list), defaultdict(list)
        self.async_spans = defaultdict(list)
        by_track, flows_s, flows_f, async_b = defaultdict(list), {}, {}, {}
        for i, e in enumerate(evs):
            ph = e.get("ph")
            if ph == "M":
                continue
            k, ts = self.key(e["pid"], e["tid"]), us_to_ns(e["ts"])
            if ph == "X":
                end = ts + us_to_ns(e["dur"])
                self.slices[k].append((ts, end, e["name"], e["cat"]))
                by_track[k].append((ts, end, i, e["name"]))
            elif ph == "i":
                self.instants[k].append((ts, e["name"], e["cat"]))
            elif ph == "C":
                self.counters[k].append(ts)
            elif ph == "s":
                flows_s[e["id"]] = (k, ts, i)
            elif ph == "f":
                flows_f[e["id"]] = (k, ts, i)
            elif ph == "b":
                async_b[(e["cat"], e["name"], e["id"])] = (k, ts)
            elif ph == "e":
                b = async_b.pop((e["cat"], e["name"], e["id"]), None)
                if b:
                    self.async_spans[("async", b[0], e["name"])].append((b[1], ts, e["name"], e["cat"]))
        for (cat, name, _), (k, ts) in async_b.items():
            self.async_spans[("async", k, name)].append((ts, None, name, cat))
        self.flows = {}
        for fid, s in flows_s.items():
            if fid in flows_f:
                self.flows[fid] = (self.bind(by_track, s), self.bind(by_track, flows_f[fid]))

    def key(self, pid, tid):
        if pid >= SYNTH_PID:
            return ("track", self.pname.get(pid, ""), self.tname.get((pid, tid), ""))
        if not tid:
            tid = pid
        return ("thread", pid, tid, self.tname.get((pid, tid), ""))

    @staticmethod
    def bind(by_track, at):
        """The innermost slice enclosing the flow's time on its track, written before it."""
        k, ts, i = at
        best = None
        for s_ts, s_end, j, name in by_track[k]:
            if s_ts <= ts <= s_end and j < i:
                if best is None or (s_ts, -s_end, j) > (best[0], -best[1], best[2]):
                    best = (s_ts, s_end, j, name)
        return (k, best[0], best[1], best[3]) if best else (k, ts, ts, None)


def compare(pb, js):
    bad = list(pb.bad)
    want_tracks = set(js.slices) | set(js.instants)
    have_tracks = {pb.key(u) for u in pb.desc if pb.desc[u][0] != "process"}
    for k in sorted(want_tracks, key=repr):
        if k not in have_tracks:
            bad.append(f"track {k} not described")
    for pid, name in js.pname.items():
        if pid < SYNTH_PID and pb.procs.get(pid) != name:
            bad.append(f"process {pid}: named {pb.procs.get(pid)!r}, the JSON {name!r}")
    for what, a, b in (("slices", js.slices, pb.slices), ("instants", js.instants, pb.instants)):
        for k in set(a) | {k for k in b if k[0] != "async"}:
            if sorted(a.get(k, []), key=repr) != sorted(b.get(k, []), key=repr):
                bad.append(f"{what} on {k}: JSON {len(a.get(k, []))}, protobuf {len(b.get(k, []))}"
                           f" (first differing: {first_diff(a.get(k, []), b.get(k, []))})")
    for k in set(js.async_spans) | {k for k in pb.slices if k[0] == "async"}:
        if sorted(js.async_spans.get(k, []), key=repr) != sorted(pb.slices.get(k, []), key=repr):
            bad.append(f"async spans {k}: JSON {len(js.async_spans.get(k, []))},"
                       f" protobuf {len(pb.slices.get(k, []))}")
    if sorted(js.flows.values(), key=repr) != sorted(pb.flows.values(), key=repr):
        bad.append(f"flows: JSON {len(js.flows)}, protobuf {len(pb.flows)}"
                   f" (first differing: {first_diff(list(js.flows.values()), list(pb.flows.values()))})")
    if {k: sorted(v) for k, v in js.counters.items()} != {k: sorted(v) for k, v in pb.counters.items()}:
        bad.append(f"counters: JSON {sum(map(len, js.counters.values()))},"
                   f" protobuf {sum(map(len, pb.counters.values()))}")
    return bad


def first_diff(a, b):
    sa, sb = set(map(repr, a)), set(map(repr, b))
    d = sorted(sa ^ sb)
    return d[0] if d else "order"


def main():
    if len(sys.argv) < 3:
        print(__doc__)
        return 2
    if sys.argv[1] == "--inflates-to" and len(sys.argv) == 4:
        with open(sys.argv[2], "rb") as f:
            plain = f.read()
        with open(sys.argv[3], "rb") as f:
            packed = f.read()
        try:
            data, batches = inflate(packed)
        except (ValueError, zlib.error) as e:
            print(e)
            return 1
        if not batches or data != plain:
            print(f"{batches} compressed batches inflate to {len(data)} bytes, not the"
                  f" {len(plain)} of {sys.argv[2]}")
            return 1
        print(f"{batches} compressed batches, {len(packed)} bytes, inflate to the"
              f" {len(plain)} bytes of the plain export")
        return 0
    try:
        packets = decode(sys.argv[1])
    except FileNotFoundError:
        print("protoc is missing (Debian: protobuf-compiler)")
        return 77
    except ValueError as e:
        print(e)
        return 1
    pb = PbTrace(packets)
    with open(sys.argv[2]) as f:
        js = JsonTrace(json.load(f))
    bad = compare(pb, js)
    for b in bad[:20]:
        print(b)
    if "-v" in sys.argv[3:] and not bad:
        n = lambda d: sum(map(len, d.values()))
        print(f"{len(packets)} packets agree with the JSON: {len(pb.desc)} tracks,"
              f" {n(pb.slices)} slices, {n(pb.instants)} instants, {len(pb.flows)} flows,"
              f" {n(pb.counters)} counter samples")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
