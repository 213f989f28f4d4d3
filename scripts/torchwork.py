# A PyTorch client that counts its own work, for `xputrace api` on a CUDA host:
# N rounds of (tensor to the GPU, matrix product, result back, synchronize).
# Usage: python3 torchwork.py N [SECONDS_TO_WAIT_BEFORE_THE_ROUNDS]
import os, sys, time, torch
n = int(sys.argv[1]); wait = float(sys.argv[2]) if len(sys.argv) > 2 else 0
torch.zeros(1, device="cuda"); torch.cuda.synchronize()   # context up before tracing
print(f"pid {os.getpid()} ready", flush=True)
time.sleep(wait)
t0 = time.time()
a = torch.randn(1024, 1024)
for i in range(n):
    x = a.to("cuda")                 # H2D
    y = x @ x                        # kernel launch
    z = y.cpu()                      # D2H (syncs the stream)
    torch.cuda.synchronize()         # cudaDeviceSynchronize
print(f"pid {os.getpid()} rounds {n} syncs {n} in {time.time()-t0:.3f}s", flush=True)
