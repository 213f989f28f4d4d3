"""Checks of the Grafana dashboard docs/grafana/xputrace.json.

usage:
  check_grafana.py shape DASH
      what Grafana needs to import it: panels with PromQL targets, a
      Prometheus datasource variable they all use, every $variable defined
  check_grafana.py names DASH [--live METRICS] [--src FILE...]
      every xputrace_* name in a query is a series name xputrace serves:
      from METRICS (a scrape of a running `xputrace serve`, Prometheus text
      0.0.4) and from the families declared in the C files (for those a
      scrape cannot show on this machine); the suffix rules applied to
      each family (counter: _total; histogram: _bucket, _sum, _count;
      gauge: the name). With --live, it says which names only the source
      vouched for.
  check_grafana.py labels DASH SRC_DIR
      every label a query matches, groups by or names in a legend is one
      xputrace puts on its series (xp_labels_add() and the kv pairs of its
      own metrics in the C files under SRC_DIR), one the exposition has
      (le, other) or one Prometheus adds to every target (instance, job):
      a misspelled label matched by a regex would match everything silently
  check_grafana.py rules DASH OUT
      writes a Prometheus rules file (JSON, which is YAML) to OUT, each query
      a recording rule, the $variables replaced (intervals by 5m, the others
      by .*), label_values(SELECTOR, LABEL) by its SELECTOR, for
      `promtool check rules`; prints how many

Each check prints PASS/FAIL lines as the e2e tests do.
"""
import glob
import json
import os
import re
import sys

# Grafana's own variables, and what stands for them in a rule
BUILTIN = {"__rate_interval": "5m", "__interval": "5m", "__range": "5m", "__interval_ms": "300000",
           "__range_s": "300", "__range_ms": "300000", "__dashboard": "x", "__user": "x", "__org": "x"}
# $name, ${name}, ${name:format}, [[name]]
VAR = re.compile(r'\$\{(\w+)(?::[^}]*)?\}|\$(\w+)|\[\[(\w+)\]\]')
NAME = re.compile(r'\bxputrace_[A-Za-z0-9_:]*')
# the families the dashboard is asked to show (issue #28): each used somewhere
MUST = ["xputrace_gpu_busy_seconds", "xputrace_gpu_ring_busy_seconds", "xputrace_gpu_jobs",
        "xputrace_gpu_job_queue_seconds", "xputrace_gpu_job_run_seconds", "xputrace_ioctls",
        "xputrace_ioctl_errors", "xputrace_ioctl_duration_seconds", "xputrace_drops",
        "xputrace_events"]


