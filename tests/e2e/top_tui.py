"""Drives `xputrace top` on a pseudo-terminal as a user would (TERM=xterm).

usage: top_tui.py XPUTRACE
Two processes of its own make ioctls on /dev/null, one about ten times as
often as the other; top traces /dev/null. What it writes is replayed on a
small screen that knows the xterm sequences curses uses here, so the
checks read the screen as a user sees it. Prints PASS/FAIL lines.
"""
import fcntl
import os
import pty
import re
import subprocess
import select
import signal
import statistics
import struct
import sys
import termios
import time

XP = sys.argv[1]
ENTER, LEAVE, SHOW = b"\x1b[?1049h", b"\x1b[?1049l", b"\x1b[?25h"


class Screen:
    """The cells of a terminal; `over` counts characters written past its width."""

    def __init__(self, rows, cols):
        self.resize(rows, cols)
        self.over = 0

    def resize(self, rows, cols):
        self.rows, self.cols = rows, cols
        self.cell = [[" "] * cols for _ in range(rows)]
        self.y = self.x = 0
        self.last = " "
        self.top, self.bottom = 0, rows - 1  # the scroll region

    def scroll(self, n, top=None):
        """n lines up (n < 0: down) within the region, from row `top` (il, dl)."""
        top = self.top if top is None else top
        region = self.cell[top:self.bottom + 1]
        for _ in range(abs(n)):
            if n > 0:
                region = region[1:] + [[" "] * self.cols]
            else:
                region = [[" "] * self.cols] + region[:-1]
        self.cell[top:self.bottom + 1] = region

    def put(self, ch):
        if self.x >= self.cols:
            self.over += 1
            return
        self.cell[self.y][self.x] = ch
        self.last = ch
        self.x += 1

    def csi(self, params, final):
        if params == "?1049" and final == "h":
            self.over = 0  # what came before (the Tracing line) is the normal screen's
        p = [int(v) if v.isdigit() else 0 for v in params.lstrip("?").split(";")] if params else []
        a = p[0] if p else 0
        n = a or 1
        if final in "Hf":
            self.y = min((p[0] or 1) - 1 if p else 0, self.rows - 1)
            self.x = min((p[1] or 1) - 1 if len(p) > 1 else 0, self.cols - 1)
        elif final == "d":
            self.y = min(n - 1, self.rows - 1)
        elif final == "G":
            self.x = min(n - 1, self.cols - 1)
        elif final == "C":
            self.x = min(self.x + n, self.cols - 1)
        elif final == "D":
            self.x = max(self.x - n, 0)
        elif final == "A":
            self.y = max(self.y - n, 0)
        elif final == "B":
            self.y = min(self.y + n, self.rows - 1)
        elif final == "K":
            lo, hi = {0: (self.x, self.cols), 1: (0, self.x + 1), 2: (0, self.cols)}[a]
            self.cell[self.y][lo:hi] = [" "] * (hi - lo)
        elif final == "J":
            if a == 0:
                self.cell[self.y][self.x:] = [" "] * (self.cols - self.x)
                for r in range(self.y + 1, self.rows):
                    self.cell[r] = [" "] * self.cols
            else:
                self.cell = [[" "] * self.cols for _ in range(self.rows)]
        elif final == "X":
            end = min(self.x + n, self.cols)
            self.cell[self.y][self.x:end] = [" "] * (end - self.x)
        elif final == "b":
            for _ in range(n):
                self.put(self.last)
        elif final == "r":
            self.top = (p[0] or 1) - 1 if p else 0
            self.bottom = (p[1] or self.rows) - 1 if len(p) > 1 else self.rows - 1
            self.y = self.x = 0
        elif final in "ST":
            self.scroll(n if final == "S" else -n)
        elif final in "LM" and self.top <= self.y <= self.bottom:
            self.scroll(n if final == "M" else -n, self.y)
        elif final in "@P":
            row = self.cell[self.y]
            if final == "P":
                row[self.x:] = row[self.x + n:] + [" "] * n
            else:
                row[self.x:] = ([" "] * n + row[self.x:])[:self.cols - self.x]

    def feed(self, data):
        s = data.decode("latin-1")
        i = 0
        while i < len(s):
            c = s[i]
            if c == "\x1b":
                m = re.compile(r"\[([0-9;?]*)([@-~])").match(s, i + 1)
                if m:
                    self.csi(m.group(1), m.group(2))
                    i = m.end()
                    continue
                if s[i + 1:i + 2] == "M":  # reverse index
                    if self.y == self.top:
                        self.scroll(-1)
                    else:
                        self.y = max(self.y - 1, 0)
                i += 3 if i + 1 < len(s) and s[i + 1] in "()" else 2
                continue
            if c == "\r":
                self.x = 0
            elif c == "\n":
                if self.y == self.bottom:
                    self.scroll(1)
                else:
                    self.y = min(self.y + 1, self.rows - 1)
            elif c == "\b":
                self.x = max(self.x - 1, 0)
            elif c >= " ":
                self.put(c)
            i += 1

    def lines(self):
        return ["".join(r).rstrip() for r in self.cell]


