// RUN: tfuse-opt %s --tfuse-autodiff | FileCheck %s

// The training step of each function, one op family at a time: every
// forward op is cloned first, then the backward in reverse order.

// Broadcast operands get their gradient summed over the broadcast axes:
// leading axes flattened and summed as one, size-1 axes kept.
// CHECK-LABEL: func.func @bias_train(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<3x1xf32>, %[[G:.*]]: tensor<2x3x4xf32>)
// CHECK-SAME: -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<4xf32>, tensor<3x1xf32>)
// CHECK-SAME: tfuse.training_step = {forward = "bias", gradients = array<i64: 0, 1, 2>, loss = "seed", recompute = "none", recompute_flops = 0 : i64, saved_bytes = 96 : i64}
// CHECK: %[[SUM:.*]] = tfuse.add %[[X]], %[[B]]
// CHECK: %[[Y:.*]] = tfuse.div %[[SUM]], %[[C]]
// d(a/c)/dc = -(g/c)(a/c)
// CHECK: %[[GC:.*]] = tfuse.div %[[G]], %[[C]]
// CHECK: %[[P:.*]] = tfuse.mul %[[GC]], %[[Y]]
// CHECK: %[[N:.*]] = tfuse.neg %[[P]]
// CHECK: %[[R0:.*]] = tfuse.reduce sum %[[N]] axis = 0 : tensor<2x3x4xf32> -> tensor<3x4xf32>
// CHECK: %[[DC:.*]] = tfuse.reduce sum %[[R0]] axis = 1 keep_dims : tensor<3x4xf32> -> tensor<3x1xf32>
// CHECK: %[[FLAT:.*]] = tfuse.reshape %[[GC]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[DB:.*]] = tfuse.reduce sum %[[FLAT]] axis = 0 : tensor<6x4xf32> -> tensor<4xf32>
// CHECK: return %[[Y]], %[[GC]], %[[DB]], %[[DC]]
func.func @bias(%x: tensor<2x3x4xf32>, %b: tensor<4xf32>, %c: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = tfuse.add %x, %b : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %1 = tfuse.div %0, %c : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// A transposed weight [N, K] shared by every batch: dX = dY W, and dW =
// dY^T X as one GEMM over the flattened rows.
// CHECK-LABEL: func.func @linear_train(
// CHECK-SAME: %[[X:.*]]: tensor<2x3x4xf32>, %[[W:.*]]: tensor<5x4xf32>, %[[G:.*]]: tensor<2x3x5xf32>)
// CHECK: tfuse.matmul %[[X]], %[[W]] transpose_rhs
// CHECK: %[[DX:.*]] = tfuse.matmul %[[G]], %[[W]] : (tensor<2x3x5xf32>, tensor<5x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[X2:.*]] = tfuse.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<6x4xf32>
// CHECK: %[[G2:.*]] = tfuse.reshape %[[G]] : tensor<2x3x5xf32> -> tensor<6x5xf32>
// CHECK: %[[DW:.*]] = tfuse.matmul %[[G2]], %[[X2]] transpose_lhs : (tensor<6x5xf32>, tensor<6x4xf32>) -> tensor<5x4xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DW]]
func.func @linear(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = tfuse.matmul %x, %w transpose_rhs : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// A batch dimension of size 1 that broadcasts: the batched product, then
// a sum over that dimension.
// CHECK-LABEL: func.func @batched_train(
// CHECK-SAME: %[[A:.*]]: tensor<2x3x4xf32>, %[[B:.*]]: tensor<1x4x5xf32>, %[[G:.*]]: tensor<2x3x5xf32>)
// CHECK: %[[DA:.*]] = tfuse.matmul %[[G]], %[[B]] transpose_rhs : (tensor<2x3x5xf32>, tensor<1x4x5xf32>) -> tensor<2x3x4xf32>
// CHECK: %[[P:.*]] = tfuse.matmul %[[A]], %[[G]] transpose_lhs : (tensor<2x3x4xf32>, tensor<2x3x5xf32>) -> tensor<2x4x5xf32>
// CHECK: %[[DB:.*]] = tfuse.reduce sum %[[P]] axis = 0 keep_dims : tensor<2x4x5xf32> -> tensor<1x4x5xf32>
// CHECK: return %{{.*}}, %[[DA]], %[[DB]]
func.func @batched(%a: tensor<2x3x4xf32>, %b: tensor<1x4x5xf32>) -> tensor<2x3x5xf32> {
  %0 = tfuse.matmul %a, %b : (tensor<2x3x4xf32>, tensor<1x4x5xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// gelu (erf): Phi(x) + x phi(x).
// CHECK-LABEL: func.func @gelu_train(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x8xf32>)
// CHECK: tfuse.constant dense<0.707106769> : tensor<f32>
// CHECK: tfuse.erf
// CHECK: tfuse.constant dense<-5.000000e-01> : tensor<f32>
// CHECK: tfuse.exp
// CHECK: tfuse.constant dense<0.398942292> : tensor<f32>
// CHECK: %[[D:.*]] = tfuse.add
// CHECK: %[[DX:.*]] = tfuse.mul %[[G]], %[[D]]
// CHECK: return %{{.*}}, %[[DX]]
func.func @gelu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.gelu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// gelu (tanh) uses its polynomial's derivative 1 + 3 c x^2.
// CHECK-LABEL: func.func @gelu_tanh_train(
// CHECK: tfuse.constant dense<4.471500e-02> : tensor<f32>
// CHECK: tfuse.tanh
// CHECK: tfuse.constant dense<1.341450e-01> : tensor<f32>
func.func @gelu_tanh(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.gelu %x approximate = tanh : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// relu passes the gradient where the input is positive.
// CHECK-LABEL: func.func @relu_train(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x8xf32>)
// CHECK: %[[S:.*]] = tfuse.step %[[X]] : tensor<4x8xf32>
// CHECK: %[[DX:.*]] = tfuse.mul %[[G]], %[[S]]
// CHECK: return %{{.*}}, %[[DX]]
func.func @relu(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.relu %x : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// layer_norm's input gradient is one tfuse.norm_grad (it recomputes the
// statistics from x); the gamma gradient sums dy (x - mean) rstd over the
// rows from its per-row mean and rstd, the beta gradient sums dy.
// CHECK-LABEL: func.func @ln_train(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[GAMMA:.*]]: tensor<8xf32>, %[[BETA:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<4x8xf32>)
// CHECK: tfuse.layer_norm %[[X]] gamma %[[GAMMA]] beta %[[BETA]]
// CHECK: %[[DX:.*]], %[[MEAN:.*]], %[[RSTD:.*]] = tfuse.norm_grad %[[X]], %[[G]] gamma %[[GAMMA]] eps = 1.000000e-05 : (tensor<4x8xf32>, tensor<4x8xf32>, tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK: %[[C:.*]] = tfuse.sub %[[X]], %[[MEAN]]
// CHECK: %[[XHAT:.*]] = tfuse.mul %[[C]], %[[RSTD]]
// CHECK: %[[GX:.*]] = tfuse.mul %[[G]], %[[XHAT]]
// CHECK: %[[DGAMMA:.*]] = tfuse.reduce sum %[[GX]] axis = 0 : tensor<4x8xf32> -> tensor<8xf32>
// CHECK: %[[DBETA:.*]] = tfuse.reduce sum %[[G]] axis = 0 : tensor<4x8xf32> -> tensor<8xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DGAMMA]], %[[DBETA]]
func.func @ln(%x: tensor<4x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.layer_norm %x gamma %g beta %b eps = 1.0e-05 : (tensor<4x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// A bf16 rms_norm: norm_grad (f32 inside) rounds dx to bf16 itself; the
// gamma gradient is summed in f32 and rounded back.
// CHECK-LABEL: func.func @rms_train(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xbf16>, %[[GAMMA:.*]]: tensor<8xbf16>, %[[G:.*]]: tensor<4x8xbf16>)
// CHECK: %[[DX:.*]], %{{.*}}, %[[RSTD:.*]] = tfuse.norm_grad %[[X]], %[[G]] gamma %[[GAMMA]] eps = {{.*}} rms : (tensor<4x8xbf16>, tensor<4x8xbf16>, tensor<8xbf16>) -> (tensor<4x8xbf16>, tensor<4x1xf32>, tensor<4x1xf32>)
// CHECK-NOT: tfuse.sub
// CHECK: %[[X32:.*]] = tfuse.cast %[[X]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: %[[XHAT:.*]] = tfuse.mul %[[X32]], %[[RSTD]]
// CHECK: %[[G32:.*]] = tfuse.cast %[[G]] : tensor<4x8xbf16> to tensor<4x8xf32>
// CHECK: %[[GX:.*]] = tfuse.mul %[[G32]], %[[XHAT]]
// CHECK: %[[SUM:.*]] = tfuse.reduce sum %[[GX]] axis = 0
// CHECK: %[[DGAMMA:.*]] = tfuse.cast %[[SUM]] : tensor<8xf32> to tensor<8xbf16>
// CHECK: return %{{.*}}, %[[DX]], %[[DGAMMA]]
func.func @rms(%x: tensor<4x8xbf16>, %g: tensor<8xbf16>) -> tensor<4x8xbf16> {
  %0 = tfuse.rms_norm %x gamma %g eps = 1.0e-06 : (tensor<4x8xbf16>, tensor<8xbf16>) -> tensor<4x8xbf16>
  return %0 : tensor<4x8xbf16>
}

// softmax: y (g - sum(g y)).
// CHECK-LABEL: func.func @softmax_train(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x8xf32>)
// CHECK: %[[Y:.*]] = tfuse.softmax %[[X]] axis = 1
// CHECK: %[[GY:.*]] = tfuse.mul %[[G]], %[[Y]]
// CHECK: %[[DOT:.*]] = tfuse.reduce sum %[[GY]] axis = 1 keep_dims
// CHECK: %[[D:.*]] = tfuse.sub %[[G]], %[[DOT]]
// CHECK: %[[DX:.*]] = tfuse.mul %[[Y]], %[[D]]
// CHECK: return %[[Y]], %[[DX]]
func.func @softmax(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.softmax %x axis = 1 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// dropout's backward regenerates the mask: the same p and seed.
// CHECK-LABEL: func.func @dropout_train(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[G:.*]]: tensor<4x8xf32>)
// CHECK-SAME: saved_bytes = 0
// CHECK: tfuse.dropout %[[X]] p = 1.000000e-01 seed = 7
// CHECK: %[[DX:.*]] = tfuse.dropout %[[G]] p = 1.000000e-01 seed = 7
// CHECK: return %{{.*}}, %[[DX]]
func.func @dropout(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = tfuse.dropout %x p = 1.000000e-01 seed = 7 : tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// concat slices its gradient, slice pads it with zeros (concat), transpose
// inverts its perm and split concatenates its pieces' gradients (zeros for a
// piece without one). A value used twice sums its gradients.
// CHECK-LABEL: func.func @split_train(
// CHECK-SAME: %[[X:.*]]: tensor<2x6xf32>, %[[GW:.*]]: tensor<2x3xf32>, %[[GS:.*]]: tensor<3xf32>)
// CHECK: %[[GV:.*]] = tfuse.reshape %[[GW]] : tensor<2x3xf32> -> tensor<6xf32>
// CHECK: %[[G0:.*]] = tfuse.slice %[[GV]] offsets = [0] : tensor<6xf32> -> tensor<3xf32>
// CHECK: %[[G1:.*]] = tfuse.slice %[[GV]] offsets = [3] : tensor<6xf32> -> tensor<3xf32>
// CHECK: %[[GU:.*]] = tfuse.add %[[G0]], %[[G1]]
// CHECK: %[[SUM:.*]] = tfuse.add %[[GS]], %[[GU]]
// CHECK: %[[PAD:.*]] = tfuse.constant dense<0.000000e+00> : tensor<1xf32>
// CHECK: %[[GR:.*]] = tfuse.concat %[[PAD]], %[[SUM]] axis = 0 : (tensor<1xf32>, tensor<3xf32>) -> tensor<4xf32>
// CHECK: %[[GT:.*]] = tfuse.reshape %[[GR]] : tensor<4xf32> -> tensor<2x2xf32>
// CHECK: %[[GA:.*]] = tfuse.transpose %[[GT]] perm = [1, 0]
// CHECK: %[[Z:.*]] = tfuse.constant dense<0.000000e+00> : tensor<2x4xf32>
// CHECK: %[[DX:.*]] = tfuse.concat %[[GA]], %[[Z]] axis = 1 : (tensor<2x2xf32>, tensor<2x4xf32>) -> tensor<2x6xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[DX]]
func.func @split(%x: tensor<2x6xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %a, %b = tfuse.split %x axis = 1 : tensor<2x6xf32> -> tensor<2x2xf32>, tensor<2x4xf32>
  %t = tfuse.transpose %a perm = [1, 0] : tensor<2x2xf32> -> tensor<2x2xf32>
  %r = tfuse.reshape %t : tensor<2x2xf32> -> tensor<4xf32>
  %s = tfuse.slice %r offsets = [1] : tensor<4xf32> -> tensor<3xf32>
  %u = tfuse.reshape %s : tensor<3xf32> -> tensor<3xf32>
  %v = tfuse.concat %u, %u axis = 0 : (tensor<3xf32>, tensor<3xf32>) -> tensor<6xf32>
  %w = tfuse.reshape %v : tensor<6xf32> -> tensor<2x3xf32>
  return %w, %s : tensor<2x3xf32>, tensor<3xf32>
}

// Attention is differentiated through its decomposition: the probabilities
// are saved, the scores' gradient is the softmax backward times the scale.
// CHECK-LABEL: func.func @attention_train(
// CHECK-SAME: %[[Q:.*]]: tensor<1x2x4x8xf32>, %[[K:.*]]: tensor<1x2x4x8xf32>, %[[V:.*]]: tensor<1x2x4x8xf32>, %[[G:.*]]: tensor<1x2x4x8xf32>)
// CHECK-NOT: tfuse.attention
// CHECK: %[[SCALE:.*]] = tfuse.constant dense<2.500000e-01> : tensor<f32>
// CHECK: tfuse.causal_mask
// CHECK: %[[P:.*]] = tfuse.softmax
// CHECK: %[[DP:.*]] = tfuse.matmul %[[G]], %[[V]] transpose_rhs
// CHECK: %[[DV:.*]] = tfuse.matmul %[[P]], %[[G]] transpose_lhs
// CHECK: %[[DS:.*]] = tfuse.mul %{{[0-9]+}}, %[[SCALE]] :
// CHECK: %[[DQ:.*]] = tfuse.matmul %[[DS]], %[[K]] :
// CHECK: %[[DK:.*]] = tfuse.matmul %[[DS]], %[[Q]] transpose_lhs
// CHECK: return %{{.*}}, %[[DQ]], %[[DK]], %[[DV]]
func.func @attention(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %o = tfuse.attention %q, %k, %v scale = 0.25 causal : (tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32>
  return %o : tensor<1x2x4x8xf32>
}

// Arguments that are not float tensors get no gradient; one that nothing
// uses gets zeros.
// CHECK-LABEL: func.func @unused_train(
// CHECK-SAME: -> (tensor<4xf32>, tensor<4xf32>, tensor<2xf32>)
// CHECK-SAME: gradients = array<i64: 0, 2>
// CHECK: %[[Z:.*]] = tfuse.constant dense<0.000000e+00> : tensor<2xf32>
// CHECK: return %{{.*}}, %{{.*}}, %[[Z]]
func.func @unused(%x: tensor<4xf32>, %ids: tensor<3xi32>, %y: tensor<2xf32>) -> tensor<4xf32> {
  %0 = tfuse.exp %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A bias over 4096 rows: its gradient sums the rows in two stages, blocks of
// 128 rows first, in f32 (one reduce of 8 strided rows of 4096 would leave
// the GPU idle), then casts back to bf16 once.
// CHECK-LABEL: func.func @long_bias_train(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<4096x8xbf16>, %[[B:[^:]*]]: tensor<8xbf16>, %[[G:[^:]*]]: tensor<4096x8xbf16>)
// CHECK:         %[[BLOCKS:.*]] = tfuse.reshape %[[G]] : tensor<4096x8xbf16> -> tensor<32x128x8xbf16>
// CHECK-NEXT:    %[[WIDE:.*]] = tfuse.cast %[[BLOCKS]] : tensor<32x128x8xbf16> to tensor<32x128x8xf32>
// CHECK-NEXT:    %[[PARTIAL:.*]] = tfuse.reduce sum %[[WIDE]] axis = 1 : tensor<32x128x8xf32> -> tensor<32x8xf32>
// CHECK-NEXT:    %[[SUM:.*]] = tfuse.reduce sum %[[PARTIAL]] axis = 0 : tensor<32x8xf32> -> tensor<8xf32>
// CHECK-NEXT:    %[[DB:.*]] = tfuse.cast %[[SUM]] : tensor<8xf32> to tensor<8xbf16>
// CHECK:         return %{{.*}}, %[[G]], %[[DB]]
func.func @long_bias(%x: tensor<4096x8xbf16>, %b: tensor<8xbf16>) -> tensor<4096x8xbf16> {
  %y = tfuse.add %x, %b : (tensor<4096x8xbf16>, tensor<8xbf16>) -> tensor<4096x8xbf16>
  return %y : tensor<4096x8xbf16>
}

// Rotary embeddings rotate each pair by theta = position x inv_freq: the
// gradient is the rotation by -theta, the same rope with the (constant)
// frequencies negated, at the same scaling.
// CHECK-LABEL: func.func @rope_train(
// CHECK-SAME:    %[[X:[^:]*]]: tensor<1x2x4x8xbf16>, %[[G:[^:]*]]: tensor<1x2x4x8xbf16>)
// CHECK:         %[[F:.*]] = tfuse.constant dense<[1.000000e+00, 2.500000e-01]> : tensor<2xf32>
// CHECK:         %[[R:.*]] = tfuse.rope %[[X]], %[[F]] attention_scaling = 1.250000e+00
// CHECK:         %[[NF:.*]] = tfuse.constant dense<[-1.000000e+00, -2.500000e-01]> : tensor<2xf32>
// CHECK:         %[[DX:.*]] = tfuse.rope %[[G]], %[[NF]] attention_scaling = 1.250000e+00
// CHECK:         return %[[R]], %[[DX]]
func.func @rope(%x: tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16> {
  %f = tfuse.constant dense<[1.0, 0.25]> : tensor<2xf32>
  %r = tfuse.rope %x, %f attention_scaling = 1.25 : tensor<1x2x4x8xbf16>, tensor<2xf32>
  return %r : tensor<1x2x4x8xbf16>
}

// Frequencies computed in the graph are negated by a tfuse.neg.
// CHECK-LABEL: func.func @rope_computed_frequencies_train(
// CHECK:         %[[F:.*]] = tfuse.mul
// CHECK:         tfuse.rope %{{.*}}, %[[F]]
// CHECK:         %[[NF:.*]] = tfuse.neg %[[F]]
// CHECK:         tfuse.rope %{{.*}}, %[[NF]]
func.func @rope_computed_frequencies(%x: tensor<1x2x4x8xbf16>) -> tensor<1x2x4x8xbf16> {
  %f = tfuse.constant dense<[1.0, 0.25]> : tensor<2xf32>
  %h = tfuse.constant dense<0.5> : tensor<2xf32>
  %g = tfuse.mul %f, %h : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r = tfuse.rope %x, %g attention_scaling = 1.0 : tensor<1x2x4x8xbf16>, tensor<2xf32>
  return %r : tensor<1x2x4x8xbf16>
}

// An embedding: the table's gradient is a tfuse.gather_grad of the result's
// gradient at the same indices (the integer indices get none). A table read
// twice sums the two.
// CHECK-LABEL: func.func @embedding_train(
// CHECK-SAME: %[[T:.*]]: tensor<50x8xbf16>, %[[IDS:.*]]: tensor<2x3xi64>, %[[P:.*]]: tensor<4xi64>, %[[G:.*]]: tensor<2x3x8xbf16>, %[[GP:.*]]: tensor<4x8xbf16>)
// CHECK-SAME: -> (tensor<2x3x8xbf16>, tensor<4x8xbf16>, tensor<50x8xbf16>)
// CHECK-SAME: gradients = array<i64: 0>
// CHECK:         %[[E:.*]] = tfuse.gather %[[T]][%[[IDS]]]
// CHECK:         %[[EP:.*]] = tfuse.gather %[[T]][%[[P]]]
// CHECK-DAG:     %[[D1:.*]] = tfuse.gather_grad %[[GP]][%[[P]]] : (tensor<4x8xbf16>, tensor<4xi64>) -> tensor<50x8xbf16>
// CHECK-DAG:     %[[D0:.*]] = tfuse.gather_grad %[[G]][%[[IDS]]] : (tensor<2x3x8xbf16>, tensor<2x3xi64>) -> tensor<50x8xbf16>
// CHECK:         %[[DT:.*]] = tfuse.add %[[D1]], %[[D0]]
// CHECK:         return %[[E]], %[[EP]], %[[DT]]
func.func @embedding(%t: tensor<50x8xbf16>, %ids: tensor<2x3xi64>, %p: tensor<4xi64>) -> (tensor<2x3x8xbf16>, tensor<4x8xbf16>) {
  %e = tfuse.gather %t[%ids] : (tensor<50x8xbf16>, tensor<2x3xi64>) -> tensor<2x3x8xbf16>
  %ep = tfuse.gather %t[%p] : (tensor<50x8xbf16>, tensor<4xi64>) -> tensor<4x8xbf16>
  return %e, %ep : tensor<2x3x8xbf16>, tensor<4x8xbf16>
}
