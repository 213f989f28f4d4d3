"""Checks of deploy/kubernetes/: the manifests, the Prometheus configuration.

usage:
  check_deploy.py manifests DIR                 the YAML parses; the DaemonSet runs serve
                                                as docs/deploy.md says; promtool accepts
                                                prometheus.yml
  check_deploy.py caps DIR                      the DaemonSet's added capabilities, as
                                                podman's --cap-add wants them
  check_deploy.py promconf DIR OUT ADDR NODE    prometheus.yml with its Kubernetes
                                                discovery replaced by the targets it
                                                would find: serve at ADDR on NODE, and
                                                another Service's endpoint it must drop
  check_deploy.py prom PROM_ADDR CG WANT NODE TIMEOUT
                                                through Prometheus: one xputrace target,
                                                WANT ioctls of cgroup CG labelled NODE

Prints PASS/FAIL/SKIP lines as the e2e tests do; exits 1 where the
arguments are wrong.
"""
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

import yaml

# what the endpoints role sets on a target (Prometheus' kubernetes_sd_config)
ENDPOINT_META = ("__meta_kubernetes_service_name", "__meta_kubernetes_endpoint_port_name",
                 "__meta_kubernetes_endpoint_node_name", "__meta_kubernetes_namespace")
SD_ROLES = {"node", "service", "pod", "endpoints", "endpointslice", "ingress"}
SD_KEYS = {"role", "namespaces", "selectors", "attach_metadata", "api_server", "kubeconfig_file",
           "basic_auth", "authorization", "oauth2", "tls_config", "proxy_url", "follow_redirects"}