class Top:
    """xputrace top on a pseudo-terminal of rows x cols."""

    def __init__(self, rows, cols, args=()):
        self.screen = Screen(rows, cols)
        self.out = b""
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.environ["TERM"] = "xterm"
            os.execv(XP, [XP, "top", "--device", "/dev/null", *args])
        self.winsize(rows, cols)
        self.status = None

    def winsize(self, rows, cols):
        fcntl.ioctl(self.fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))

    def read(self, timeout):
        """What comes within `timeout` s; False once it has ended."""
        r, _, _ = select.select([self.fd], [], [], timeout)
        if not r:
            return True
        try:
            d = os.read(self.fd, 65536)
        except OSError:
            d = b""
        if not d:
            return False
        self.out += d
        self.screen.feed(d)
        return True

    def until(self, test, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if test():
                return True
            if not self.read(0.02):
                return test()
        return False

    def settle(self):
        """Reads until the output pauses: a frame drawn whole, not half of one."""
        end = time.monotonic() + 3
        while time.monotonic() < end:
            r, _, _ = select.select([self.fd], [], [], 0.15)
            if not r or not self.read(0):
                return

    def text(self):
        return "\n".join(self.screen.lines())

    def key(self, k):
        os.write(self.fd, k)

    def wait(self, timeout=10):
        """The exit status, after reading to the end."""
        self.until(lambda: False, timeout)
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pid, st = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = os.waitstatus_to_exitcode(st)
                return self.status
            time.sleep(0.01)
        os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.pid, 0)
        return None

    def restored(self):
        """The alternate screen left, the cursor shown, echo and line mode back."""
        tail = self.out[self.out.rfind(ENTER):]
        try:
            lflag = termios.tcgetattr(self.fd)[3]
        except termios.error:
            lflag = termios.ECHO | termios.ICANON
        return LEAVE in tail and SHOW in tail and lflag & termios.ECHO and lflag & termios.ICANON

    def close(self):
        if self.status is None:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
        os.close(self.fd)


def loader(comm, pause):
    """A process named `comm` making an ioctl on /dev/null every `pause` s."""
    pid = os.fork()
    if pid == 0:
        with open("/proc/self/comm", "w") as f:
            f.write(comm)
        fd = os.open("/dev/null", os.O_RDONLY)
        while True:
            try:
                fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8)
            except OSError:
                pass
            time.sleep(pause)
    return pid


def frame_ready(t):
    return lambda: "xpt-tui-hi" in t.text() and "xpt-tui-lo" in t.text()


def table(t):
    """The table's rows on screen: (pid, comm, numbers)."""
    t.settle()
    rows = []
    for ln in t.screen.lines():
        f = ln.split()
        if len(f) >= 3 and f[0].isdigit() and re.match(r"^[0-9.]+$", f[2]):
            rows.append((int(f[0]), f[1], [float(v) for v in f[2:] if re.match(r"^[0-9.]+$", v)]))
    return rows


def check(ok, name, why):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))
    return ok


def xputraces():
    """The pids of the processes named xputrace now."""
    found = set()
    for d in os.listdir("/proc"):
        try:
            if d.isdigit() and open("/proc/%s/comm" % d).read().strip() == "xputrace":
                found.add(int(d))
        except OSError:
            pass
    return found


def quit_runs(n=5):
    restore, ends, bad = [], [], []
    before = xputraces()
    for _ in range(n):
        t = Top(24, 80, ["-i", "0.3"])
        if not t.until(lambda: ENTER in t.out and "xputrace top" in t.text(), 20):
            bad.append("no screen: %r" % t.out[-200:])
            t.close()
            continue
        sent = time.monotonic()
        t.key(b"q")
        t.until(lambda: LEAVE in t.out, 5)
        restore.append(time.monotonic() - sent)
        st = t.wait()
        ends.append(time.monotonic() - sent)
        if st != 0 or not t.restored():
            bad.append("status %s, restored %s" % (st, bool(t.restored())))
        t.close()
    if bad:
        return check(False, "top quits on q", "; ".join(bad))
    mr, me = statistics.median(restore), statistics.median(ends)
    check(mr <= 0.3, "top gives the terminal back within 0.3 s of q (median %.3f s of %d)" % (mr, n),
          "median %.3f s: %s" % (mr, restore))
    check(me <= 0.3, "top exits 0 within 0.3 s of q (median %.3f s of %d)" % (me, n), "median %.3f s: %s" % (me, ends))
    # the kernel's release of its programs, left to a child, ends soon after
    deadline = time.monotonic() + 30
    while xputraces() - before and time.monotonic() < deadline:
        time.sleep(0.1)
    left = xputraces() - before
    check(not left, "top's programs are released after it exits (no xputrace left)", "still running: %s" % sorted(left))


