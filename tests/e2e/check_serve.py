"""Checks of `xputrace serve` from outside: its metrics, its HTTP, Prometheus.

usage:
  check_serve.py counts ADDR CG_A CG_B TIMEOUT   exact ioctl counts per cgroup
  check_serve.py total ADDR WANT TIMEOUT          sum of every xputrace_ioctls_total series
  check_serve.py http ADDR                         hostile and concurrent clients
  check_serve.py prom PROM_ADDR CG_A WANT TIMEOUT  the count through Prometheus' query API

CG_A ran `ioctl_driver --self 123` (123 FIONBIO); CG_B ran `ioctl_driver 1`
(its two children: see ioctl_driver.c). Each check prints PASS/FAIL/SKIP
lines as the e2e tests do. Listens on nothing; talks to loopback only.
"""
import json
import re
import socket
import sys
import threading
import time
import urllib.parse
import urllib.request

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')

# what ioctl_driver does on /dev/null, by (metric, name[, errno]) per cgroup
FIONBIO, FIOCLEX = "_IO('T',0x21)", "_IO('T',0x51)"
IOWR_X1, IOR_X2 = "_IOWR('x',0x01,8)", "_IOR('x',0x02,4)"
WANT_A = {("xputrace_ioctls_total", FIONBIO): 123}
WANT_B = {
    ("xputrace_ioctls_total", FIONBIO): 120,
    ("xputrace_ioctls_total", IOWR_X1): 50,
    ("xputrace_ioctls_total", IOR_X2): 30,
    ("xputrace_ioctls_total", FIOCLEX): 7,
    ("xputrace_ioctl_errors_total", FIONBIO, "EFAULT"): 20,
    ("xputrace_ioctl_errors_total", IOWR_X1, "ENOTTY"): 50,
    ("xputrace_ioctl_errors_total", IOR_X2, "ENOTTY"): 30,
}


def say(ok, what):
    print(("PASS " if ok else "FAIL ") + what)
    sys.stdout.flush()


def scrape(addr, accept=None):
    req = urllib.request.Request("http://%s/metrics" % addr)
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=5) as r:
        return r.headers.get("Content-Type", ""), r.read().decode()


def samples(text):
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        if not m:
            raise ValueError("not a sample line: %r" % line)
        labels = dict(LABEL.findall(m.group(3) or ""))
        out.append((m.group(1), labels, float(m.group(4))))
    return out


def by_cgroup(text, cg):
    """(metric, name[, errno]) -> value summed over pids, for one cgroup."""
    got = {}
    for name, labels, v in samples(text):
        if labels.get("cgroup") != cg or name not in ("xputrace_ioctls_total", "xputrace_ioctl_errors_total"):
            continue
        key = (name, labels["name"]) + ((labels["errno"],) if "errno" in labels else ())
        got[key] = got.get(key, 0) + v
    return got


def counts(addr, cg_a, cg_b, timeout):
    end = time.time() + timeout
    while True:
        _, text = scrape(addr)
        a, b = by_cgroup(text, cg_a), by_cgroup(text, cg_b)
        if (a == WANT_A and b == WANT_B) or time.time() > end:
            break
        time.sleep(0.2)
    say(a == WANT_A, "serve counts the ioctls of cgroup A exactly: %s" % (a if a != WANT_A else "123 FIONBIO"))
    say(b == WANT_B, "serve counts the ioctls and errnos of cgroup B exactly%s" % ("" if b == WANT_B else ": %s" % b))
    # per process: pid and comm labels on every ioctl series of the test's cgroups
    per = [l for n, l, _ in samples(text) if n == "xputrace_ioctls_total" and l.get("cgroup") in (cg_a, cg_b)]
    comms = sorted({l.get("comm") for l in per})
    say(per and all("pid" in l for l in per) and comms == ["ioctl_driver", "xpt-drv-a", "xpt-drv-b"],
        "serve --per-process labels pid and comm: %s" % comms)
    # the durations' histogram: cumulative buckets ending in +Inf = _count = the calls, a sum in seconds
    hist = [(n, l, v) for n, l, v in samples(text) if n.startswith("xputrace_ioctl_duration_seconds")
            and l.get("cgroup") == cg_a]
    buckets = [v for n, l, v in hist if n.endswith("_bucket")]
    count = [v for n, l, v in hist if n.endswith("_count")]
    secs = [v for n, l, v in hist if n.endswith("_sum")]
    inf = [v for n, l, v in hist if n.endswith("_bucket") and l.get("le") == "+Inf"]
    say(buckets == sorted(buckets) and inf == [123] and count == [123] and len(secs) == 1 and 0 < secs[0] < 10,
        "serve has a histogram of ioctl durations in seconds: +Inf %s, count %s, sum %s" % (inf, count, secs))
    events = [v for n, l, v in samples(text) if n == "xputrace_events_total" and l.get("capability") == "ioctl"]
    drops = {l.get("cause"): v for n, l, v in samples(text) if n == "xputrace_drops_total"}
    say(events and events[0] >= 123 + 207 and set(drops) == {"ringbuf", "map_full", "kernel_missed"},
        "serve has its own events and drops: events %s, drops %s" % (events, drops))


def total(addr, want, timeout):
    end = time.time() + timeout
    while True:
        _, text = scrape(addr)
        s = sum(v for n, _, v in samples(text) if n == "xputrace_ioctls_total")
        if s == want or time.time() > end:
            break
        time.sleep(0.2)
    kept = [v for n, _, v in samples(text) if n == "xputrace_series"]
    folded = [v for n, _, v in samples(text) if n == "xputrace_series_folded_total"]
    other = [v for n, l, v in samples(text) if n == "xputrace_ioctls_total" and l.get("other") == "true"]
    say(s == want and kept == [2] and folded and folded[0] > 0 and other,
        "serve --max-series 2 folds the rest into other=\"true\", totals exact: sum %s of %s, "
        "series %s, folded %s, other %s" % (s, want, kept, folded, other))


