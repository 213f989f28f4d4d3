"""Checks what `xputrace top` printed when piped against what ioctl_driver did.

usage: check_top.py OUTPUT WANT_CALLS
Plain text, one block per refresh; the ioctls/s column times each block's
seconds adds up to WANT_CALLS (within 3 %: both are printed rounded); the
rows are the driver's two processes, sorted by comm (top --sort comm). A
block from before the first ioctl has no columns and no rows.
Prints nothing and exits 0 when it all holds; else the first mismatch, exit 1.
"""
import re
import sys


def main():
    text, want = open(sys.argv[1]).read(), float(sys.argv[2])
    assert "\x1b" not in text, "escape sequences in plain text"
    blocks = [b for b in text.split("\n\n") if b.strip()]
    assert len(blocks) >= 5, "%d blocks" % len(blocks)
    total, comms = 0.0, []
    for b in blocks:
        lines = b.splitlines()
        dt = float(re.search(r"  ([0-9.]+) s  ", lines[0]).group(1))
        # a column shows once its family has a series: before the first
        # ioctl the block has none, and no rows
        if lines[1].split() == ["PID", "COMM", "CGROUP"] and len(lines) == 2:
            continue
        assert lines[1].split()[:3] == ["PID", "COMM", "ioctls/s"], lines[1]
        names = []
        for row in lines[2:]:
            f = row.split()
            total += float(f[2]) * dt
            names.append(f[1])
        assert names == sorted(names), "not sorted by comm: %s" % names
        comms += names
    assert abs(total - want) < want * 0.03, "calls %.1f, not %g" % (total, want)
    assert set(comms) == {"xpt-drv-a", "xpt-drv-b"}, comms


if __name__ == "__main__":
    try:
        main()
    except AssertionError as e:
        print(e)
        sys.exit(1)
