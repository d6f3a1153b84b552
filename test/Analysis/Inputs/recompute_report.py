"""Recomputes every derived number of a report.json from the fields it prints.

A newcomer can reproduce any figure of the report by hand from the targets'
figures, the "model" constants and each kernel's bytes and FLOPs
(docs/cost-model.md). This script does exactly that and fails on the first
number that does not follow, naming its JSON path. Recorded figures (an op's
own bytes and FLOPs from its cost interface, what tfuse-fuse stored on a
fusion, the unfused baseline's kernels) are inputs, not derived.
Usage: recompute_report.py report.json [more.json ...]
"""
import json
import math
import sys

REL = 1e-9


def close(a, b):
    return math.isclose(a, b, rel_tol=REL, abs_tol=1e-12)


class Checker:
    def __init__(self, report, name):
        self.r = report
        self.name = name
        self.checked = 0
        self.model = report["model"]

    def expect(self, path, got, want):
        self.checked += 1
        same = got == want if isinstance(want, (str, bool, list)) else close(got, want)
        if not same:
            sys.exit("%s: %s is %r, but the printed fields give %r"
                     % (self.name, path, got, want))

    def peak(self, target, compute, template=""):
        if compute == "fp32":
            return target["fp32_tflops"]
        key = {"fp16_tensor": "fp16_tensor_tflops",
               "bf16_tensor": "bf16_tensor_tflops"}[compute]
        # The flash-attention kernels run at their own efficiency.
        if template in ("attention", "attention_grad"):
            return target[key] * target["attention_efficiency"]
        return target[key] * target["gemm_efficiency"]

    def kernel_time(self, k, t):
        """(total, bound, memory, compute, launch, l2) of kernel k on t."""
        resident = self.model["l2_resident_fraction"] * t["l2_cache_mb"] * 2**20
        l2 = k["l2_candidate_bytes"] if k["producer_bytes_written"] <= resident else 0
        dram = k["bytes_read"] + k["bytes_written"] - l2
        bw = t["achievable_bandwidth_gbps"] * 1e3
        memory = dram / bw + l2 / (self.model["l2_bandwidth_multiplier"] * bw)
        compute = k["flops"] / (self.peak(t, k["compute"], k["template"]) * 1e6)
        # Dropout's Philox integer work, issued by the same warps.
        if k["integer_ops"]:
            compute += k["integer_ops"] / t["integer_ops_per_us"]
        launch = t["kernel_launch_overhead_us"]
        busy = max(memory, compute)
        bound = ("launch" if launch > busy else
                 "memory" if memory >= compute else "compute")
        return launch + busy, bound, memory, compute, launch, l2

    def total(self, kernels, t):
        return sum(self.kernel_time(k, t)[0] for k in kernels)

    def check_sums(self, path, sums, kernels):
        self.expect(path + ".kernels", sums["kernels"], len(kernels))
        self.expect(path + ".bytes", sums["bytes"],
                    sum(k["bytes_read"] + k["bytes_written"] for k in kernels))
        for t in self.r["targets"]:
            self.expect(path + ".time_us." + t["name"], sums["time_us"][t["name"]],
                        self.total(kernels, t))

    def check_totals(self, path, totals, ops, kernels):
        for key in ("bytes_read", "bytes_written", "flops"):
            self.expect(path + "." + key, totals[key], sum(op[key] for op in ops))
        self.expect(path + ".bytes", totals["bytes"],
                    totals["bytes_read"] + totals["bytes_written"])
        for t in self.r["targets"]:
            sums = totals["targets"][t["name"]]
            p = path + ".targets." + t["name"]
            times = [self.kernel_time(k, t) for k in kernels]
            time = sum(x[0] for x in times)
            self.expect(p + ".time_us", sums["time_us"], time)
            self.expect(p + ".kernels", sums["kernels"], len(kernels))
            self.expect(p + ".l2_bytes", sums["l2_bytes"], sum(x[5] for x in times))
            for bound in ("memory", "compute", "launch"):
                self.expect(p + ".%s_bound_us" % bound, sums[bound + "_bound_us"],
                            sum(x[0] for x in times if x[1] == bound))
            self.expect(p + ".bandwidth_bound_share", sums["bandwidth_bound_share"],
                        sums["memory_bound_us"] / time if time else 0.0)

    def run(self):
        r = self.r
        kernels = r["kernels"]
        for i, k in enumerate(kernels):
            for t in r["targets"]:
                total, bound, _, _, _, l2 = self.kernel_time(k, t)
                got = k["targets"][t["name"]]
                p = "kernels[%d](%s).targets.%s" % (i, k["id"], t["name"])
                self.expect(p + ".time_us", got["time_us"], total)
                self.expect(p + ".bound", got["bound"], bound)
                self.expect(p + ".l2_bytes", got["l2_bytes"], l2)
        for i, op in enumerate(r["ops"]):
            mine = [k for k in kernels if k["op_index"] == i]
            self.expect("ops[%d].kernels" % i, op["kernels"], [k["id"] for k in mine])
            b = op["bytes_read"] + op["bytes_written"]
            self.expect("ops[%d].intensity" % i, op["intensity"],
                        op["flops"] / b if b else 0.0)
            for t in r["targets"]:
                got = op["targets"][t["name"]]
                times = [self.kernel_time(k, t) for k in mine]
                p = "ops[%d].targets.%s" % (i, t["name"])
                self.expect(p + ".time_us", got["time_us"], sum(x[0] for x in times))
                self.expect(p + ".memory_us", got["memory_us"], sum(x[2] for x in times))
                self.expect(p + ".compute_us", got["compute_us"], sum(x[3] for x in times))
                self.expect(p + ".launch_us", got["launch_us"], sum(x[4] for x in times))
                self.expect(p + ".l2_bytes", got["l2_bytes"], sum(x[5] for x in times))
                self.expect(p + ".bound", got["bound"], times[0][1] if times else "none")
        self.check_totals("totals", r["totals"], r["ops"], kernels)
        self.check_sums("fused", r["fused"], kernels)
        for f in r["functions"]:
            ops = r["ops"][f["first_op"]:f["first_op"] + f["num_ops"]]
            ks = kernels[f["first_kernel"]:f["first_kernel"] + f["num_kernels"]]
            self.check_totals("functions.%s.totals" % f["name"], f["totals"], ops, ks)
            self.check_sums("functions.%s.fused" % f["name"], f["fused"], ks)
        if "unfused" in r:
            # Functions without fusions count the same unfused as fused.
            for key in ("kernels", "bytes"):
                self.expect("unfused." + key, r["unfused"][key], sum(
                    f.get("unfused", f["fused"])[key] for f in r["functions"]))
        self.check_comparisons()
        self.check_sweep()
        self.check_measured()
        return self.checked

    def check_comparisons(self):
        r = self.r
        targets = r["targets"]
        if not targets:
            return
        base = targets[0]
        base_time = self.total(r["kernels"], base)
        for c in r["comparisons"]:
            other = next(t for t in targets if t["name"] == c["target"])
            p = "comparisons.%s" % other["name"]
            self.expect(p + ".speedup", c["speedup"],
                        base_time / self.total(r["kernels"], other))
            memory = dict(base, achievable_bandwidth_gbps=other["achievable_bandwidth_gbps"],
                          l2_cache_mb=other["l2_cache_mb"])
            self.expect(p + ".memory_system_speedup", c["memory_system_speedup"],
                        base_time / self.total(r["kernels"], memory))
            compute = dict(base, fp32_tflops=other["fp32_tflops"],
                           fp16_tensor_tflops=other["fp16_tensor_tflops"],
                           bf16_tensor_tflops=other["bf16_tensor_tflops"],
                           integer_ops_per_us=other["integer_ops_per_us"])
            self.expect(p + ".compute_speedup", c["compute_speedup"],
                        base_time / self.total(r["kernels"], compute))

    def check_sweep(self):
        sweep = self.r.get("sweep")
        if not sweep:
            return
        for t in self.r["targets"]:
            fraction = t["achievable_bandwidth_gbps"] / t["bandwidth_gbps"]
            for i, bandwidth in enumerate(sweep["bandwidth_gbps"]):
                swept = dict(t, achievable_bandwidth_gbps=bandwidth * fraction)
                self.expect("sweep.%s[%d]" % (t["name"], i),
                            sweep["targets"][t["name"]]["time_us"][i],
                            self.total(self.r["kernels"], swept))

    def check_measured(self):
        for run in self.r.get("measured", []):
            t = next(t for t in self.r["targets"] if t["name"] == run["target"])
            by_id = {k["id"]: k for k in self.r["kernels"]}
            for m in run["kernels"]:
                k = by_id[m["id"]]
                p = "measured.%s.%s" % (run["file"], m["id"])
                predicted = self.kernel_time(k, t)[0]
                self.expect(p + ".predicted_us", m["predicted_us"], predicted)
                self.expect(p + ".achieved_gbps", m["achieved_gbps"],
                            (k["bytes_read"] + k["bytes_written"]) / (m["measured_us"] * 1e3))
                self.expect(p + ".measured_over_predicted",
                            m["measured_over_predicted"], m["measured_us"] / predicted)


def main():
    for name in sys.argv[1:]:
        with open(name) as f:
            report = json.load(f)
        checked = Checker(report, name).run()
        print("%s: %d numbers recomputed, all equal" % (name, checked))


if __name__ == "__main__":
    main()
