// The GPT-2-small example block (examples/gpt2.*.mlir): the full-size files
// round-trip and decompose; the small ones evaluate before and after
// --tfuse-decompose-attention (exact attention, then the decomposition that
// rounds every step: the digests differ, within the decomposition's bound
// tested in ReferenceTest).

// RUN: tfuse-opt %examples/gpt2.f32.mlir | tfuse-opt \
// RUN:   | FileCheck %s --check-prefix=ROUNDTRIP '-D$T=f32' '-D$B=8' '-D$S=1024'
// RUN: tfuse-opt %examples/gpt2.bf16.mlir | tfuse-opt \
// RUN:   | FileCheck %s --check-prefix=ROUNDTRIP '-D$T=bf16' '-D$B=8' '-D$S=1024'
// RUN: tfuse-opt %examples/gpt2.f32.mlir --tfuse-decompose-attention \
// RUN:   | FileCheck %s --check-prefix=DECOMPOSED --implicit-check-not=tfuse.attention \
// RUN:       '-D$T=f32' '-D$B=8' '-D$S=1024'
// RUN: tfuse-opt %examples/gpt2.bf16.mlir --tfuse-decompose-attention \
// RUN:   | FileCheck %s --check-prefix=DECOMPOSED --implicit-check-not=tfuse.attention \
// RUN:       '-D$T=bf16' '-D$B=8' '-D$S=1024'

// RUN: tfuse-opt %examples/gpt2.bf16.small.mlir --tfuse-evaluate=seed=1 -o /dev/null > %t.bf16.before
// RUN: tfuse-opt %examples/gpt2.bf16.small.mlir --tfuse-decompose-attention --tfuse-evaluate=seed=1 -o /dev/null > %t.bf16.after
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=bf16' < %t.bf16.before
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=bf16' < %t.bf16.after
// RUN: tfuse-opt %examples/gpt2.f32.small.mlir --tfuse-evaluate=seed=1 -o /dev/null > %t.f32.before
// RUN: tfuse-opt %examples/gpt2.f32.small.mlir --tfuse-decompose-attention --tfuse-evaluate=seed=1 -o /dev/null > %t.f32.after
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=f32' < %t.f32.before
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=f32' < %t.f32.after

// ROUNDTRIP-LABEL: func.func @gpt2_block(
// ROUNDTRIP-SAME:      %arg0: tensor<[[$B]]x[[$S]]x768x[[$T]]>
// ROUNDTRIP-SAME:      -> tensor<[[$B]]x[[$S]]x768x[[$T]]>
// ROUNDTRIP:         %[[H:[0-9]+]] = tfuse.layer_norm %arg0 gamma %arg1 beta %arg2 eps = 1.000000e-05
// ROUNDTRIP:         %[[QKV0:[0-9]+]] = tfuse.matmul %[[H]], %arg3 : {{.*}} -> tensor<[[$B]]x[[$S]]x2304x[[$T]]>
// ROUNDTRIP:         %[[QKV:[0-9]+]] = tfuse.add %[[QKV0]], %arg4
// ROUNDTRIP:         %[[SPLIT:[0-9]+]]:3 = tfuse.split %[[QKV]] axis = 2 : tensor<[[$B]]x[[$S]]x2304x[[$T]]> -> tensor<[[$B]]x[[$S]]x768x[[$T]]>, tensor<[[$B]]x[[$S]]x768x[[$T]]>, tensor<[[$B]]x[[$S]]x768x[[$T]]>
// ROUNDTRIP:         tfuse.reshape %[[SPLIT]]#0 : {{.*}} -> tensor<[[$B]]x[[$S]]x12x64x[[$T]]>
// ROUNDTRIP:         %[[QH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3] : {{.*}} -> tensor<[[$B]]x12x[[$S]]x64x[[$T]]>
// ROUNDTRIP:         tfuse.reshape %[[SPLIT]]#1
// ROUNDTRIP:         %[[KH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3]
// ROUNDTRIP:         tfuse.reshape %[[SPLIT]]#2
// ROUNDTRIP:         %[[VH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3]
// ROUNDTRIP:         %[[CTX:[0-9]+]] = tfuse.attention %[[QH]], %[[KH]], %[[VH]] scale = 1.250000e-01 causal dropout_p = 1.000000e-01 seed = 1 :
// ROUNDTRIP-SAME:        -> tensor<[[$B]]x12x[[$S]]x64x[[$T]]>
// ROUNDTRIP:         tfuse.transpose %[[CTX]] perm = [0, 2, 1, 3]
// ROUNDTRIP:         %[[ATTN:[0-9]+]] = tfuse.dropout %{{[0-9]+}} p = 1.000000e-01 seed = 2
// ROUNDTRIP:         %[[X1:[0-9]+]] = tfuse.add %arg0, %[[ATTN]]
// ROUNDTRIP:         tfuse.layer_norm %[[X1]] gamma %arg7 beta %arg8 eps = 1.000000e-05
// ROUNDTRIP:         tfuse.gelu %{{[0-9]+}} approximate = tanh : tensor<[[$B]]x[[$S]]x3072x[[$T]]>
// ROUNDTRIP:         %[[MLP:[0-9]+]] = tfuse.dropout %{{[0-9]+}} p = 1.000000e-01 seed = 3
// ROUNDTRIP:         %[[OUT:[0-9]+]] = tfuse.add %[[X1]], %[[MLP]]
// ROUNDTRIP:         return %[[OUT]]

// DECOMPOSED-LABEL: func.func @gpt2_block(
// DECOMPOSED:         %[[SCORES:[0-9]+]] = tfuse.matmul %{{[0-9]+}}, %{{[0-9]+}} transpose_rhs : {{.*}} -> tensor<[[$B]]x12x[[$S]]x[[$S]]x[[$T]]>
// DECOMPOSED-NEXT:     %[[SCALE:[0-9]+]] = tfuse.constant dense<1.250000e-01> : tensor<[[$T]]>
// DECOMPOSED:         %[[SCALED:[0-9]+]] = tfuse.mul %[[SCORES]], %[[SCALE]]
// DECOMPOSED:         %[[CAUSAL:[0-9]+]] = tfuse.causal_mask : tensor<[[$S]]x[[$S]]x[[$T]]>
// DECOMPOSED:         %[[MASKED:[0-9]+]] = tfuse.add %[[SCALED]], %[[CAUSAL]]
// DECOMPOSED:         %[[PROBS:[0-9]+]] = tfuse.softmax %[[MASKED]] axis = 3
// DECOMPOSED:         %[[DROPPED:[0-9]+]] = tfuse.dropout %[[PROBS]] p = 1.000000e-01 seed = 1
// DECOMPOSED:         tfuse.matmul %[[DROPPED]], %{{[0-9]+}} : {{.*}} -> tensor<[[$B]]x12x[[$S]]x64x[[$T]]>
// DECOMPOSED:         tfuse.dropout %{{[0-9]+}} p = 1.000000e-01 seed = 2
// DECOMPOSED:         tfuse.gelu %{{[0-9]+}} approximate = tanh
// DECOMPOSED:         tfuse.dropout %{{[0-9]+}} p = 1.000000e-01 seed = 3
// DECOMPOSED:         return

// EVAL:     @gpt2_block result 0: [2, 64, 768] [[$T]] sum={{-?[0-9]\.[0-9]+e[-+][0-9]+}} max_abs={{[0-9]\.[0-9]+e[-+][0-9]+}} hash=0x{{[0-9a-f]+$}}
// EVAL-NOT: result
