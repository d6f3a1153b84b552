// The evaluator's memory estimate against the limit the option sets: a
// [1024, 1024] f32 argument, the relu's result and the returned copy hold
// 3 x 2^20 doubles = 25165824 bytes = 24 MiB.
// RUN: not tfuse-opt %s --tfuse-evaluate="max-memory-mb=23" -o /dev/null 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: tfuse-opt %s --tfuse-evaluate="max-memory-mb=24" -o /dev/null | FileCheck %s --check-prefix=FITS

// LIMIT: evaluate-memory.mlir:[[@LINE+2]]:1: error: 'func.func' op needs 25165824 bytes (24 MiB) for its reference values, more than the 23 MiB that tfuse-evaluate{max-memory-mb} allows
// FITS: @relu result 0: [1024, 1024] f32 sum=
func.func @relu(%x: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %y = tfuse.relu %x : tensor<1024x1024xf32>
  return %y : tensor<1024x1024xf32>
}
