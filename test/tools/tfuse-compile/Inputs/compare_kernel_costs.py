"""Checks that a bundle prices each kernel once: every plan.json step has the
kernel of the same id in report.json with the identical predicted time on the
plan's target, and every fusion's recorded time is its op's time."""
import json
import os
import sys

for bundle in sys.argv[1:]:
    with open(os.path.join(bundle, "plan.json")) as f:
        plan = json.load(f)
    with open(os.path.join(bundle, "report.json")) as f:
        report = json.load(f)
    target = plan["target"]["name"]
    kernels = {k["id"]: k for k in report["kernels"] if k["emitted"]}
    name = os.path.basename(bundle)
    errors = []
    if len(kernels) != len(plan["steps"]):
        errors.append(f"{len(kernels)} kernels in the report, "
                      f"{len(plan['steps'])} steps in the plan")
    for step in plan["steps"]:
        kernel = kernels.get(step["name"])
        if kernel is None:
            errors.append(f"step {step['name']} has no kernel in the report")
            continue
        reported = kernel["targets"][target]["time_us"]
        if reported != step["predicted_us"]:
            errors.append(f"{step['name']}: plan {step['predicted_us']} us, "
                          f"report {reported} us")
        if kernel["bytes_read"] + kernel["bytes_written"] != step["bytes"]:
            errors.append(f"{step['name']}: bytes differ")
    for fusion in report["fusions"]:
        op = report["ops"][fusion["op_index"]]
        if op["targets"][target]["time_us"] != fusion["predicted_fused_us"]:
            errors.append(f"fusion at op {fusion['op_index']}: report "
                          f"{op['targets'][target]['time_us']} us, decision "
                          f"{fusion['predicted_fused_us']} us")
    for error in errors:
        print(f"{name}: error: {error}")
    if not errors:
        print(f"{name}: {len(plan['steps'])} steps and "
              f"{len(report['fusions'])} fusions agree")
