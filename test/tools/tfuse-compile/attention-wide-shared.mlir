// RUN: rm -rf %t && tfuse-compile %s --target=h200 --fused-attention -o %t --quiet
// RUN: FileCheck %s < %t/kernels.ptx
// RUN: grep -c "__dynamic_shmem__0\[\]" %t/kernels.ptx | FileCheck %s --check-prefix=ONCE

// Two flash kernels, one indexing a buffer of more than 2^31 - 1 elements
// (8 x 16 x 131073 x 128 = 2147500032), lowered apart with 64-bit indices
// and joined into one PTX module: both stage their tiles in the one dynamic
// shared window, declared once, as an extern unsized array (a static
// declaration would put the window after it).
// CHECK:     .extern .shared .align 16 .b8 __dynamic_shmem__0[];
// CHECK-DAG: .visible .entry attention_0(
// CHECK-DAG: .visible .entry attention_1(
// ONCE: 1
func.func @wide(%q: tensor<8x16x131073x128xbf16>, %s: tensor<2x2x80x64xbf16>) -> (tensor<8x16x131073x128xbf16>, tensor<2x2x80x64xbf16>) {
  %o = tfuse.attention %q, %q, %q scale = 0.088 causal : (tensor<8x16x131073x128xbf16>, tensor<8x16x131073x128xbf16>, tensor<8x16x131073x128xbf16>) -> tensor<8x16x131073x128xbf16>
  %p = tfuse.attention %s, %s, %s scale = 0.125 : (tensor<2x2x80x64xbf16>, tensor<2x2x80x64xbf16>, tensor<2x2x80x64xbf16>) -> tensor<2x2x80x64xbf16>
  return %o, %p : tensor<8x16x131073x128xbf16>, tensor<2x2x80x64xbf16>
}
