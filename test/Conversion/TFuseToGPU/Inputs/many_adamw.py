"""Writes a function of N AdamW updates of [64] f32 parameters sharing lr and
step, every result returned: the optimizer of a model with N weights."""
import sys

n = int(sys.argv[1])
t = "tensor<64xf32>"
args = []
for i in range(n):
    args += [f"%p{i}: {t}", f"%g{i}: {t}", f"%m{i}: {t}", f"%v{i}: {t}"]
args += ["%lr: tensor<f32>", "%t: tensor<f32>"]
print(f"func.func @many({', '.join(args)}) -> ({', '.join([t] * 3 * n)}) {{")
results = []
for i in range(n):
    print(f"  %u{i}:3 = tfuse.adamw %p{i}, %g{i}, %m{i}, %v{i} lr %lr step %t "
          f"beta1 = 0.9 beta2 = 0.999 eps = 1.0e-08 weight_decay = 0.01 : "
          f"({t}, {t}, {t}, {t}, tensor<f32>, tensor<f32>) -> ({t}, {t}, {t})")
    results += [f"%u{i}#0", f"%u{i}#1", f"%u{i}#2"]
print(f"  return {', '.join(results)} : {', '.join([t] * 3 * n)}")
print("}")
