// RUN: rm -rf %t && tfuse-compile %s --target=h200 --function=huge_add -o %t/huge
// RUN: FileCheck %s --check-prefix=WIDE < %t/huge/kernels.ptx
// RUN: FileCheck %s --check-prefix=GRID < %t/huge/plan.json
// RUN: tfuse-compile %s --target=h200 --function=mixed -o %t/mixed
// RUN: FileCheck %s --check-prefix=MIXED < %t/mixed/kernels.ptx
// RUN: tfuse-compile %s --target=h200 --function=small_add -o %t/small
// RUN: FileCheck %s --check-prefix=NARROW < %t/small/kernels.ptx
// RUN: tfuse-compile %s --target=h200 --function=big_bytes -o %t/bytes
// RUN: FileCheck %s --check-prefix=BYTES < %t/bytes/kernels.ptx

// A kernel over 2^31 + 1 elements indexes in 64 bits: block x 256 + thread
// is formed in 64-bit registers and compared (unsigned) with the last index,
// 2^31, and the byte offset is a 64-bit shift, so no index wraps at 2^31.
// WIDE:      .entry loop_0(
// WIDE:      .maxntid 256, 1, 1
// WIDE:      mov.u32 %r[[BLOCK:[0-9]+]], %ctaid.x;
// WIDE:      mov.u32 %r[[THREAD:[0-9]+]], %tid.x;
// WIDE-NEXT: cvt.u64.u32 %rd{{[0-9]+}}, %r[[THREAD]];
// WIDE-NEXT: mul.wide.u32 %rd{{[0-9]+}}, %r[[BLOCK]], 256;
// WIDE-NEXT: or.b64 %rd[[INDEX:[0-9]+]]
// WIDE-NEXT: setp.gt.u64 %p{{[0-9]+}}, %rd[[INDEX]], 2147483648;
// WIDE:      shl.b64 %rd{{[0-9]+}}, %rd[[INDEX]], 2;
// WIDE:      add.rn.f32
// WIDE:      st.global.b32

// The grid covers every element with 256-thread blocks: ceil((2^31 + 1) /
// 256) = 8388609 blocks, well inside the 2^31 - 1 of grid.x.
// GRID:      "grid": [
// GRID-NEXT: 8388609,

// One bundle, both widths: only the kernel over 2^31 + 1 elements (loop_1)
// indexes in 64 bits; the small one beside it (loop_0) keeps 32. One PTX
// module holds both.
// MIXED:     .entry loop_0(
// MIXED:     setp.gt.u32 %p{{[0-9]+}}, %r{{[0-9]+}}, 4096;
// MIXED-NOT: .u64 %p
// MIXED:     .entry loop_1(
// MIXED:     mul.wide.u32 %rd{{[0-9]+}}, %r{{[0-9]+}}, 256;
// MIXED:     setp.gt.u64 %p{{[0-9]+}}, %rd{{[0-9]+}}, 2147483648;

// A small kernel keeps 32-bit index arithmetic: the index is a 32-bit
// register, compared in 32 bits, widened only to form the address.
// NARROW:      .entry loop_0(
// NARROW:      mov.u32 %r[[BLOCK:[0-9]+]], %ctaid.x;
// NARROW-NEXT: mov.u32 %r{{[0-9]+}}, %tid.x;
// NARROW-NEXT: shl.b32 %r{{[0-9]+}}, %r[[BLOCK]], 8;
// NARROW-NEXT: or.b32 %r[[INDEX:[0-9]+]]
// NARROW-NEXT: setp.gt.u32 %p{{[0-9]+}}, %r[[INDEX]], 4096;
// NARROW-NOT:  .u64 %rd{{[0-9]+}}, %r[[INDEX]]
// NARROW:      mul.wide.u32 %rd{{[0-9]+}}, %r[[INDEX]], 4;

// So does one over 2^29 f32: 2^31 bytes, but every element index fits in 31
// bits and the byte offset is formed in 64 (mul.wide): 2^27 threads of one
// 4-wide vector each.
// BYTES:      .entry loop_0(
// BYTES:      mov.u32 %r[[BLOCK:[0-9]+]], %ctaid.x;
// BYTES-NEXT: shl.b32 %r[[FIRST:[0-9]+]], %r[[BLOCK]], 8;
// BYTES-NEXT: setp.gt.u32 %p{{[0-9]+}}, %r[[FIRST]], 134217727;
// BYTES:      or.b32 %r[[INDEX:[0-9]+]], %r[[FIRST]]
// BYTES-NEXT: shl.b32 %r[[ELEMENT:[0-9]+]], %r[[INDEX]], 2;
// BYTES-NEXT: mul.wide.u32 %rd{{[0-9]+}}, %r[[ELEMENT]], 4;
// BYTES:      ld.global.v4.b32

func.func @huge_add(%x: tensor<2147483649xf32>, %y: tensor<2147483649xf32>) -> tensor<2147483649xf32> {
  %0 = tfuse.add %x, %y : (tensor<2147483649xf32>, tensor<2147483649xf32>) -> tensor<2147483649xf32>
  return %0 : tensor<2147483649xf32>
}

func.func @small_add(%x: tensor<4097xf32>, %y: tensor<4097xf32>) -> tensor<4097xf32> {
  %0 = tfuse.add %x, %y : (tensor<4097xf32>, tensor<4097xf32>) -> tensor<4097xf32>
  return %0 : tensor<4097xf32>
}

func.func @big_bytes(%x: tensor<536870912xf32>, %y: tensor<536870912xf32>) -> tensor<536870912xf32> {
  %0 = tfuse.add %x, %y : (tensor<536870912xf32>, tensor<536870912xf32>) -> tensor<536870912xf32>
  return %0 : tensor<536870912xf32>
}

func.func @mixed(%x: tensor<4097xf32>, %y: tensor<2147483649xf32>) -> (tensor<4097xf32>, tensor<2147483649xf32>) {
  %0 = tfuse.exp %x : tensor<4097xf32>
  %1 = tfuse.exp %y : tensor<2147483649xf32>
  return %0, %1 : tensor<4097xf32>, tensor<2147483649xf32>
}
