// RUN: tfuse-opt %s --tfuse-fuse=target=a40 | FileCheck %s
// RUN: tfuse-opt %s --tfuse-fuse=target=a40 | tfuse-opt --tfuse-fuse=target=a40 > %t.twice
// RUN: tfuse-opt %s --tfuse-fuse=target=a40 > %t.once
// RUN: diff %t.once %t.twice
// RUN: tfuse-opt %s --tfuse-fuse=target=a40 --remarks-filter=tfuse-fuse -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: tfuse-opt %s --tfuse-evaluate=seed=4 -o /dev/null > %t.before
// RUN: tfuse-opt %s --tfuse-fuse=target=a40 --tfuse-evaluate=seed=4 -o /dev/null > %t.fused
// RUN: tfuse-opt %s --tfuse-fuse=target=a40 --tfuse-unfuse --tfuse-evaluate=seed=4 -o /dev/null > %t.unfused
// RUN: diff %t.before %t.fused
// RUN: diff %t.before %t.unfused

// Each kernel template, each refusal rule, and semantics preserved bit for
// bit (the evaluation digests match before fusion, after it, and after
// unfusing), on the A40's cost model. Fusing twice changes nothing.

// GEMM epilogue: bias + tanh-GELU run inside the cuBLASLt call.
// CHECK-LABEL: func.func @gemm_bias_gelu_tanh
// CHECK:       %[[F:.*]] = tfuse.fusion gemm_epilogue(%arg0, %arg1, %arg2) attributes {bytes_after = {{[0-9]+}} : i64, bytes_before = {{[0-9]+}} : i64, predicted_fused_us = {{.*}}, predicted_unfused_us = {{.*}}, target = "a40"}
// CHECK-NEXT:  ^bb0(%[[X:.*]]: tensor<64x1024xbf16>, %[[W:.*]]: tensor<1024x4096xbf16>, %[[B:.*]]: tensor<4096xbf16>):
// CHECK-NEXT:    %[[M:.*]] = tfuse.matmul %[[X]], %[[W]]
// CHECK-NEXT:    %[[A:.*]] = tfuse.add %[[M]], %[[B]]
// CHECK-NEXT:    %[[G:.*]] = tfuse.gelu %[[A]] approximate = tanh
// CHECK-NEXT:    tfuse.yield %[[G]]
// CHECK:       return %[[F]]
func.func @gemm_bias_gelu_tanh(%x: tensor<64x1024xbf16>, %w: tensor<1024x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<64x4096xbf16> {
  %m = tfuse.matmul %x, %w : (tensor<64x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<64x4096xbf16>
  %a = tfuse.add %m, %b : (tensor<64x4096xbf16>, tensor<4096xbf16>) -> tensor<64x4096xbf16>
  %g = tfuse.gelu %a approximate = tanh : tensor<64x4096xbf16>
  return %g : tensor<64x4096xbf16>
}

// The erf GELU stays out of the epilogue (cuBLASLt computes the tanh form).
// CHECK-LABEL: func.func @gemm_gelu_erf
// CHECK:       %[[F:.*]] = tfuse.fusion gemm_epilogue
// CHECK:       tfuse.gelu %[[F]] : tensor<64x4096xbf16>
// REMARK: remark: [Missed] not-fused | Category:tfuse-fuse:gemm_epilogue | Function=gemm_gelu_erf | Remark="gelu-erf-epilogue: tfuse.gelu at {{.*}}fuse.mlir:[[@LINE+4]]:8 is the erf form; cuBLASLt's GELU epilogue computes the tanh form"
func.func @gemm_gelu_erf(%x: tensor<64x1024xbf16>, %w: tensor<1024x4096xbf16>, %b: tensor<4096xbf16>) -> tensor<64x4096xbf16> {
  %m = tfuse.matmul %x, %w : (tensor<64x1024xbf16>, tensor<1024x4096xbf16>) -> tensor<64x4096xbf16>
  %a = tfuse.add %m, %b : (tensor<64x4096xbf16>, tensor<4096xbf16>) -> tensor<64x4096xbf16>
  %g = tfuse.gelu %a : tensor<64x4096xbf16>
  return %g : tensor<64x4096xbf16>
}

// Only a vector over the columns is a bias; a full-size add is not.
// CHECK-LABEL: func.func @gemm_not_a_bias
// CHECK-NOT:   tfuse.fusion gemm_epilogue
// REMARK: Function=gemm_not_a_bias | Remark="bias-not-vector: the added operand of tfuse.add at {{.*}} is [64, 256], not a bias vector [N] over the GEMM's columns"
func.func @gemm_not_a_bias(%x: tensor<64x128xf32>, %w: tensor<128x256xf32>, %r: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %m = tfuse.matmul %x, %w : (tensor<64x128xf32>, tensor<128x256xf32>) -> tensor<64x256xf32>
  %a = tfuse.add %m, %r : (tensor<64x256xf32>, tensor<64x256xf32>) -> tensor<64x256xf32>
  return %a : tensor<64x256xf32>
}

// A batched weight is not one GEMM over a collapsed batch.
// CHECK-LABEL: func.func @gemm_batched_weight
// CHECK-NOT:   tfuse.fusion gemm_epilogue
// REMARK: Function=gemm_batched_weight | Remark="gemm-layout: cuBLASLt epilogues apply to one GEMM over the collapsed batch: the weight must be 2-D and lhs not transposed"
func.func @gemm_batched_weight(%x: tensor<4x64x128xf32>, %w: tensor<4x128x256xf32>) -> tensor<4x64x256xf32> {
  %m = tfuse.matmul %x, %w : (tensor<4x64x128xf32>, tensor<4x128x256xf32>) -> tensor<4x64x256xf32>
  %r = tfuse.relu %m : tensor<4x64x256xf32>
  return %r : tensor<4x64x256xf32>
}

// Attention probabilities: scale + mask + softmax + dropout in one
// row-reduction kernel; the scale constant is rebuilt inside, the matmul
// producing the scores is not elementwise and stays outside.
// CHECK-LABEL: func.func @scale_mask_softmax_dropout
// CHECK:       %[[S:.*]] = tfuse.matmul
// CHECK-NEXT:  %[[F:.*]] = tfuse.fusion row_reduction(%[[S]], %arg2)
// CHECK-NEXT:  ^bb0(%[[A:.*]]: tensor<2x4x64x64xbf16>, %[[M:.*]]: tensor<2x1x1x64xbf16>):
// CHECK-NEXT:    %[[C:.*]] = tfuse.constant dense<1.250000e-01> : tensor<bf16>
// CHECK-NEXT:    %[[SC:.*]] = tfuse.mul %[[A]], %[[C]]
// CHECK-NEXT:    %[[MK:.*]] = tfuse.add %[[SC]], %[[M]]
// CHECK-NEXT:    %[[P:.*]] = tfuse.softmax %[[MK]] axis = 3
// CHECK-NEXT:    %[[D:.*]] = tfuse.dropout %[[P]] p = 1.000000e-01 seed = 7
// CHECK-NEXT:    tfuse.yield %[[D]]
// CHECK-NOT:   tfuse.constant
// REMARK: Function=scale_mask_softmax_dropout | Remark="not-elementwise: tfuse.matmul at {{.*}} is a contraction op; a row_reduction kernel takes only elementwise ops around its anchor"
func.func @scale_mask_softmax_dropout(%q: tensor<2x4x64x16xbf16>, %k: tensor<2x4x64x16xbf16>, %mask: tensor<2x1x1x64xbf16>) -> tensor<2x4x64x64xbf16> {
  %s = tfuse.matmul %q, %k transpose_rhs : (tensor<2x4x64x16xbf16>, tensor<2x4x64x16xbf16>) -> tensor<2x4x64x64xbf16>
  %c = tfuse.constant dense<0.125> : tensor<bf16>
  %sc = tfuse.mul %s, %c : (tensor<2x4x64x64xbf16>, tensor<bf16>) -> tensor<2x4x64x64xbf16>
  %m = tfuse.add %sc, %mask : (tensor<2x4x64x64xbf16>, tensor<2x1x1x64xbf16>) -> tensor<2x4x64x64xbf16>
  %p = tfuse.softmax %m axis = 3 : tensor<2x4x64x64xbf16>
  %d = tfuse.dropout %p p = 0.1 seed = 7 : tensor<2x4x64x64xbf16>
  return %d : tensor<2x4x64x64xbf16>
}

// Causal: the mask is computed from indices, so it joins the kernel although
// it broadcasts ([64, 64] into [2, 4, 64, 64]).
// CHECK-LABEL: func.func @causal_softmax
// CHECK:       tfuse.fusion row_reduction(%arg0)
// CHECK:         tfuse.causal_mask : tensor<64x64xf32>
// CHECK:         tfuse.softmax
func.func @causal_softmax(%s: tensor<2x4x64x64xf32>) -> tensor<2x4x64x64xf32> {
  %c = tfuse.causal_mask : tensor<64x64xf32>
  %m = tfuse.add %s, %c : (tensor<2x4x64x64xf32>, tensor<64x64xf32>) -> tensor<2x4x64x64xf32>
  %p = tfuse.softmax %m axis = 3 : tensor<2x4x64x64xf32>
  return %p : tensor<2x4x64x64xf32>
}

// Post-LN residual block: bias + dropout + residual + layer_norm; the
// residual sum is also read by a transpose, so the kernel yields it too
// (multi-output).
// CHECK-LABEL: func.func @bias_dropout_residual_layer_norm
// CHECK:       %[[F:.*]]:2 = tfuse.fusion row_reduction(%arg0, %arg1, %arg2, %arg3, %arg4)
// CHECK:         %[[B:.*]] = tfuse.add
// CHECK-NEXT:    %[[D:.*]] = tfuse.dropout %[[B]]
// CHECK-NEXT:    %[[R:.*]] = tfuse.add %[[D]]
// CHECK-NEXT:    %[[N:.*]] = tfuse.layer_norm %[[R]]
// CHECK-NEXT:    tfuse.yield %[[R]], %[[N]]
// CHECK:       %[[T:.*]] = tfuse.transpose %[[F]]#0
// CHECK:       return %[[F]]#1, %[[T]]
func.func @bias_dropout_residual_layer_norm(%y: tensor<128x1024xf32>, %bias: tensor<1024xf32>, %x: tensor<128x1024xf32>, %g: tensor<1024xf32>, %b: tensor<1024xf32>) -> (tensor<128x1024xf32>, tensor<1024x128xf32>) {
  %yb = tfuse.add %y, %bias : (tensor<128x1024xf32>, tensor<1024xf32>) -> tensor<128x1024xf32>
  %d = tfuse.dropout %yb p = 0.1 seed = 2 : tensor<128x1024xf32>
  %r = tfuse.add %d, %x : (tensor<128x1024xf32>, tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %n = tfuse.layer_norm %r gamma %g beta %b eps = 1.0e-5 : (tensor<128x1024xf32>, tensor<1024xf32>, tensor<1024xf32>) -> tensor<128x1024xf32>
  %t = tfuse.transpose %r perm = [1, 0] : tensor<128x1024xf32> -> tensor<1024x128xf32>
  return %n, %t : tensor<128x1024xf32>, tensor<1024x128xf32>
}

// The epilogue of a normalisation: the residual add after layer_norm joins
// the same kernel.
// CHECK-LABEL: func.func @layer_norm_epilogue
// CHECK:       tfuse.fusion row_reduction(%arg0, %arg1)
// CHECK:         tfuse.layer_norm
// CHECK-NEXT:    tfuse.add
// CHECK-NEXT:    tfuse.yield
func.func @layer_norm_epilogue(%x: tensor<128x1024xf32>, %r: tensor<128x1024xf32>) -> tensor<128x1024xf32> {
  %n = tfuse.layer_norm %x eps = 1.0e-5 : (tensor<128x1024xf32>) -> tensor<128x1024xf32>
  %o = tfuse.add %n, %r : (tensor<128x1024xf32>, tensor<128x1024xf32>) -> tensor<128x1024xf32>
  return %o : tensor<128x1024xf32>
}

// SwiGLU: silu(gate) * up is one loop kernel.
// CHECK-LABEL: func.func @swiglu
// CHECK:       tfuse.fusion loop(%arg0, %arg1)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    tfuse.silu
// CHECK-NEXT:    tfuse.mul
// CHECK-NEXT:    tfuse.yield
func.func @swiglu(%gate: tensor<8x11008xbf16>, %up: tensor<8x11008xbf16>) -> tensor<8x11008xbf16> {
  %s = tfuse.silu %gate : tensor<8x11008xbf16>
  %h = tfuse.mul %s, %up : (tensor<8x11008xbf16>, tensor<8x11008xbf16>) -> tensor<8x11008xbf16>
  return %h : tensor<8x11008xbf16>
}

// A producer of another shape is not part of this iteration space.
// CHECK-LABEL: func.func @broadcast_producer
// CHECK:       %[[E:.*]] = tfuse.exp %arg1 : tensor<1024xf32>
// CHECK-NEXT:  tfuse.fusion loop(%arg0, %[[E]])
// REMARK: Function=broadcast_producer | Remark="shape-mismatch: tfuse.exp at {{.*}} computes [1024] but the kernel iterates over [64, 1024]"
func.func @broadcast_producer(%x: tensor<64x1024xf32>, %b: tensor<1024xf32>) -> tensor<64x1024xf32> {
  %e = tfuse.exp %b : tensor<1024xf32>
  %a = tfuse.add %x, %e : (tensor<64x1024xf32>, tensor<1024xf32>) -> tensor<64x1024xf32>
  %t = tfuse.tanh %a : tensor<64x1024xf32>
  return %t : tensor<64x1024xf32>
}

// The fused kernel would run after the transpose that needs its input.
// CHECK-LABEL: func.func @order
// CHECK:       %[[E:.*]] = tfuse.exp %arg0
// CHECK-NEXT:  tfuse.transpose %[[E]]
// REMARK: Function=order | Remark="order: fusing tfuse.exp at {{.*}} would move a value past an op that uses it before the fused kernel could run"
func.func @order(%x: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %e = tfuse.exp %x : tensor<64x64xf32>
  %t = tfuse.transpose %e perm = [1, 0] : tensor<64x64xf32> -> tensor<64x64xf32>
  %n = tfuse.neg %t : tensor<64x64xf32>
  %a = tfuse.add %e, %n : (tensor<64x64xf32>, tensor<64x64xf32>) -> tensor<64x64xf32>
  return %a : tensor<64x64xf32>
}

// Every decision is kept on the function, with the numbers.
// CHECK-LABEL: func.func @decisions
// CHECK-SAME:  tfuse.fusion_decisions = [{bytes_apart = 1048576 : i64, bytes_merged = 524288 : i64, consumer = "tfuse.sigmoid at {{.*}}", fused = true, kind = "loop", producer = "tfuse.exp at {{.*}}", reason = "fused: 524288 bytes in {{.*}} us as one loop kernel against 1048576 bytes in {{.*}} us apart on a40", rule = "", us_apart = {{.*}}, us_merged = {{.*}}}]
func.func @decisions(%x: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %e = tfuse.exp %x : tensor<256x256xf32>
  %s = tfuse.sigmoid %e : tensor<256x256xf32>
  return %s : tensor<256x256xf32>
}

// A row too long for one block's registers (50257 f32) fuses too, priced as
// the looping kernel that recomputes the add in its second pass: merged, x
// (804112 B), b (201028 B) and the result (804112 B) plus x and b again
// (1005140 B) = 2814392 B; apart, the add moves 1809252 B and the softmax
// reads its input twice, 2412336 B: 4221588 B. On the A40 (654.24 GB/s
// achievable) the 4 rows' re-read (1005140 B) fits in half the 6 MB L2:
// 1809252 B / 654.24 GB/s + 1005140 B / (2.5 x 654.24 GB/s) + 1 us = 4.37996 us.
// CHECK-LABEL: func.func @long_row_softmax
// CHECK:       tfuse.fusion row_reduction(%arg0, %arg1) attributes {bytes_after = 2814392 : i64, bytes_before = 4221588 : i64, predicted_fused_us = 4.37996
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    tfuse.add
// CHECK-NEXT:    tfuse.softmax
func.func @long_row_softmax(%x: tensor<4x50257xf32>, %b: tensor<50257xf32>) -> tensor<4x50257xf32> {
  %a = tfuse.add %x, %b : (tensor<4x50257xf32>, tensor<50257xf32>) -> tensor<4x50257xf32>
  %s = tfuse.softmax %a axis = 1 : tensor<4x50257xf32>
  return %s : tensor<4x50257xf32>
}

// A reduce's kernel writes the one value of its row from thread 0, so a
// producer whose result is also read outside cannot join it (the emitter
// could not compile it: autodiff's layer_norm backward reads x both for its
// mean and for x - mean). A widening cast is recomputed in the reduce's
// kernel from the bf16 input instead (bytes by hand: 49152 x 2 read + 256
// written = 98560, against 49152 x 4 + 256 = 196864), and the loop kernel
// of x - mean takes the cast itself; x - mean (two f32 inputs' worth, not
// cheaper to recompute) stays out of the second reduce.
// CHECK-LABEL: func.func @reduce_shared_prologue
// CHECK-SAME:  bytes_apart = 196864 : i64, bytes_merged = 98560 : i64, consumer = "tfuse.reduce at {{[^"]*}}", fused = true, kind = "row_reduction", producer = "tfuse.cast at {{[^"]*}}", reason = "recomputed:
// CHECK-SAME:  consumer = "tfuse.reduce at {{[^"]*}}", fused = false, kind = "row_reduction", producer = "tfuse.sub at {{[^"]*}}", reason = "fusing tfuse.sub at {{[^"]*}} gives a kernel the compiler cannot emit: a tfuse.reduce kernel writes only its per-row values, and tfuse.sub's result is also read outside the kernel", rule = "no-emitter"
// CHECK:       tfuse.fusion row_reduction(%arg0)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    tfuse.cast
// CHECK-NEXT:    tfuse.reduce mean
// CHECK-NEXT:    tfuse.yield
// CHECK:       tfuse.fusion loop(%arg0, %{{.*}})
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    tfuse.cast
// CHECK-NEXT:    tfuse.sub
// CHECK-NEXT:    tfuse.yield
// CHECK:       tfuse.fusion row_reduction
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    tfuse.mul
// CHECK-NEXT:    tfuse.reduce mean
// CHECK-NEXT:    tfuse.yield
func.func @reduce_shared_prologue(%x: tensor<64x768xbf16>) -> (tensor<64x768xf32>, tensor<64x1xf32>) {
  %c = tfuse.cast %x : tensor<64x768xbf16> to tensor<64x768xf32>
  %m = tfuse.reduce mean %c axis = 1 keep_dims : tensor<64x768xf32> -> tensor<64x1xf32>
  %d = tfuse.sub %c, %m : (tensor<64x768xf32>, tensor<64x1xf32>) -> tensor<64x768xf32>
  %sq = tfuse.mul %d, %d : (tensor<64x768xf32>, tensor<64x768xf32>) -> tensor<64x768xf32>
  %v = tfuse.reduce mean %sq axis = 1 keep_dims : tensor<64x768xf32> -> tensor<64x1xf32>
  return %d, %v : tensor<64x768xf32>, tensor<64x1xf32>
}

// Row kernels store their outputs laid out as the row op's input: a causal
// mask [S, S] that the backward also reads cannot leave a softmax kernel over
// [B, H, S, S] (a training step's attention), so the kernel recomputes the
// mask from indices (131072 read + 131072 written, against 16384 more for
// reading it) and the mask stays its own kernel for the other reader; the
// add of the mask fuses.
// CHECK-LABEL: func.func @row_kernel_other_shape_output
// CHECK-SAME:  bytes_apart = 278528 : i64, bytes_merged = 262144 : i64, consumer = "tfuse.softmax at {{[^"]*}}", fused = true, kind = "row_reduction", producer = "tfuse.causal_mask at {{[^"]*}}", reason = "recomputed:
// CHECK:       %[[MASK:.*]] = tfuse.causal_mask
// CHECK:       tfuse.fusion row_reduction(%arg0)
// CHECK-NEXT:  ^bb0
// CHECK-NEXT:    tfuse.causal_mask
// CHECK-NEXT:    tfuse.add
// CHECK-NEXT:    tfuse.softmax
// CHECK-NEXT:    tfuse.yield
// CHECK:       return %{{.*}}, %[[MASK]]
func.func @row_kernel_other_shape_output(%s: tensor<2x4x64x64xf32>) -> (tensor<2x4x64x64xf32>, tensor<64x64xf32>) {
  %c = tfuse.causal_mask : tensor<64x64xf32>
  %a = tfuse.add %s, %c : (tensor<2x4x64x64xf32>, tensor<64x64xf32>) -> tensor<2x4x64x64xf32>
  %p = tfuse.softmax %a axis = 3 : tensor<2x4x64x64xf32>
  return %p, %c : tensor<2x4x64x64xf32>, tensor<64x64xf32>
}

// Recomputing is weighed against merging: the GEMM must read the cast's
// f32 result anyway, so the loop kernel that also computes exp writes it
// (2 + 4 + 4 bytes an element) rather than recompute it beside the cast's
// own kernel (2 + 4, then 2 + 4): merged, not recomputed. (Were the GEMM
// before exp, the merged kernel could not run before it, and recomputing
// would win over reading the f32 result.)
// CHECK-LABEL: func.func @recompute_loses_to_merge
// CHECK-SAME:  fused = true, kind = "loop", producer = "tfuse.cast at {{[^"]*}}", reason = "fused:
// CHECK-NOT:   recomputed
// CHECK:       %[[F:.*]]:2 = tfuse.fusion loop
// CHECK:         tfuse.cast
// CHECK-NEXT:    tfuse.exp
// CHECK-NEXT:    tfuse.yield
// CHECK:       tfuse.matmul %[[F]]#{{[01]}}
func.func @recompute_loses_to_merge(%x: tensor<512x1024xbf16>, %w: tensor<1024x1024xf32>) -> (tensor<512x1024xf32>, tensor<512x1024xf32>) {
  %c = tfuse.cast %x : tensor<512x1024xbf16> to tensor<512x1024xf32>
  %e = tfuse.exp %c : tensor<512x1024xf32>
  %m = tfuse.matmul %c, %w : (tensor<512x1024xf32>, tensor<1024x1024xf32>) -> tensor<512x1024xf32>
  return %m, %e : tensor<512x1024xf32>, tensor<512x1024xf32>
}
