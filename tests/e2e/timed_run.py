#!/usr/bin/env python3
"""Runs one xputrace command and times it: when its "Tracing" line appeared
on stderr, when a signal was sent, when it exited.

  timed_run.py [--signal SIG --at SECONDS] [--after-tracing | --after-handler] OUT ERR -- CMD...

stdout goes to OUT, stderr to ERR (watched every 5 ms for "Tracing"). With
--signal, SIG is sent SECONDS after the start (with --after-tracing, after
the Tracing line; with --after-handler, after the process has a handler for
SIG, as /proc/PID/status shows: before main() runs, a signal kills any
program, and a sanitizer's runtime makes that time long). Prints one line: rc, then the seconds from the start
to the Tracing line (-1 if none), to the signal (-1 if none), to the exit,
whether Tracing had appeared when the signal was sent (1/0), and the seconds
to when the process had a handler for SIG (SIGTERM without --signal)."""
import signal
import subprocess
import sys
import time


def caught(pid, sig):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("SigCgt:"):
                    return bool(int(line.split()[1], 16) >> (int(sig) - 1) & 1)
    except OSError:
        pass
    return False


def main():
    args = sys.argv[1:]
    sig, at, after, handler = None, 0.0, False, False
    while args and args[0].startswith("--"):
        a = args.pop(0)
        if a == "--signal":
            sig = getattr(signal, "SIG" + args.pop(0))
        elif a == "--at":
            at = float(args.pop(0))
        elif a == "--after-tracing":
            after = True
        elif a == "--after-handler":
            handler = True
        else:
            break
    out, err = args[0], args[1]
    cmd = args[3:] if args[2] == "--" else args[2:]
    with open(out, "wb") as fo, open(err, "wb") as fe:
        t0 = time.monotonic()
        p = subprocess.Popen(cmd, stdout=fo, stderr=fe)
        t_tracing = t_sig = t_handler = -1.0
        seen_at_sig = 0
        while p.poll() is None:
            now = time.monotonic() - t0
            if t_tracing < 0:
                with open(err, "rb") as f:
                    if b"Tracing" in f.read():
                        t_tracing = now
            if t_handler < 0 and caught(p.pid, sig if sig is not None else signal.SIGTERM):
                t_handler = now
            if after:
                due = t_tracing >= 0 and now >= t_tracing + at
            elif handler:
                due = t_handler >= 0 and now >= t_handler + at
            else:
                due = now >= at
            if sig is not None and t_sig < 0 and due:
                with open(err, "rb") as f:
                    seen_at_sig = 1 if b"Tracing" in f.read() else 0
                p.send_signal(sig)
                t_sig = time.monotonic() - t0
            if time.monotonic() - t0 > 60:
                p.kill()
            time.sleep(0.005)
        t_exit = time.monotonic() - t0
        if t_tracing < 0:
            with open(err, "rb") as f:
                if b"Tracing" in f.read():
                    t_tracing = t_exit
    print(p.returncode, f"{t_tracing:.3f}", f"{t_sig:.3f}", f"{t_exit:.3f}", seen_at_sig, f"{t_handler:.3f}")


main()