def say(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    sys.stdout.flush()


def all_panels(d):
    """Every panel, those inside collapsed rows too."""
    for p in d.get("panels", []):
        yield p
        for q in p.get("panels", []) if isinstance(p, dict) else []:
            yield q


def queries(d):
    """(where, PromQL-ish text, is a variable query) of every query in the dashboard."""
    for p in all_panels(d):
        for t in p.get("targets", []) or []:
            if isinstance(t, dict) and "expr" in t:
                yield "panel '%s' %s" % (p.get("title"), t.get("refId")), t["expr"], False
    for v in d.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v.get("query")
            if isinstance(q, dict):
                q = q.get("query")
            yield "variable '%s'" % v.get("name"), q, True


def var_names(text):
    return [a or b or c for a, b, c in VAR.findall(text)]


def shape(d):
    bad = []

    def want(cond, what):
        if not cond:
            bad.append(what)

    want(isinstance(d.get("title"), str) and d["title"], "no title")
    want(isinstance(d.get("uid"), str) and 0 < len(d["uid"]) <= 40, "uid missing or over 40 characters")
    # 36: datasources are {type, uid} objects (Grafana 9); the Grafanas of now write 39 to 41
    want(isinstance(d.get("schemaVersion"), int) and 36 <= d["schemaVersion"] <= 45,
         "schemaVersion %r is not a current Grafana's" % d.get("schemaVersion"))
    vs = d.get("templating", {}).get("list")
    want(isinstance(vs, list), "no templating.list")
    vs = vs if isinstance(vs, list) else []
    names = {v.get("name"): v for v in vs}
    want(len(names) == len(vs), "two variables of one name")
    dsv = [v["name"] for v in vs if v.get("type") == "datasource" and v.get("query") == "prometheus"]
    want(len(dsv) == 1, "not one datasource variable of type prometheus: %s" % dsv)
    refs = {"${%s}" % n for n in dsv} | {"$%s" % n for n in dsv}

    def ds_ok(ds, where):
        want(isinstance(ds, dict) and ds.get("uid") in refs and ds.get("type") == "prometheus",
             "%s: datasource %r is not the Prometheus variable" % (where, ds))

    for v in vs:
        if v.get("type") == "query":
            ds_ok(v.get("datasource"), "variable '%s'" % v.get("name"))
            want(v.get("query"), "variable '%s' has no query" % v.get("name"))
    ps = d.get("panels")
    want(isinstance(ps, list) and ps, "no panels")
    ids, ntargets, ngraphs = set(), 0, 0
    for p in all_panels(d):
        where = "panel '%s'" % p.get("title")
        want(isinstance(p.get("id"), int) and p["id"] not in ids, "%s: id %r missing or repeated" % (where, p.get("id")))
        ids.add(p.get("id"))
        want(isinstance(p.get("type"), str) and isinstance(p.get("title"), str) and p["title"],
             "%s: no type or title" % where)
        g = p.get("gridPos", {})
        want(all(isinstance(g.get(k), int) for k in "hwxy") and g.get("x", 0) + g.get("w", 99) <= 24,
             "%s: gridPos %r" % (where, g))
        if p.get("type") == "row":
            continue
        ngraphs += 1
        ds_ok(p.get("datasource"), where)
        ts = p.get("targets")
        want(isinstance(ts, list) and ts, "%s: no targets" % where)
        refids = [t.get("refId") for t in ts or []]
        want(len(set(refids)) == len(refids) and all(refids), "%s: refIds %r" % (where, refids))
        for t in ts or []:
            ntargets += 1
            want(isinstance(t.get("expr"), str) and t["expr"].strip(), "%s %s: no expr" % (where, t.get("refId")))
            if "datasource" in t:
                ds_ok(t["datasource"], "%s %s" % (where, t.get("refId")))
    # every variable a query uses is defined, and one of several values
    # (multi) is matched as a regex, as Grafana joins them with |
    for where, q, _ in queries(d):
        for n in var_names(q or ""):
            if n in BUILTIN:
                continue
            want(n in names, "%s: $%s is no variable" % (where, n))
            if names.get(n, {}).get("multi") or names.get(n, {}).get("includeAll"):
                want(re.search(r'=~\s*"[^"]*\$\{?%s\b' % n, q), "%s: $%s not in a =~ matcher" % (where, n))
    used = " ".join(q or "" for _, q, _ in queries(d))
    for f in MUST:
        want(re.search(r'\b%s(_total|_bucket|_sum|_count)?\b' % f, used), "no query shows %s" % f)
    return bad, ngraphs, ntargets


def declared(paths):
    """{series name: family} of the families the C files declare, with the suffix rules."""
    fam = re.compile(r'xp_metrics_(family|histogram)\(\s*[^,"]+,\s*"(\w+)"(.*?)\);', re.S)
    # a table of families for xp_metrics_declare: { offsetof(...), "name", "help", unit, XP_METRIC_TYPE, ... }
    table = re.compile(r'\{\s*offsetof\([^)]*\),\s*"(\w+)",(.*?)\}', re.S)
    out = {}
    for path in paths:
        with open(path) as f:
            text = f.read()
        found = fam.findall(text)
        found += [("histogram" if "XP_METRIC_HISTOGRAM" in rest else "family", name, rest)
                  for name, rest in table.findall(text)]
        for kind, name, rest in found:
            if kind == "histogram":
                sfx = ["_bucket", "_sum", "_count"]
            elif "XP_METRIC_COUNTER" in rest:
                sfx = ["_total"]
            elif "XP_METRIC_GAUGE" in rest:
                sfx = [""]
            else:
                raise ValueError("%s: %s of no type this check knows" % (path, name))
            for s in sfx:
                out[name + s] = name
    return out


def served(path):
    """{series name: family} of a Prometheus 0.0.4 scrape: its # TYPE lines by the suffix rules, and its samples."""
    out = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'# TYPE (\S+) (\S+)$', line)
            if m:
                name, kind = m.groups()
                base = name[:-len("_total")] if kind == "counter" and name.endswith("_total") else name
                sfx = {"counter": ["_total"], "histogram": ["_bucket", "_sum", "_count"]}.get(kind, [""])
                for s in sfx:
                    out[base + s] = base
            elif line.strip() and not line.startswith("#"):
                name = re.match(r'[a-zA-Z_:][a-zA-Z0-9_:]*', line).group(0)
                out.setdefault(name, name)
    return out


def names(d, live, srcs):
    have = served(live) if live else {}
    src = declared(srcs) if srcs else {}
    bad, from_src = [], set()
    if live and not any(n.startswith("xputrace_ioctls_total") for n in have):
        bad.append("the scrape %s has no xputrace_ioctls_total: not serve's output" % live)
    used = set()
    for where, q, _ in queries(d):
        for n in NAME.findall(q or ""):
            used.add(n)
            if n in have:
                continue
            if n in src:
                from_src.add(n)
                continue
            bad.append("%s: %s is not a series xputrace serves" % (where, n))
    return bad, used, from_src


