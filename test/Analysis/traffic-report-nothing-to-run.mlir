// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=h200,a40 format=text" | FileCheck %s --check-prefix=TEXT
// RUN: tfuse-opt %s -o /dev/null --tfuse-traffic-report="targets=h200,a40 format=json" > %t.json
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: python3 -c "import json, sys; json.load(open(sys.argv[1]))" %t.json

// A module whose ops launch no kernel takes 0 us on every target: the
// comparison says 1x (found by fuzzing: it was 0 / 0, printed as -nan, which
// made the JSON report invalid).

// TEXT-LABEL: @only_a_view
// TEXT: a40            1.000x; with only its memory system (bandwidth, L2) 1.000x, with only its peak FLOP/s 1.000x
// JSON:      "speedup": 1,
// JSON-NEXT: "memory_system_speedup": 1,
// JSON-NEXT: "compute_speedup": 1
func.func @only_a_view(%x: tensor<2x8xf32>) -> tensor<16xf32> {
  %y = tfuse.reshape %x : tensor<2x8xf32> -> tensor<16xf32>
  return %y : tensor<16xf32>
}