def raw(addr, data, read_until_close=True, timeout=5):
    host, port = addr.rsplit(":", 1)
    s = socket.create_connection((host, int(port)), timeout=timeout)
    try:
        s.sendall(data)
    except OSError:
        pass
    buf = b""
    try:
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            buf += chunk
            if not read_until_close:
                break
    except OSError:
        pass
    s.close()
    return buf


def status(resp):
    m = re.match(rb"HTTP/1\.1 (\d{3}) ", resp)
    return int(m.group(1)) if m else None


def http(addr):
    r = raw(addr, b"GET /nope HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    say(status(r) == 404, "serve answers an unknown path with 404: %r" % r[:40])

    r = raw(addr, b"HEAD /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    head, _, body = r.partition(b"\r\n\r\n")
    clen = re.search(rb"Content-Length: (\d+)", head)
    say(status(r) == 200 and clen and int(clen.group(1)) > 0 and body == b"",
        "serve answers HEAD with the headers of GET and no body: %r" % r[:60])

    r = raw(addr, b"GARBAGE\r\n\r\n")
    say(status(r) == 400, "serve answers a malformed request line with 400: %r" % r[:40])

    r = raw(addr, b"POST /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    say(status(r) == 405 and b"Allow: GET, HEAD" in r, "serve answers POST with 405 and Allow: %r" % r[:40])

    for line in (b"OPTIONS * HTTP/1.1", b"CONNECT example.com:443 HTTP/1.1"):
        r = raw(addr, line + b"\r\nHost: x\r\n\r\n")
        say(status(r) == 405 and b"Allow: GET, HEAD" in r, "serve answers %s with 405 and Allow: %r"
            % (line.split()[0].decode(), r[:40]))

    big = b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n"
    r = raw(addr, big)
    say(status(r) == 431, "serve answers a 100 KB header with 431: %r" % r[:50])

    # keep-alive and pipelining: two requests in one write, two answers on one connection
    two = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\nGET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
    r = raw(addr, two)
    say(r.count(b"HTTP/1.1 200 OK") == 2, "serve keeps the connection alive for pipelined requests: %d answers"
        % r.count(b"HTTP/1.1 200 OK"))

    # a slow client holds a connection with half a request; a scrape meanwhile is answered at once
    host, port = addr.rsplit(":", 1)
    slow = socket.create_connection((host, int(port)), timeout=5)
    slow.sendall(b"GET /metrics HTTP/1.1\r\nHo")
    # and one that asks but never reads
    lazy = socket.create_connection((host, int(port)), timeout=5)
    lazy.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    lazy.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
    # five scrapes, the median under 1 s: one scrape can lose its CPU on a loaded machine
    took, ok = [], True
    for _ in range(5):
        t0 = time.time()
        _, text = scrape(addr)
        took.append(time.time() - t0)
        ok = ok and "xputrace_events_total" in text
    took.sort()
    say(ok and took[2] < 1.0,
        "scrapes succeed while a slow client holds a connection: median %.3f s, max %.3f s" % (took[2], took[-1]))
    # the slow one still gets its answer once it finishes
    slow.sendall(b"st: x\r\nConnection: close\r\n\r\n")
    buf = b""
    while True:
        c = slow.recv(65536)
        if not c:
            break
        buf += c
    say(status(buf) == 200, "the slow client is answered once its request is whole")
    slow.close()
    lazy.close()

    # 50 at once, each with two requests on its kept-alive connection
    results = []

    def one():
        try:
            s = socket.create_connection((host, int(port)), timeout=10)
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
            f = s.makefile("rb")
            ok = 0
            for last in (False, True):
                line = f.readline()
                hdrs = {}
                while True:
                    h = f.readline()
                    if h in (b"\r\n", b""):
                        break
                    k, _, v = h.decode().partition(":")
                    hdrs[k.lower()] = v.strip()
                body = f.read(int(hdrs.get("content-length", "0")))
                ok += line.startswith(b"HTTP/1.1 200") and b"xputrace_drops_total" in body
                if not last:
                    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            results.append(ok)
            s.close()
        except OSError as e:
            results.append(str(e))

    threads = [threading.Thread(target=one) for _ in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    say(results.count(2) == 50, "serve answers 50 concurrent kept-alive clients: %s"
        % (results if results.count(2) != 50 else "100 responses"))


def prom(paddr, cg, want, timeout):
    q = 'sum(xputrace_ioctls_total{cgroup="%s"})' % cg
    url = "http://%s/api/v1/query?%s" % (paddr, urllib.parse.urlencode({"query": q}))
    end, got = time.time() + timeout, None
    while time.time() < end:
        try:
            with urllib.request.urlopen(url, timeout=5) as r:
                res = json.load(r)["data"]["result"]
            if res:
                got = float(res[0]["value"][1])
                if got == want:
                    break
        except (OSError, ValueError, KeyError):
            pass
        time.sleep(0.5)
    say(got == want, "Prometheus scraping serve reads %s ioctls for cgroup %s: %s" % (want, cg, got))


def main():
    cmd = sys.argv[1]
    if cmd == "counts":
        counts(sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5]))
    elif cmd == "total":
        total(sys.argv[2], int(sys.argv[3]), float(sys.argv[4]))
    elif cmd == "http":
        http(sys.argv[2])
    elif cmd == "prom":
        prom(sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5]))


if __name__ == "__main__":
    main()
