# A function adding a non-splat constant of N f32 values: its plan.json holds
# the values, so plan.json is the largest file of the bundle (the file-size
# limit test fails the bundle's last file).
import sys

n = int(sys.argv[1])
t = "tensor<%dxf32>" % n
values = ", ".join("%.3f" % (0.125 * i) for i in range(n))
print("func.func @constant_add(%%x: %s) -> %s {" % (t, t))
print("  %%c = tfuse.constant dense<[%s]> : %s" % (values, t))
print("  %%y = tfuse.add %%x, %%c : (%s, %s) -> %s" % (t, t, t))
print("  return %%y : %s" % t)
print("}")
