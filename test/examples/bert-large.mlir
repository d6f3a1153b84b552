// The BERT-Large example layer (examples/bert-large.*.mlir): the full-size
// files round-trip and decompose; the small ones evaluate before and
// after --tfuse-decompose-attention (exact attention, then the decomposition
// that rounds every step: the digests differ, within the decomposition's
// bound tested in ReferenceTest).

// RUN: tfuse-opt %examples/bert-large.f32.mlir | tfuse-opt \
// RUN:   | FileCheck %s --check-prefix=ROUNDTRIP '-D$T=f32' '-D$B=32' '-D$S=512'
// RUN: tfuse-opt %examples/bert-large.bf16.mlir | tfuse-opt \
// RUN:   | FileCheck %s --check-prefix=ROUNDTRIP '-D$T=bf16' '-D$B=32' '-D$S=512'
// RUN: tfuse-opt %examples/bert-large.f32.mlir --tfuse-decompose-attention \
// RUN:   | FileCheck %s --check-prefix=DECOMPOSED --implicit-check-not=tfuse.attention \
// RUN:       '-D$T=f32' '-D$B=32' '-D$S=512'
// RUN: tfuse-opt %examples/bert-large.bf16.mlir --tfuse-decompose-attention \
// RUN:   | FileCheck %s --check-prefix=DECOMPOSED --implicit-check-not=tfuse.attention \
// RUN:       '-D$T=bf16' '-D$B=32' '-D$S=512'

// RUN: tfuse-opt %examples/bert-large.bf16.small.mlir --tfuse-evaluate=seed=1 -o /dev/null > %t.bf16.before
// RUN: tfuse-opt %examples/bert-large.bf16.small.mlir --tfuse-decompose-attention --tfuse-evaluate=seed=1 -o /dev/null > %t.bf16.after
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=bf16' < %t.bf16.before
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=bf16' < %t.bf16.after
// RUN: tfuse-opt %examples/bert-large.f32.small.mlir --tfuse-evaluate=seed=1 -o /dev/null > %t.f32.before
// RUN: tfuse-opt %examples/bert-large.f32.small.mlir --tfuse-decompose-attention --tfuse-evaluate=seed=1 -o /dev/null > %t.f32.after
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=f32' < %t.f32.before
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=f32' < %t.f32.after

// ROUNDTRIP-LABEL: func.func @bert_large_layer(
// ROUNDTRIP-SAME:      %arg0: tensor<[[$B]]x[[$S]]x1024x[[$T]]>, %arg1: tensor<[[$B]]x1x1x[[$S]]x[[$T]]>
// ROUNDTRIP-SAME:      -> tensor<[[$B]]x[[$S]]x1024x[[$T]]>
// ROUNDTRIP:         %[[Q:[0-9]+]] = tfuse.matmul %arg0, %arg2 : (tensor<[[$B]]x[[$S]]x1024x[[$T]]>, tensor<1024x1024x[[$T]]>)
// ROUNDTRIP:         tfuse.add %[[Q]], %arg3
// ROUNDTRIP:         tfuse.reshape {{.*}} -> tensor<[[$B]]x[[$S]]x16x64x[[$T]]>
// ROUNDTRIP:         %[[QH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3] : {{.*}} -> tensor<[[$B]]x16x[[$S]]x64x[[$T]]>
// ROUNDTRIP:         %[[KH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3]
// ROUNDTRIP:         %[[VH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3]
// ROUNDTRIP:         %[[CTX:[0-9]+]] = tfuse.attention %[[QH]], %[[KH]], %[[VH]] mask %arg1 scale = 1.250000e-01 dropout_p = 1.000000e-01 seed = 1 :
// ROUNDTRIP-SAME:        -> tensor<[[$B]]x16x[[$S]]x64x[[$T]]>
// ROUNDTRIP:         tfuse.transpose %[[CTX]] perm = [0, 2, 1, 3] : {{.*}} -> tensor<[[$B]]x[[$S]]x16x64x[[$T]]>
// ROUNDTRIP:         %[[ATTN:[0-9]+]] = tfuse.dropout %{{[0-9]+}} p = 1.000000e-01 seed = 2
// ROUNDTRIP:         %[[RES1:[0-9]+]] = tfuse.add %[[ATTN]], %arg0
// ROUNDTRIP:         tfuse.layer_norm %[[RES1]] gamma %arg10 beta %arg11 eps = 9.9999999999999998E-13
// ROUNDTRIP:         tfuse.gelu %{{[0-9]+}} : tensor<[[$B]]x[[$S]]x4096x[[$T]]>
// ROUNDTRIP:         tfuse.dropout %{{[0-9]+}} p = 1.000000e-01 seed = 3
// ROUNDTRIP:         %[[OUT:[0-9]+]] = tfuse.layer_norm %{{[0-9]+}} gamma %arg16 beta %arg17 eps = 9.9999999999999998E-13
// ROUNDTRIP:         return %[[OUT]] : tensor<[[$B]]x[[$S]]x1024x[[$T]]>

// DECOMPOSED-LABEL: func.func @bert_large_layer(
// DECOMPOSED:         %[[SCORES:[0-9]+]] = tfuse.matmul %{{[0-9]+}}, %{{[0-9]+}} transpose_rhs : {{.*}} -> tensor<[[$B]]x16x[[$S]]x[[$S]]x[[$T]]>
// DECOMPOSED-NEXT:     %[[SCALE:[0-9]+]] = tfuse.constant dense<1.250000e-01> : tensor<[[$T]]>
// DECOMPOSED:         %[[SCALED:[0-9]+]] = tfuse.mul %[[SCORES]], %[[SCALE]]
// DECOMPOSED:         %[[MASKED:[0-9]+]] = tfuse.add %[[SCALED]], %arg1 : (tensor<[[$B]]x16x[[$S]]x[[$S]]x[[$T]]>, tensor<[[$B]]x1x1x[[$S]]x[[$T]]>)
// DECOMPOSED:         %[[PROBS:[0-9]+]] = tfuse.softmax %[[MASKED]] axis = 3
// DECOMPOSED:         %[[DROPPED:[0-9]+]] = tfuse.dropout %[[PROBS]] p = 1.000000e-01 seed = 1
// DECOMPOSED:         tfuse.matmul %[[DROPPED]], %{{[0-9]+}} : {{.*}} -> tensor<[[$B]]x16x[[$S]]x64x[[$T]]>
// DECOMPOSED:         tfuse.dropout %{{[0-9]+}} p = 1.000000e-01 seed = 2
// DECOMPOSED:         tfuse.dropout %{{[0-9]+}} p = 1.000000e-01 seed = 3
// DECOMPOSED:         return

// EVAL:     @bert_large_layer result 0: [2, 64, 1024] [[$T]] sum={{-?[0-9]\.[0-9]+e[-+][0-9]+}} max_abs={{[0-9]\.[0-9]+e[-+][0-9]+}} hash=0x{{[0-9a-f]+$}}
// EVAL-NOT: result
