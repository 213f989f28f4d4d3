# The cost of a launch as a PyTorch program sees it: N tiny in-place adds
# (one kernel each, the GPU idle between them) timed on the host, three
# times in one process, after a warm-up.
#   python3 torch_cost.py plain N      the loop alone (injected or traced from outside)
#   python3 torch_cost.py profile N    the same under torch.profiler (CPU and CUDA)
import json, sys, time, torch
mode, n = sys.argv[1], int(sys.argv[2])
x = torch.zeros(1, device="cuda")
for _ in range(1000):
    x.add_(1.0)
torch.cuda.synchronize()
def loop():
    t0 = time.perf_counter()
    for _ in range(n):
        x.add_(1.0)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) / n * 1e6
if mode == "profile":
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]):
        us = [loop() for _ in range(3)]
else:
    us = [loop() for _ in range(3)]
print(json.dumps({"mode": mode, "n": n, "us_per_launch": [round(u, 3) for u in us]}), flush=True)
