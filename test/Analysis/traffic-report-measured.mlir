// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json measured=%S/Inputs/measured-results.json" | FileCheck %s --check-prefix=TEXT
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json format=json measured=%S/Inputs/measured-results.json" | FileCheck %s --check-prefix=JSON
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json measured=%S/Inputs/measured-other-target.json" 2>&1 | FileCheck %s --check-prefix=TARGET
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json measured=%S/Inputs/measured-no-bench.json" 2>&1 | FileCheck %s --check-prefix=NOBENCH
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json measured=%S/Inputs/measured-unknown-step.json" 2>&1 | FileCheck %s --check-prefix=STEP
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json measured=%S/Inputs/toy.json" 2>&1 | FileCheck %s --check-prefix=NOTRESULTS
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json measured=%t.missing.json" 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: cp %S/Inputs/measured-results.json %t.results.json
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json measured=%t.results.json output=%t.results.json" 2>&1 | FileCheck %s --check-prefix=OVERWRITE
// RUN: cmp %t.results.json %S/Inputs/measured-results.json

// tfuse-run's measurements next to the predictions, matched by kernel id.
// On toy (10^6 B/us achievable, 1 us launch, 1 MiB L2) the four kernels are
// predicted 1 + bytes / 10^6 us (no tensor fits half the L2):
//   loop_0 (add):           2101248 B, 3.10 us; measured 4.0: 2101248 / 4000
//                           = 525.3 GB/s, 52.5 % of 1000, 4 / 3.101 = 1.29x
//   row_reduction_1:        2097152 B, 3.10 us; measured 5.0: 419.4 GB/s, 1.61x
//   copy_2 (transpose):     measured 3.5: 599.2 GB/s, 1.13x
//   copy_3 (transpose):     measured 2.5: 838.9 GB/s, 0.81x; the results say
//                           plan.json predicted 9.0, which the report shows.
// Sums: 3.101248 + 3 x 3.097152 = 12.39 us predicted, 15.0 measured: 1.21x.
// TEXT-LABEL: measured on Test GPU ({{.*}}measured-results.json), @measured against toy:
// TEXT-NEXT: kernel op predicted us measured us GB/s % achievable meas/pred
// TEXT-NEXT: loop_0 0 3.10 4.00 525.3 52.5% 1.29x
// TEXT-NEXT: row_reduction_1 1 3.10 5.00 419.4 41.9% 1.61x
// TEXT-NEXT: copy_2 2 3.10 3.50 599.2 59.9% 1.13x
// TEXT-NEXT: copy_3 3 3.10 2.50 838.9 83.9% 0.81x (plan.json predicted 9.00)
// TEXT-NEXT: sum of kernels 12.39 15.00 1.21x
// TEXT-NEXT: whole plan replayed (CUDA graph, median): 14.00 us

// JSON:      "measured": [
// JSON-NEXT:   {
// JSON-NEXT:     "file": "{{.*}}measured-results.json",
// JSON-NEXT:     "device": "Test GPU",
// JSON-NEXT:     "function": "measured",
// JSON-NEXT:     "target": "toy",
// JSON-NEXT:     "plan_median_us": 14,
// JSON-NEXT:     "kernels": [
// JSON-NEXT:       {
// JSON-NEXT:         "id": "loop_0",
// JSON-NEXT:         "predicted_us": 3.101248,
// JSON-NEXT:         "plan_predicted_us": 3.101248,
// JSON-NEXT:         "measured_us": 4,
// JSON-NEXT:         "measured_min_us": {{3\.9|3\.8999+}},
// JSON-NEXT:         "achieved_gbps": 525.3{{[0-9]*}},
// JSON-NEXT:         "measured_over_predicted": 1.2898{{[0-9]*}}

// TARGET: error: measured results '{{.*}}measured-other-target.json': the results are for target 'a40', which the report does not price: add it to targets=
// NOBENCH: error: measured results '{{.*}}': step 'row_reduction_1' has no measured_us: run tfuse-run with --bench
// STEP: error: measured results '{{.*}}': step 'copy_9' is not a kernel of @measured in this report
// NOTRESULTS: error: measured results '{{.*}}toy.json': not a tfuse-run --json results file (no "steps" array)
// MISSING: error: measured results '{{.*}}missing.json': cannot read:
// OVERWRITE: error: {{.*}}results.json{{.*}}
func.func @measured(%x: tensor<256x1024xf32>, %b: tensor<1024xf32>) -> tensor<256x1024xf32> {
  %0 = tfuse.add %x, %b : (tensor<256x1024xf32>, tensor<1024xf32>) -> tensor<256x1024xf32>
  %1 = tfuse.softmax %0 axis = 1 : tensor<256x1024xf32>
  %2 = tfuse.transpose %1 perm = [1, 0] : tensor<256x1024xf32> -> tensor<1024x256xf32>
  %3 = tfuse.transpose %2 perm = [1, 0] : tensor<1024x256xf32> -> tensor<256x1024xf32>
  return %3 : tensor<256x1024xf32>
}
