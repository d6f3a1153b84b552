// Bad target files: a located diagnostic in the JSON file (file:line:col
// and the JSON path of the field), a non-zero exit, no report.

// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/bad-targets/truncated.json" 2>&1 | FileCheck %s --check-prefix=TRUNCATED
// TRUNCATED: truncated.json:30:5: error: $.sources: unterminated string

// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/bad-targets/duplicate.json" 2>&1 | FileCheck %s --check-prefix=DUPLICATE
// DUPLICATE: duplicate.json:8:3: error: $.sm_count: duplicate key "sm_count" (first defined at 7:3)

// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/bad-targets/unknown.json" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: unknown.json:8:3: warning: $.sm_cont: unknown key "sm_cont" (ignored); did you mean "sm_count"?
// UNKNOWN: tfuse traffic report

// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/bad-targets/badtype.json" 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: badtype.json:12:23: error: $.memory.bandwidth_gbps: expected a number in [1, 100000], got "fast"

// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=b200" 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: error: {{.*}}b200

// RUN: not tfuse-opt %s -o /dev/null --tfuse-fuse=target=%S/Inputs/bad-targets/duplicate.json 2>&1 | FileCheck %s --check-prefix=DUPLICATE

// Every figure is finite and within a plausible range (docs/targets.md), so
// that no predicted time is infinite: a denormal bandwidth is refused.
// RUN: sed 's/"bandwidth_gbps": 1000/"bandwidth_gbps": 1e-310/' %S/Inputs/toy.json > %t.denormal.json
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.denormal.json" 2>&1 | FileCheck %s --check-prefix=DENORMAL
// DENORMAL: denormal.json:12:23: error: $.memory.bandwidth_gbps: expected a number in [1, 100000], got 1e-310
// RUN: sed 's/"achievable_fraction": 1.0/"achievable_fraction": 0.01/' %S/Inputs/toy.json > %t.fraction.json
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.fraction.json" 2>&1 | FileCheck %s --check-prefix=FRACTION
// FRACTION: fraction.json:13:28: error: $.memory.achievable_fraction: expected a number in [0.05, 1], got 0.01
// RUN: sed 's/"fp32": 10/"fp32": 1e-300/' %S/Inputs/toy.json > %t.peak.json
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.peak.json" 2>&1 | FileCheck %s --check-prefix=PEAK
// PEAK: peak.json:19:13: error: $.peak_tflops.fp32: expected a number in [0.01, 100000], got 1e-300
// RUN: sed 's/"kernel_launch_overhead_us": 1.0/"kernel_launch_overhead_us": 0/' %S/Inputs/toy.json > %t.launch.json
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.launch.json" 2>&1 | FileCheck %s --check-prefix=LAUNCH
// LAUNCH: launch.json:25:32: error: $.kernel_launch_overhead_us: expected a number in (0, 1000], got 0
// RUN: sed 's/"bandwidth_gbps": 1000/"bandwidth_gbps": 1e999/' %S/Inputs/toy.json > %t.huge.json
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.huge.json" 2>&1 | FileCheck %s --check-prefix=HUGE
// HUGE: huge.json:12:23: error: $.memory.bandwidth_gbps: number 1e999 is out of range for a double

// A swept bandwidth is bounded like a target's, so no time is infinite.
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%S/Inputs/toy.json sweep-bandwidth=1e-310:1:1" 2>&1 | FileCheck %s --check-prefix=SWEEP
// SWEEP: error: sweep-bandwidth must be START:STOP:STEP in GB/s with 1 <= START <= STOP <= 100000, STEP > 0 and at most 1000 steps, got '1e-310:1:1'

// sm_arch must name an architecture the NVPTX backend linked into the tool
// knows; the message gives its range.
// RUN: sed 's/"sm_arch": "sm_90"/"sm_arch": "sm_999"/' %S/Inputs/toy.json > %t.sm999.json
// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.sm999.json" 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: sm999.json:6:14: error: $.sm_arch: "sm_999" is not an architecture the installed NVPTX backend (LLVM {{[0-9.]+}}) knows; it supports sm_{{[0-9]+}} to sm_{{[0-9]+[a-z]?}}
// ARCH-NOT: tfuse traffic report

// A report (no code generation) may name an old architecture.
// RUN: sed 's/"sm_arch": "sm_90"/"sm_arch": "sm_61"/' %S/Inputs/toy.json > %t.sm61.json
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.sm61.json" 2>&1 | FileCheck %s --check-prefix=OLD
// OLD: sm61{{.*}}sm_61

// 2,000 unknown keys: 20 warnings and a summary, in well under a second
// (the reader is linear), whether the keys are on their own lines or all on
// one line (each warning shows that line once).
// RUN: %python -c "import json; t = json.load(open('%S/Inputs/toy.json')); t.update({'unknown_%%d' %% i: i for i in range(2000)}); print(json.dumps(t, indent=2))" > %t.keys.json
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.keys.json" 2>&1 | FileCheck %s --check-prefix=KEYS
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.keys.json" 2>&1 | grep -c "warning:" | FileCheck %s --check-prefix=COUNT
// RUN: %python -c "import json; t = json.load(open('%S/Inputs/toy.json')); t.update({'unknown_%%d' %% i: i for i in range(2000)}); print(json.dumps(t))" > %t.line.json
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=%t.line.json" 2>&1 | grep -c "warning:" | FileCheck %s --check-prefix=COUNT
// KEYS: keys.json:1:1: warning: $: and 1980 more unknown keys (ignored)
// KEYS: keys.json:45:3: warning: $.unknown_0: unknown key "unknown_0" (ignored)
// KEYS: keys.json:64:3: warning: $.unknown_19: unknown key "unknown_19" (ignored)
// KEYS-NOT: unknown_20
// KEYS: tfuse traffic report
// The summary, the 20 keys and the file-name warning:
// COUNT: {{^}}22{{$}}

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tfuse.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