# labels no C file names as such: the exposition's own and Prometheus' target labels
LABELS_ALWAYS = {"le", "other", "instance", "job"}


def src_labels(top):
    out = set()
    for path in glob.glob(os.path.join(top, "**", "*.c"), recursive=True):
        with open(path) as f:
            text = f.read()
        out.update(re.findall(r'xp_labels_add\(\s*\w+\s*,\s*\w+\s*,\s*"(\w+)"', text))
        out.update(re.findall(r'kv\[2\]\s*=\s*\{\s*"(\w+)"', text))
        # a record's own labels (struct xp_rec_labels): .name = { "driver", "timeline" }
        for names in re.findall(r'\.name\s*=\s*\{([^}]*)\}', text):
            out.update(re.findall(r'"(\w+)"', names))
    return out


def labels_used(q, is_var, legend):
    """The label names a query (and its legend) uses."""
    out = set(re.findall(r'([A-Za-z_]\w*)\s*(?:=~|!~|!=|=)\s*"', q))
    for _, ls in re.findall(r'\b(by|without|on|ignoring|group_left|group_right)\s*\(([^)]*)\)', q):
        out.update(x.strip() for x in ls.split(",") if x.strip())
    if is_var:
        m = re.match(r'\s*label_values\((?:.*,)?\s*(\w+)\s*\)\s*$', q, re.S)
        if m:
            out.add(m.group(1))
    out.update(re.findall(r'\{\{\s*(\w+)\s*\}\}', legend or ""))
    out.discard("__name__")
    return out


def labels(d, top):
    known = src_labels(top) | LABELS_ALWAYS
    bad, used = [], set()
    legends = {}
    for p in all_panels(d):
        for t in p.get("targets", []) or []:
            if isinstance(t, dict):
                legends["panel '%s' %s" % (p.get("title"), t.get("refId"))] = t.get("legendFormat")
    for where, q, is_var in queries(d):
        for n in sorted(labels_used(q or "", is_var, legends.get(where))):
            used.add(n)
            if n not in known:
                bad.append("%s: label %s is none xputrace serves" % (where, n))
    return bad, used, known


def rules(d):
    out = []
    for where, q, is_var in queries(d):
        if is_var:
            m = re.match(r'\s*label_values\((.*),\s*\w+\s*\)\s*$', q, re.S)
            if not m:
                continue	# label_values(LABEL), metrics(...): no PromQL in it
            q = m.group(1)

        def sub(m):
            n = m.group(1) or m.group(2) or m.group(3)
            return BUILTIN.get(n, ".*")
        out.append({"record": "grafana_check:query_%d" % (len(out) + 1), "expr": VAR.sub(sub, q),
                    "labels": {"where": where}})
    return {"groups": [{"name": "xputrace_dashboard", "rules": out}]}


def main(argv):
    try:
        with open(argv[2]) as f:
            d = json.load(f)
    except (OSError, ValueError) as e:
        say(False, "grafana dashboard %s is no JSON: %s" % (argv[2], e))
        return 1
    if argv[1] == "shape":
        bad, ng, nt = shape(d)
        say(not bad, "grafana dashboard is importable: %d panels, %d queries, all on its Prometheus datasource variable%s"
            % (ng, nt, ": " + "; ".join(bad[:5]) if bad else ""))
        return 0 if not bad else 1
    if argv[1] == "names":
        args, live, srcs = argv[3:], None, []
        while args:
            if args[0] == "--live":
                live, args = args[1], args[2:]
            elif args[0] == "--src":
                srcs, args = args[1:], []
            else:
                raise SystemExit("names: unknown argument %r" % args[0])
        bad, used, from_src = names(d, live, srcs)
        if live:
            what = "a running serve's scrape" + (" (%s only in the source: %s)" % (
                "the families of capabilities whose events this kernel lacks are not served here;",
                ", ".join(sorted(from_src))) if from_src else "")
        else:
            what = "the families declared in %d C files" % len(srcs)
        say(not bad and used, "grafana dashboard's %d metric names are served, by %s%s"
            % (len(used), what, ": " + "; ".join(bad[:5]) if bad else ""))
        return 0 if not bad and used else 1
    if argv[1] == "labels":
        bad, used, known = labels(d, argv[3])
        say(not bad and len(known) > len(LABELS_ALWAYS),
            "grafana dashboard's labels (%s) are ones xputrace or Prometheus put on series%s"
            % (", ".join(sorted(used)), ": " + "; ".join(bad[:5]) if bad else ""))
        return 0 if not bad else 1
    if argv[1] == "rules":
        r = rules(d)
        with open(argv[3], "w") as f:
            json.dump(r, f, indent=1)
        print(len(r["groups"][0]["rules"]))
        return 0
    raise SystemExit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
