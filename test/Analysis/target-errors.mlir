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
// TYPE: badtype.json:12:23: error: $.memory.bandwidth_gbps: expected a positive number, got "fast"

// RUN: not tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=b200" 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: error: {{.*}}b200

// RUN: not tfuse-opt %s -o /dev/null --tfuse-fuse=target=%S/Inputs/bad-targets/duplicate.json 2>&1 | FileCheck %s --check-prefix=DUPLICATE

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = tfuse.exp %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
