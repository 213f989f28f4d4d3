# The same PyTorch workload for torch.profiler and for `xputrace cuda`:
# ROUNDS x (matrix product of two N x N float tensors, then an add), on the GPU.
#   python3 torch_compare.py plain ROUNDS      the workload alone (traced from outside)
#   python3 torch_compare.py profile ROUNDS    under torch.profiler: per kernel name,
#                                              its count and its median time, as JSON
import json, os, statistics, sys, time, torch
mode, rounds = sys.argv[1], int(sys.argv[2])
n = 2048
a = torch.randn(n, n, device="cuda"); b = torch.randn(n, n, device="cuda")
torch.cuda.synchronize()
def work():
    for _ in range(rounds):
        c = a @ b
        c.add_(1.0)
    torch.cuda.synchronize()
if mode == "plain":
    t0 = time.time(); work()
    print(json.dumps({"pid": os.getpid(), "rounds": rounds, "s": time.time() - t0}), flush=True)
else:
    from torch.profiler import profile, ProfilerActivity
    with profile(activities=[ProfilerActivity.CUDA]) as p:
        work()
    k = {}
    for e in p.events():
        if e.device_type == torch.autograd.DeviceType.CUDA:
            k.setdefault(e.name, []).append(e.device_time_total * 1000.0 if hasattr(e, "device_time_total") else e.cuda_time_total * 1000.0)
    print(json.dumps({n: {"count": len(v), "p50_ns": statistics.median(v), "sum_ns": sum(v)} for n, v in k.items()}), flush=True)
