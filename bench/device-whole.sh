#!/usr/bin/env bash
# On the GPU machine, after bench/compile-whole-bundles.sh ran here and
# bundles/ was carried: builds tfuse-run, then
#   every check.* bundle (BERT shrunk: 2 layers, hidden 128; forward, cross-entropy,
#     backward and AdamW) with --check against the CPU reference;
#   every other bundle (BERT-Large b32 s512 whole training steps with AdamW,
#     fused and unfused, and without it if compiled with WHOLE_NOOPT=1) with
#     --bench (the plan as a CUDA graph, and each step alone);
#   the PyTorch peers (bench/whole_peers.py: BertForMaskedLM from the same
#     config, eager and torch.compile, its own MLM cross-entropy and mse).
# A bundle's inputs.args (--input i=../inputs.<model>/x.npy, relative to the
# bundle) are passed to tfuse-run.
# Everything goes to $OUT/whole (and $OUT/whole.tgz); a table is printed
# last. Environment: REPS (10), WHOLE_BATCHES (peers' batches, default 32),
# PEER_TIMEOUT (seconds for all peers, default 330: the call must end in
# 600 s; WHOLE_PEERS picks fewer), and whole_peers.py's.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-/tmp/tfuse-out}
REPS=${REPS:-10}
res="$OUT/whole"
mkdir -p "$res"
source "$ROOT/bench/build-runtime.sh"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$res/gpu.txt"
cp "$ROOT"/bundles/whole/summary.*.txt "$res/" 2>/dev/null

# The `--input` arguments of a bundle, its paths made absolute.
inputs_of() {
  [ -f "$1/inputs.args" ] || return 0
  sed -E "s|^--input ([0-9]+)=|--input \1=$1/|" "$1/inputs.args" | tr '\n' ' '
}

for bundle in "$ROOT"/bundles/whole/check.*; do
  [ -f "$bundle/plan.json" ] || continue
  n=$(basename "$bundle")
  # shellcheck disable=SC2046
  timeout 300 "$TFUSE_RUN" "$bundle" --check $(inputs_of "$bundle") \
    --json "$res/$n.json" >"$res/$n.log" 2>&1
  echo "$n rc=$? $(grep -E '^check:' "$res/$n.log" | tail -1)"
  grep -E "FAIL|error" "$res/$n.log" | head -3
done | tee "$res/check-summary.txt"

for bundle in "$ROOT"/bundles/whole/*; do
  n=$(basename "$bundle")
  [[ -f $bundle/plan.json && $n != check.* ]] || continue
  # shellcheck disable=SC2046
  timeout 300 "$TFUSE_RUN" "$bundle" --bench --reps "$REPS" $(inputs_of "$bundle") \
    --json "$res/bench.$n.json" >"$res/bench.$n.log" 2>&1 ||
    echo "bench $n failed: $(tail -3 "$res/bench.$n.log")"
  echo "== $n"; grep -iE "graph|median|total" "$res/bench.$n.log" | head -4
done

PY=python3
[ -x /opt/torch/.venv/bin/python3 ] && PY=/opt/torch/.venv/bin/python3
timeout "${PEER_TIMEOUT:-330}" "$PY" "$ROOT/bench/whole_peers.py" \
  "$ROOT/bundles/whole/bert.json" "$res" 2>&1 | tee "$res/peers.log" | grep -E "^peer:|^torch|Error" | cut -c1-400
echo "peers rc=${PIPESTATUS[0]}"

cat "$res/check-summary.txt"
python3 - "$res" "$ROOT/bundles/whole" <<'PY' 2>&1 | tee "$res/table.txt"
import glob, json, os, re, sys
res, bundles = sys.argv[1], sys.argv[2]
rows = []
for path in sorted(glob.glob(os.path.join(res, "bench.*.json"))):
    name = os.path.basename(path)[len("bench."):-len(".json")]
    try:
        doc = json.load(open(path))
        totals = doc.get("totals", {})
        target = doc.get("target", {}).get("name", "?")
    except Exception as exc:
        rows.append((name, "ce", None, None, None, None, f"unreadable: {exc}"))
        continue
    ms = totals.get("plan_median_us")
    ms = ms / 1000 if ms else None
    pred = totals.get("predicted_us")
    pred = pred / 1000 if pred else None
    peak = alloc = None
    try:
        text = open(os.path.join(bundles, f"summary.{name}.txt")).read()
        m = re.search(r"memory:\s+([0-9.]+) GB peak", text)
        peak = float(m.group(1)) * 1e9 / 2**30 if m else None
    except OSError:
        pass
    try:
        plan = json.load(open(os.path.join(bundles, name, "plan.json")))
        alloc = (plan["arena_bytes"] + sum(b["bytes"] for b in plan["buffers"]
                 if b["kind"] in ("input", "output"))) / 2**30
    except Exception:
        pass
    note = "" if "adamw" in name else "no AdamW"
    note += "" if totals.get("cuda_graph", True) else " no CUDA graph"
    note += f" alloc {alloc:.1f} GiB" if alloc else ""
    note += f" (priced for {target})"
    rows.append((f"tfuse {name}", "ce", ms, pred, peak, note.strip(), None))
try:
    peers = json.load(open(os.path.join(res, "peers.json")))
except Exception as exc:
    peers = [{"plan": "torch", "error": f"no peers.json: {exc}"}]
for p in peers:
    note = f"b{p.get('batch', '?')}"
    if p.get("tied"):
        note += " TIED head"
    rows.append((p.get("plan", "torch"), p.get("loss", "-"), p.get("ms"), None,
                 p.get("peak_gib"), note, p.get("error")))
def fmt(value, width, digits):
    return f"{value:{width}.{digits}f}" if value is not None else "-".rjust(width)
print(f"{'plan':40} {'loss':4} {'ms/step':>9} {'steps/s':>8} {'pred ms':>8} {'peak GiB':>8}  note")
for plan, loss, ms, pred, peak, note, error in rows:
    sps = 1000 / ms if ms else None
    print(f"{plan:40} {loss:4} {fmt(ms, 9, 2)} {fmt(sps, 8, 2)} {fmt(pred, 8, 2)} "
          f"{fmt(peak, 8, 1)}  {note}{'  FAILED: ' + error[:120] if error else ''}")
print("tfuse peak: the plan's predicted peak in program order (tfuse-compile's summary); "
      "alloc: what tfuse-run allocates (arena + inputs + outputs); "
      "torch peak: torch.cuda.max_memory_allocated")
PY
tar czf "$OUT/whole.tgz" -C "$OUT" whole
