# A PyTorch process that launches one tiny kernel every 10 ms for S seconds
# (the GPU idle between), printing how many it has launched each second.
#   python3 live.py S
import sys, time, torch
s = float(sys.argv[1])
x = torch.zeros(1, device="cuda")
torch.cuda.synchronize()
print("ready", flush=True)
n, t0, last = 0, time.monotonic(), 0
while time.monotonic() - t0 < s:
    x.add_(1.0)
    n += 1
    if int(time.monotonic() - t0) != last:
        last = int(time.monotonic() - t0)
        print("launched", last, n, flush=True)
    time.sleep(0.01)
torch.cuda.synchronize()
print("launched end", n, flush=True)
