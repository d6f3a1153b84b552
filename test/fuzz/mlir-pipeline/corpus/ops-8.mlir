func.func @fusion_decisions() attributes {tfuse.fusion_decisions = [{fused = false, kind = "gemm_epilogue", producer = "p", consumer = "c", rule = "no_gemm_input", reason = "r"}, {fused = true, kind = "loop", producer = "p", consumer = "c", rule = "", reason = "r", bytes_apart = 8 : i64, bytes_merged = 4 : i64, us_apart = 2.0 : f64, us_merged = 1.0 : f64}]} {
  return
}