def sort_keys():
    t = Top(30, 120, ["-i", "0.5"])
    try:
        if not t.until(frame_ready(t), 20):
            return check(False, "top sorts by the key", "the loaders' rows never showed: %s" % t.text())
        rows = table(t)
        first = [r[2][0] for r in rows]
        ok = first == sorted(first, reverse=True) and [r[1] for r in rows].index("xpt-tui-hi") < \
            [r[1] for r in rows].index("xpt-tui-lo")
        check(ok, "top sorts by its first column, most first", t.text())
        t.key(b"r")
        t.until(lambda: "least first" in t.text() and frame_ready(t)(), 5)
        rows = table(t)
        first = [r[2][0] for r in rows]
        check(first == sorted(first) and "least first" in t.text(), "r reverses the order", t.text())
        t.key(b"r")
        for _ in range(40):
            if "by PID" in t.text():
                break
            t.key(b"s")
            t.until(lambda: False, 0.1)
        t.until(frame_ready(t), 3)
        pids = [r[0] for r in table(t)]
        check("by PID" in t.text() and pids == sorted(pids) and len(pids) >= 2, "s cycles the sort to PID, rows by pid",
              t.text())
        t.key(b"h")
        check(t.until(lambda: "q quit" in t.text(), 3), "h shows the keys", t.text())
        t.key(b"hv")
        check(t.until(lambda: "cgroups by" in t.text() and "PROCS" in t.text(), 3), "v shows the cgroups", t.text())
        t.key(b"q")
        t.wait()
    finally:
        t.close()


def width_resize():
    t = Top(24, 60, ["-i", "0.3"])
    try:
        if not t.until(frame_ready(t), 20):
            return check(False, "top fits 60 columns", "no rows: %s" % t.text())
        t.until(lambda: False, 1)
        t.settle()
        longest = max(len(ln) for ln in t.screen.lines())
        check(t.screen.over == 0 and longest <= 60, "at 60 columns no line is longer than 60 (longest %d)" % longest,
              "%d characters past the edge: %s" % (t.screen.over, t.text()))
        t.screen.resize(24, 100)
        t.winsize(24, 100)
        ok = t.until(lambda: any(60 < len(ln) <= 100 for ln in t.screen.lines()) and frame_ready(t)(), 5)
        t.settle()
        longest = max(len(ln) for ln in t.screen.lines())
        check(ok and t.screen.over == 0, "a resize to 100 columns redraws at 100 (longest %d)" % longest, t.text())
        os.kill(t.pid, signal.SIGTERM)
        st = t.wait()
        check(st == 0 and t.restored(), "SIGTERM gives the terminal back", "status %s: %r" % (st, t.out[-120:]))
    finally:
        t.close()


def double_signal():
    """A second SIGTERM exits at once (130), or the first had already ended the run (0): restored either way."""
    t = Top(24, 80, ["-i", "0.3"])
    try:
        if not t.until(lambda: ENTER in t.out and "xputrace top" in t.text(), 20):
            return check(False, "a second SIGTERM gives the terminal back", "no screen")
        os.kill(t.pid, signal.SIGTERM)
        os.kill(t.pid, signal.SIGTERM)
        st = t.wait()
        check(st in (0, 130) and t.restored(), "a second SIGTERM gives the terminal back (status %s)" % st,
              "status %s: %r" % (st, t.out[-120:]))
    finally:
        t.close()


def gpu_strip():
    """A process's GPU busy time (CUDA kernels on the stand-in CUPTI) gets the strip "GPU busy"."""
    lib, app, stub = (os.environ.get(v, "") for v in ("XPT_CULIB", "XPT_CUDA_APP", "XPT_CUPTI"))
    if not all(os.path.exists(f) for f in (lib, app, stub)):
        print("SKIP top draws a GPU busy strip from a process's busy time: the cuda stand-in is not built")
        return
    t = Top(24, 100, ["-i", "0.3", "--lib", lib])
    try:
        if not t.until(lambda: ENTER in t.out and "xputrace top" in t.text(), 20):
            return check(False, "top draws a GPU busy strip", "no screen")
        env = dict(os.environ, CUDA_INJECTION64_PATH=lib, XPUTRACE_CUPTI=stub)
        # 200 rounds of 3 overlapping 300 us kernels: 100 ms busy, handed over at its exit
        subprocess.run([app, "-n", "200"], env=env, stdout=subprocess.DEVNULL, check=True)
        seen = t.until(lambda: re.search(r"^GPU busy +\[", t.text(), re.M), 15)
        check(seen, "top draws a GPU busy strip from a process's CUDA kernels",
              "strips: %s" % [ln for ln in t.screen.lines() if "[" in ln][:3])
    finally:
        t.close()


def main():
    kids = [loader("xpt-tui-hi", 0.002), loader("xpt-tui-lo", 0.04)]
    try:
        quit_runs()
        sort_keys()
        width_resize()
        double_signal()
        gpu_strip()
    finally:
        for k in kids:
            os.kill(k, signal.SIGKILL)
            os.waitpid(k, 0)


main()
