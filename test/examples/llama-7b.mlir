// The LLaMA-7B-like example block (examples/llama-7b.*.mlir): the full-size
// files round-trip and decompose; the small ones evaluate before and
// after --tfuse-decompose-attention (exact attention, then the decomposition
// that rounds every step: the digests differ, within the decomposition's
// bound tested in ReferenceTest). About 200 M weights: the four
// evaluations take about a minute.

// RUN: tfuse-opt %examples/llama-7b.f32.mlir | tfuse-opt \
// RUN:   | FileCheck %s --check-prefix=ROUNDTRIP '-D$T=f32' '-D$B=4' '-D$S=2048'
// RUN: tfuse-opt %examples/llama-7b.bf16.mlir | tfuse-opt \
// RUN:   | FileCheck %s --check-prefix=ROUNDTRIP '-D$T=bf16' '-D$B=4' '-D$S=2048'
// RUN: tfuse-opt %examples/llama-7b.f32.mlir --tfuse-decompose-attention \
// RUN:   | FileCheck %s --check-prefix=DECOMPOSED --implicit-check-not=tfuse.attention \
// RUN:       --implicit-check-not=tfuse.dropout '-D$T=f32' '-D$B=4' '-D$S=2048'
// RUN: tfuse-opt %examples/llama-7b.bf16.mlir --tfuse-decompose-attention \
// RUN:   | FileCheck %s --check-prefix=DECOMPOSED --implicit-check-not=tfuse.attention \
// RUN:       --implicit-check-not=tfuse.dropout '-D$T=bf16' '-D$B=4' '-D$S=2048'

// RUN: tfuse-opt %examples/llama-7b.bf16.small.mlir --tfuse-evaluate=seed=1 -o /dev/null > %t.bf16.before
// RUN: tfuse-opt %examples/llama-7b.bf16.small.mlir --tfuse-decompose-attention --tfuse-evaluate=seed=1 -o /dev/null > %t.bf16.after
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=bf16' < %t.bf16.before
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=bf16' < %t.bf16.after
// RUN: tfuse-opt %examples/llama-7b.f32.small.mlir --tfuse-evaluate=seed=1 -o /dev/null > %t.f32.before
// RUN: tfuse-opt %examples/llama-7b.f32.small.mlir --tfuse-decompose-attention --tfuse-evaluate=seed=1 -o /dev/null > %t.f32.after
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=f32' < %t.f32.before
// RUN: FileCheck %s --check-prefix=EVAL '-D$T=f32' < %t.f32.after

// ROUNDTRIP-LABEL: func.func @llama_7b_block(
// ROUNDTRIP-SAME:      %arg0: tensor<[[$B]]x[[$S]]x4096x[[$T]]>
// ROUNDTRIP-SAME:      -> tensor<[[$B]]x[[$S]]x4096x[[$T]]>
// ROUNDTRIP:         %[[H:[0-9]+]] = tfuse.rms_norm %arg0 gamma %arg1 eps = 9.9999999999999995E-7
// ROUNDTRIP:         tfuse.matmul %[[H]], %arg2 : (tensor<[[$B]]x[[$S]]x4096x[[$T]]>, tensor<4096x4096x[[$T]]>)
// ROUNDTRIP:         tfuse.reshape {{.*}} -> tensor<[[$B]]x[[$S]]x32x128x[[$T]]>
// ROUNDTRIP:         %[[QH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3] : {{.*}} -> tensor<[[$B]]x32x[[$S]]x128x[[$T]]>
// ROUNDTRIP:         tfuse.matmul %[[H]], %arg3
// ROUNDTRIP:         %[[KH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3]
// ROUNDTRIP:         tfuse.matmul %[[H]], %arg4
// ROUNDTRIP:         %[[VH:[0-9]+]] = tfuse.transpose %{{[0-9]+}} perm = [0, 2, 1, 3]
// ROUNDTRIP:         %[[CTX:[0-9]+]] = tfuse.attention %[[QH]], %[[KH]], %[[VH]] scale = 0.088388347648318447 causal :
// ROUNDTRIP-SAME:        -> tensor<[[$B]]x32x[[$S]]x128x[[$T]]>
// ROUNDTRIP:         tfuse.transpose %[[CTX]] perm = [0, 2, 1, 3]
// ROUNDTRIP:         %[[O:[0-9]+]] = tfuse.matmul %{{[0-9]+}}, %arg5
// ROUNDTRIP:         %[[X1:[0-9]+]] = tfuse.add %arg0, %[[O]]
// ROUNDTRIP:         %[[H2:[0-9]+]] = tfuse.rms_norm %[[X1]] gamma %arg6
// ROUNDTRIP:         %[[GATE:[0-9]+]] = tfuse.matmul %[[H2]], %arg7 : {{.*}} -> tensor<[[$B]]x[[$S]]x11008x[[$T]]>
// ROUNDTRIP:         %[[ACT:[0-9]+]] = tfuse.silu %[[GATE]]
// ROUNDTRIP:         %[[UP:[0-9]+]] = tfuse.matmul %[[H2]], %arg8
// ROUNDTRIP:         %[[HID:[0-9]+]] = tfuse.mul %[[ACT]], %[[UP]]
// ROUNDTRIP:         %[[DOWN:[0-9]+]] = tfuse.matmul %[[HID]], %arg9 : {{.*}} -> tensor<[[$B]]x[[$S]]x4096x[[$T]]>
// ROUNDTRIP:         %[[OUT:[0-9]+]] = tfuse.add %[[X1]], %[[DOWN]]
// ROUNDTRIP:         return %[[OUT]]

// DECOMPOSED-LABEL: func.func @llama_7b_block(
// DECOMPOSED:         %[[SCORES:[0-9]+]] = tfuse.matmul %{{[0-9]+}}, %{{[0-9]+}} transpose_rhs : {{.*}} -> tensor<[[$B]]x32x[[$S]]x[[$S]]x[[$T]]>
// DECOMPOSED-NEXT:     %[[SCALE:[0-9]+]] = tfuse.constant dense<{{.*}}> : tensor<[[$T]]>
// DECOMPOSED:         %[[SCALED:[0-9]+]] = tfuse.mul %[[SCORES]], %[[SCALE]]
// DECOMPOSED:         %[[CAUSAL:[0-9]+]] = tfuse.causal_mask : tensor<[[$S]]x[[$S]]x[[$T]]>
// DECOMPOSED:         %[[MASKED:[0-9]+]] = tfuse.add %[[SCALED]], %[[CAUSAL]]
// DECOMPOSED:         %[[PROBS:[0-9]+]] = tfuse.softmax %[[MASKED]] axis = 3
// DECOMPOSED:         tfuse.matmul %[[PROBS]], %{{[0-9]+}} : {{.*}} -> tensor<[[$B]]x32x[[$S]]x128x[[$T]]>
// DECOMPOSED:         tfuse.silu
// DECOMPOSED:         return

// EVAL:     @llama_7b_block result 0: [2, 64, 4096] [[$T]] sum={{-?[0-9]\.[0-9]+e[-+][0-9]+}} max_abs={{[0-9]\.[0-9]+e[-+][0-9]+}} hash=0x{{[0-9a-f]+$}}
// EVAL-NOT: result
