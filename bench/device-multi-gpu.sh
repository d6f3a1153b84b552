#!/usr/bin/env bash
# On a GPU machine of 2 or more GPUs (kind nvidia-h200-x2/-x4; issue 17):
# records the topology, then measures NCCL all-reduce, reduce-scatter and
# all-gather times at 1 MiB - 1 GiB through torch.distributed on 2 and (where
# there are 4) 4 GPUs, over NVLink and with NCCL_P2P_DISABLE=1 (through host
# memory, as cards without NVLink talk), the busbw nccl-tests defines
# (all-reduce 2(n-1)/n x size / time, the others (n-1)/n). NVLink multicast
# stays off (NCCL_NVLS_ENABLE=0). Compare with tfuse's CommCost predictions:
#   tfuse-predict's links are docs/cost-model.md section 4's; the table's
#   "pred us" column is computed here from targets/h200.json with the same
#   formula, so a mismatch shows the link's fraction and latency to refit.
# Results: $OUT/multi-gpu/{topo.txt,collectives.json,table.txt}.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
res="$OUT/multi-gpu"
mkdir -p "$res"
export NCCL_NVLS_ENABLE=0
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$res/gpu.txt"
nvidia-smi topo -m | tee "$res/topo.txt"
gpus=$(nvidia-smi -L | wc -l)
if [ "$gpus" -lt 2 ]; then
  echo "multi-gpu: $gpus GPU(s) here; this benchmark needs 2 or more" >&2
  exit 2
fi
cat >"$res/collectives.py" <<'PY'
import json, os, sys
import torch
import torch.distributed as dist

dist.init_process_group("nccl")
rank, world = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(rank)
rows = []
for log2 in range(20, 31, 2):  # 1 MiB .. 1 GiB
    size = 1 << log2
    n = size // 2  # bf16 elements
    x = torch.ones(n, dtype=torch.bfloat16, device="cuda")
    out = torch.empty(n, dtype=torch.bfloat16, device="cuda")
    shard = torch.empty(n // world, dtype=torch.bfloat16, device="cuda")
    ops = {
        "all_reduce": lambda: dist.all_reduce(x),
        "reduce_scatter": lambda: dist.reduce_scatter_tensor(shard, x),
        "all_gather": lambda: dist.all_gather_into_tensor(out, shard),
    }
    for name, op in ops.items():
        for _ in range(3):
            op()
        torch.cuda.synchronize()
        reps = 20 if size < (1 << 28) else 5
        start, end = torch.cuda.Event(True), torch.cuda.Event(True)
        start.record()
        for _ in range(reps):
            op()
        end.record()
        torch.cuda.synchronize()
        us = start.elapsed_time(end) * 1e3 / reps
        rows.append({"op": name, "bytes": size, "gpus": world, "us": us})
if rank == 0:
    path = sys.argv[1]
    old = json.load(open(path)) if os.path.exists(path) else []
    tag = os.environ.get("TFUSE_LINK_TAG", "default")
    for r in rows:
        r["path"] = tag
    json.dump(old + rows, open(path, "w"), indent=1)
dist.destroy_process_group()
PY
rm -f "$res/collectives.json"
for n in 2 4; do
  [ "$gpus" -ge "$n" ] || continue
  for p2p in 0 1; do
    tag=$([ $p2p = 1 ] && echo host || echo p2p)
    TFUSE_LINK_TAG=$tag NCCL_P2P_DISABLE=$p2p timeout 240 torchrun --nproc_per_node "$n" \
      "$res/collectives.py" "$res/collectives.json" >"$res/run.$n.$tag.log" 2>&1 ||
      echo "collectives on $n GPUs ($tag) failed: $(tail -3 "$res/run.$n.$tag.log")"
  done
done
python3 - "$res/collectives.json" "$ROOT/targets/h200.json" <<'PY' | tee "$res/table.txt"
import json, sys
rows = json.load(open(sys.argv[1]))
ic = json.load(open(sys.argv[2]))["interconnect"]
nv = ic["nvlink"]
link = {"p2p": (nv["bandwidth_gbps"] * nv["achievable_fraction"], nv["latency_us"])}
steps = {"all_reduce": lambda n: 2 * (n - 1), "reduce_scatter": lambda n: n - 1,
         "all_gather": lambda n: n - 1}
print(f"{'op':15} {'path':5} {'gpus':>4} {'MiB':>6} {'us':>10} {'busbw GB/s':>10} {'pred us':>10}")
for r in rows:
    k = steps[r["op"]](r["gpus"])
    bus = k * r["bytes"] / r["gpus"]
    pred = ""
    if r["path"] in link:
        gbps, lat = link[r["path"]]
        pred = f"{bus / (gbps * 1e3) + k * lat:10.1f}"
    print(f"{r['op']:15} {r['path']:5} {r['gpus']:4d} {r['bytes'] / 2**20:6.0f} "
          f"{r['us']:10.1f} {bus / r['us'] / 1e3:10.1f} {pred:>10}")
PY
tar czf "$OUT/multi-gpu.tgz" -C "$OUT" multi-gpu