def say(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    sys.stdout.flush()


def load(d):
    """kind -> the object, over every *.yaml of d; a file that does not parse says so."""
    out, bad = {}, []
    for f in sorted(os.listdir(d)):
        if not f.endswith(".yaml"):
            continue
        try:
            with open(os.path.join(d, f)) as fh:
                for doc in yaml.safe_load_all(fh):
                    out[doc["kind"]] = doc
        except (yaml.YAMLError, KeyError, TypeError) as e:
            bad.append("%s: %s" % (f, str(e).splitlines()[0]))
    return out, bad


def container(ds):
    return ds["spec"]["template"]["spec"]["containers"][0]


def daemonset_faults(objs):
    """What the DaemonSet lacks of what serve needs (docs/deploy.md), as a list."""
    faults = []
    ds, svc = objs.get("DaemonSet"), objs.get("Service")
    if not ds or not svc:
        return ["no DaemonSet or no Service"]
    pod = ds["spec"]["template"]["spec"]
    c = container(ds)
    sc = c.get("securityContext", {})
    if pod.get("hostPID") is not True:
        faults.append("no hostPID")
    env = {e["name"]: e.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") for e in c.get("env", [])}
    if env.get("POD_IP") != "status.podIP" or c.get("args") != ["--listen", "$(POD_IP):9464"]:
        faults.append("serve does not listen on the pod's IP from the downward API")
    mounts = {m["mountPath"]: m for m in c.get("volumeMounts", [])}
    for path, ro in (("/sys/kernel/tracing", False), ("/sys/fs/cgroup", True),
                     ("/var/log/pods", True), ("/var/log/containers", True)):
        m = mounts.get(path)
        if not m or bool(m.get("readOnly")) != ro:
            faults.append("%s not mounted %s" % (path, "read-only" if ro else "read-write"))
    add = set(sc.get("capabilities", {}).get("add", []))
    if not sc.get("privileged") and not ({"BPF", "PERFMON"} <= add or "SYS_ADMIN" in add):
        faults.append("neither privileged nor CAP_BPF with CAP_PERFMON")
    labels = ds["spec"]["template"]["metadata"]["labels"]
    if any(labels.get(k) != v for k, v in svc["spec"]["selector"].items()):
        faults.append("the Service does not select the DaemonSet's pods")
    ports = {p["name"]: p["containerPort"] for p in c.get("ports", [])}
    if ports.get("metrics") != 9464 or svc["spec"]["ports"][0].get("targetPort") != "metrics":
        faults.append("no metrics port 9464 behind the Service")
    return faults


def as_static(conf, targets):
    """The configuration with each Kubernetes discovery replaced by static targets."""
    out = copy.deepcopy(conf)
    for sc in out.get("scrape_configs", []):
        if "kubernetes_sd_configs" in sc:
            del sc["kubernetes_sd_configs"]
            sc["static_configs"] = targets
    return out


def sd_faults(conf):
    faults = []
    for sc in conf.get("scrape_configs", []):
        for sd in sc.get("kubernetes_sd_configs", []):
            if sd.get("role") not in SD_ROLES:
                faults.append("%s: role %r" % (sc.get("job_name"), sd.get("role")))
            unknown = set(sd) - SD_KEYS
            if unknown:
                faults.append("%s: keys kubernetes_sd_configs has not: %s" % (sc.get("job_name"), sorted(unknown)))
    return faults


def promtool(conf):
    """(ok, note): promtool check config on conf; Debian's promtool, which has
    no Kubernetes discovery, checks the rest with static targets in its place."""
    if not shutil.which("promtool"):
        return None, "promtool is missing (Debian's prometheus package)"
    note = ""
    with tempfile.TemporaryDirectory() as d:
        for attempt in (conf, as_static(conf, [{"targets": ["127.0.0.1:9464"]}])):
            path = os.path.join(d, "prometheus.yml")
            with open(path, "w") as fh:
                yaml.safe_dump(attempt, fh)
            r = subprocess.run(["promtool", "check", "config", path], capture_output=True, text=True)
            if r.returncode == 0:
                return True, note
            out = (r.stdout + r.stderr).strip()
            if "field kubernetes_sd_configs not found" not in out:
                return False, out.splitlines()[-1] if out else "exit %d" % r.returncode
            note = " (this promtool has no Kubernetes discovery: checked with static targets in its place)"
    return False, "promtool refused it with static targets too"


def manifests(d):
    objs, bad = load(d)
    say(not bad and {"Namespace", "DaemonSet", "Service", "ServiceMonitor"} <= set(objs),
        "deploy: the manifests parse: %s" % ("; ".join(bad) or ", ".join(sorted(objs))))
    faults = daemonset_faults(objs)
    say(not faults, "deploy: the DaemonSet runs serve with host PID, its mounts, privileges and the pod's IP%s"
        % (": " + "; ".join(faults) if faults else ""))
    with open(os.path.join(d, "prometheus.yml")) as fh:
        conf = yaml.safe_load(fh)
    ok, note = promtool(conf)
    faults = sd_faults(conf)
    if ok is None:
        print("SKIP deploy: prometheus.yml: %s" % note)
    else:
        say(ok and not faults, "deploy: promtool check config accepts prometheus.yml%s"
            % (note if ok and not faults else ": " + "; ".join(faults + ([note] if not ok else []))))


def caps(d):
    objs, _ = load(d)
    add = container(objs["DaemonSet"])["securityContext"]["capabilities"]["add"]
    print(",".join("CAP_" + c for c in add))


def promconf(d, out, addr, node):
    with open(os.path.join(d, "prometheus.yml")) as fh:
        conf = yaml.safe_load(fh)
    meta = dict(zip(ENDPOINT_META, ("xputrace", "metrics", node, "xputrace")))
    other = dict(meta, __meta_kubernetes_service_name="kube-dns")
    conf = as_static(conf, [{"targets": [addr], "labels": meta}, {"targets": [addr], "labels": other}])
    conf["global"]["scrape_interval"] = "1s"
    with open(out, "w") as fh:
        yaml.safe_dump(conf, fh)


def query(paddr, q):
    url = "http://%s/api/v1/query?%s" % (paddr, urllib.parse.urlencode({"query": q}))
    with urllib.request.urlopen(url, timeout=5) as r:
        return json.load(r)["data"]["result"]


def prom(paddr, cg, want, node, timeout):
    q = 'sum by (job, node) (xputrace_ioctls_total{cgroup="%s"})' % cg
    end, got, up = time.time() + timeout, None, None
    while time.time() < end:
        try:
            got = [(r["metric"], float(r["value"][1])) for r in query(paddr, q)]
            up = [r["metric"].get("instance") for r in query(paddr, "up")]
            if got == [({"job": "xputrace", "node": node}, want)] and len(up) == 1:
                break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.5)
    say(got == [({"job": "xputrace", "node": node}, want)] and up is not None and len(up) == 1,
        "image prometheus: a Prometheus with prometheus.yml's relabelling scrapes serve alone (targets: %d), "
        "%d ioctls of cgroup A labelled node=%s: %s" % (len(up or []), want, node, got))


def main():
    a = sys.argv[1:]
    cmds = {"manifests": (manifests, 1), "caps": (caps, 1), "promconf": (promconf, 4), "prom": (prom, 5)}
    if not a or a[0] not in cmds or len(a) - 1 != cmds[a[0]][1]:
        print(__doc__, file=sys.stderr)
        sys.exit(1)
    if a[0] == "prom":
        prom(a[1], a[2], float(a[3]), a[4], float(a[5]))
    else:
        cmds[a[0]][0](*a[1:])


if __name__ == "__main__":
    main()
