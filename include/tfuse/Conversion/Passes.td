//===- Passes.td - tfuse conversion passes -----------------*- tablegen -*-===//
//
// Lowerings from the tfuse dialect to upstream dialects.
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_CONVERSION_PASSES_TD
#define TFUSE_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TFuseLowerToGPU : Pass<"tfuse-lower-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Emit the GPU kernels of every function, as tfuse-compile "
                "does, into gpu.modules";
  let description = [{
    Runs the code generation of `tfuse-compile` on every function with a
    body, so that its kernels can be inspected and tested without a bundle.
    Standalone elementwise and row ops are first wrapped into one-op
    `tfuse.fusion`s (splat constants move inside). Each kernel of the
    function's schedule (the one the traffic report and plan.json use) then
    becomes one `gpu.func` kernel, named by the kernel's plan id (`loop_0`,
    `row_reduction_1`, `copy_2`, ...), in a `gpu.module @<function>_kernels`
    placed after the function; the module gets `gpu.container_module`.
    Every buffer is a flat memref argument, inputs first, then outputs.

    Each top-level op that launches work records it:
    - `tfuse.kernels = [@f_kernels::@loop_0]`: the gpu.funcs computing the
      op, one per result for a `tfuse.split`;
    - `tfuse.gemm = "gemm_3"`: a matmul or gemm_epilogue fusion, which runs
      as a cuBLASLt call and has no gpu.func.

    A `tfuse.attention` the flash-attention template covers
    (`checkAttentionKernel`) is one kernel, `attention_N`. Ops the emitters
    do not cover (gather, concat, other attention, reductions over another
    axis than the last) fail the pass with a diagnostic: decompose such
    attention first (`tfuse-decompose-attention`, with `keep-fused` to keep
    the rest). Rows too long for one block's registers run in the looping
    row kernel; fusion (`tfuse-fuse`) is optional.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::gpu::GPUDialect",
    "::mlir::LLVM::LLVMDialect",
    "::mlir::NVVM::NVVMDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::nvgpu::NVGPUDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // TFUSE_CONVERSION_PASSES_TD
