//===- ShardTensorParallel.cpp - tfuse-shard-tensor-parallel ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// Rewrites a single-GPU layer function into one rank's program of
// Megatron-LM tensor parallelism. A lattice per value (replicated; split
// along an axis in logical segments; partial sum) is propagated over the
// function in program order, one rule per op family. Matmuls whose right
// operand is a function argument seed it: with a replicated left operand
// such a matmul is tentatively column split; one whose left operand is split
// along the contracted axis is row split, and its result is a partial sum
// that a tfuse.all_reduce completes right after it. A column split that
// reaches no row split is taken back, a fused projection cut by tfuse.split
// along its columns is refined into segments, and the propagation is run
// again until nothing changes. Then every op must have had a rule and every
// segment must be a multiple of the degree; otherwise the function is left
// as it was and the pass fails. docs/multi-gpu.md, "The sharding pass".
//
//===----------------------------------------------------------------------===//

#include "tfuse/Dialect/TFuse/TFuseDialect.h"
#include "tfuse/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace mlir::tfuse {
#define GEN_PASS_DEF_TFUSESHARDTENSORPARALLEL
#include "tfuse/Transforms/Passes.h.inc"
} // namespace mlir::tfuse

using namespace mlir;
using namespace mlir::tfuse;

namespace {

//===----------------------------------------------------------------------===//
// The lattice
//===----------------------------------------------------------------------===//

/// How one value is laid out across the ranks. `Split`: along `axis`, whose
/// logical extent is cut into consecutive `segments`; rank r holds the r-th
/// 1/degree of every segment, concatenated in segment order. `Partial`: every
/// rank holds a summand of the value.
struct Sharding {
  enum Kind { Replicated, Split, Partial } kind = Replicated;
  int64_t axis = -1;
  SmallVector<int64_t> segments;
  /// The tentative column-split matmuls this value derives from (sorted).
  SmallVector<unsigned> origins;

  static Sharding split(int64_t axis, ArrayRef<int64_t> segments,
                        ArrayRef<unsigned> origins) {
    Sharding s;
    s.kind = Split;
    s.axis = axis;
    s.segments.assign(segments.begin(), segments.end());
    s.origins.assign(origins.begin(), origins.end());
    return s;
  }
  bool isSplit() const { return kind == Split; }
};

std::string formatList(ArrayRef<int64_t> values) {
  std::string text = "[";
  llvm::interleave(
      values, [&](int64_t v) { text += std::to_string(v); },
      [&] { text += ", "; });
  return text + "]";
}

std::string describe(const Sharding &s) {
  if (s.kind == Sharding::Partial)
    return "a partial sum";
  if (s.kind == Sharding::Replicated)
    return "replicated";
  return "split along axis " + std::to_string(s.axis) + " in segments " +
         formatList(s.segments);
}

void unite(SmallVector<unsigned> &into, ArrayRef<unsigned> from) {
  for (unsigned o : from)
    if (!llvm::is_contained(into, o))
      into.push_back(o);
  llvm::sort(into);
}

int64_t product(ArrayRef<int64_t> dims) {
  return std::accumulate(dims.begin(), dims.end(), int64_t{1},
                         std::multiplies<int64_t>());
}

ArrayRef<int64_t> shapeOf(Value v) {
  return cast<RankedTensorType>(v.getType()).getShape();
}

/// The axis and segments of a reshape's result for an input split along
/// `axis`, or failure when the split axis does not stay the outermost factor
/// of one output dimension (or of a group of them). Segments are logical:
/// divisibility by the degree is checked later.
FailureOr<std::pair<int64_t, SmallVector<int64_t>>>
mapThroughReshape(ArrayRef<int64_t> in, ArrayRef<int64_t> out, int64_t axis,
                  ArrayRef<int64_t> segments) {
  int64_t before = product(in.take_front(axis));
  int64_t extent = in[axis];
  int64_t pre = 1;
  for (int64_t b = 0, e = out.size(); b < e; ++b) {
    if (pre == before && out[b] != 1) {
      int64_t m = out[b];
      SmallVector<int64_t> mapped;
      if (m == extent)
        return std::make_pair(b, SmallVector<int64_t>(segments));
      if (m < extent && extent % m == 0) {
        // The axis is cut into [m, inner...]: inner must be whole dims.
        int64_t inner = extent / m;
        int64_t acc = 1;
        int64_t c = b + 1;
        for (; c < e && acc < inner; ++c)
          acc *= out[c];
        if (acc != inner)
          return failure();
        for (int64_t s : segments) {
          if (s % inner != 0)
            return failure();
          mapped.push_back(s / inner);
        }
        return std::make_pair(b, mapped);
      }
      if (m > extent && m % extent == 0) {
        // The axis is the outermost of the dims merged into m.
        int64_t inner = m / extent;
        int64_t acc = 1;
        int64_t c = axis + 1;
        for (; c < static_cast<int64_t>(in.size()) && acc < inner; ++c)
          acc *= in[c];
        if (acc != inner)
          return failure();
        for (int64_t s : segments)
          mapped.push_back(s * inner);
        return std::make_pair(b, mapped);
      }
      return failure();
    }
    pre *= out[b];
    if (pre > before)
      break;
  }
  return failure();
}

//===----------------------------------------------------------------------===//
// One propagation over a function
//===----------------------------------------------------------------------===//

/// What carries over from one propagation to the next.
struct Decisions {
  /// Matmuls that stay replicated: their column split reached no row split.
  DenseSet<Operation *> reverted;
  /// Segments of a column split refined by a tfuse.split of its result.
  DenseMap<Operation *, SmallVector<int64_t>> segments;
};

struct Failure {
  Operation *op;
  std::string message;
};

class Propagation {
public:
  Propagation(func::FuncOp func, const Decisions &decisions)
      : func(func), body(&func.getBody().front()), decisions(decisions) {}

  void run() {
    for (Operation &op : *body)
      visit(&op);
  }

  /// The state of a value as its users see it: a partial sum is completed
  /// by an all-reduce before any use.
  Sharding get(Value v) const {
    auto it = states.find(v);
    if (it == states.end() || it->second.kind == Sharding::Partial)
      return Sharding();
    return it->second;
  }

  func::FuncOp func;
  Block *body;
  const Decisions &decisions;
  DenseMap<Value, Sharding> states;
  /// Arguments read as replicated (so they can no longer be split).
  DenseSet<Value> replicatedArgs;
  /// Tentative column-split matmuls, by origin number.
  SmallVector<Operation *> columns;
  /// Origins whose split reached a row-split matmul.
  DenseSet<unsigned> useful;
  SmallVector<Value> partials;
  SmallVector<Failure> failures;
  DenseMap<Operation *, SmallVector<int64_t>> refinements;

private:
  bool isArgument(Value v) const {
    auto arg = dyn_cast<BlockArgument>(v);
    return arg && arg.getOwner() == body;
  }

  /// Whether argument `v` may still take a split.
  bool canSplitArgument(Value v) const {
    return isArgument(v) && !states.count(v) && !replicatedArgs.count(v);
  }

  void fail(Operation *op, const Twine &message) {
    failures.push_back({op, message.str()});
    for (Value r : op->getResults())
      states.erase(r);
  }

  void setAll(Operation *op, const Sharding &s) {
    for (Value r : op->getResults()) {
      if (s.kind == Sharding::Replicated)
        states.erase(r);
      else
        states[r] = s;
    }
    if (s.kind == Sharding::Partial)
      for (Value r : op->getResults())
        partials.push_back(r);
  }

  /// The first operand split, if any, with its index.
  std::optional<unsigned> firstSplit(Operation *op) const {
    for (auto [i, operand] : llvm::enumerate(op->getOperands()))
      if (get(operand).isSplit())
        return i;
    return std::nullopt;
  }

  std::string operandText(Operation *op, unsigned i) const {
    return "operand #" + std::to_string(i) + " is " +
           describe(get(op->getOperand(i)));
  }

  void visit(Operation *op) {
    dispatch(op);
    // Arguments an op read while they were replicated stay replicated.
    for (Value operand : op->getOperands())
      if (isArgument(operand) && !states.count(operand))
        replicatedArgs.insert(operand);
  }

  void dispatch(Operation *op) {
    if (isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp>(op))
      return visitElementwise(op);
    if (isa<NegOp, ExpOp, LogOp, TanhOp, ErfOp, SqrtOp, RsqrtOp, SigmoidOp,
            ReluOp, SiluOp, StepOp, GeluOp, CastOp, DropoutOp>(op))
      return setAll(op, get(op->getOperand(0)));
    if (auto matmul = dyn_cast<MatmulOp>(op))
      return visitMatmul(matmul);
    if (auto reshape = dyn_cast<ReshapeOp>(op))
      return visitReshape(reshape);
    if (auto transpose = dyn_cast<TransposeOp>(op))
      return visitTranspose(transpose);
    if (auto split = dyn_cast<SplitOp>(op))
      return visitSplit(split);
    if (auto slice = dyn_cast<SliceOp>(op))
      return visitSlice(slice);
    if (auto concat = dyn_cast<ConcatOp>(op))
      return visitConcat(concat);
    if (auto reduce = dyn_cast<ReduceOp>(op))
      return visitReduce(reduce);
    if (auto softmax = dyn_cast<SoftmaxOp>(op))
      return visitAlongAxis(op, softmax.getAxis(), "takes its softmax");
    if (isa<LayerNormOp, RmsNormOp>(op))
      return visitNorm(op);
    if (auto attention = dyn_cast<AttentionOp>(op))
      return visitAttention(attention);
    if (auto rope = dyn_cast<RopeOp>(op))
      return visitRope(rope);
    if (isa<func::ReturnOp>(op)) {
      if (std::optional<unsigned> i = firstSplit(op))
        fail(op, "returns a split value (" + operandText(op, *i) +
                     "): the sharded function would change its result type");
      return;
    }
    // Any other op is computed alike on every rank from replicated inputs.
    if (std::optional<unsigned> i = firstSplit(op))
      return fail(op, "has no sharding rule: " + operandText(op, *i));
    setAll(op, Sharding());
  }

  /// Makes replicated operand `v` of rank `rank` agree with a split along
  /// axis `axis` of a result of rank `resultRank`: fine when it broadcasts
  /// along that axis; an argument with the full extent is split itself.
  LogicalResult alignReplicated(Value v, int64_t resultRank, int64_t axis,
                                const Sharding &split) {
    int64_t rank = shapeOf(v).size();
    int64_t d = axis - (resultRank - rank);
    if (d < 0 || shapeOf(v)[d] == 1)
      return success();
    if (!canSplitArgument(v))
      return failure();
    states[v] = Sharding::split(d, split.segments, split.origins);
    return success();
  }

  void visitElementwise(Operation *op) {
    int64_t rank = shapeOf(op->getResult(0)).size();
    std::optional<Sharding> result;
    for (Value operand : op->getOperands()) {
      Sharding s = get(operand);
      if (!s.isSplit())
        continue;
      int64_t axis = s.axis + rank - shapeOf(operand).size();
      Sharding mapped = Sharding::split(axis, s.segments, s.origins);
      if (!result) {
        result = mapped;
        continue;
      }
      if (result->axis != axis || result->segments != mapped.segments)
        return fail(op, "has operands split differently (" + describe(*result) +
                            " and " + describe(mapped) +
                            " in the result's axes)");
      unite(result->origins, s.origins);
    }
    if (!result)
      return setAll(op, Sharding());
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      if (get(operand).isSplit())
        continue;
      if (failed(alignReplicated(operand, rank, result->axis, *result)))
        return fail(op, "operand #" + std::to_string(i) +
                            " is replicated with the full extent of the "
                            "split axis, and the other is " +
                            describe(*result));
    }
    setAll(op, *result);
  }

  void visitMatmul(MatmulOp op) {
    Value lhs = op.getLhs(), rhs = op.getRhs();
    int64_t rl = shapeOf(lhs).size(), rr = shapeOf(rhs).size();
    int64_t rank = shapeOf(op.getResult()).size();
    int64_t kL = op.getTransposeLhs() ? rl - 2 : rl - 1;
    int64_t mL = op.getTransposeLhs() ? rl - 1 : rl - 2;
    int64_t kR = op.getTransposeRhs() ? rr - 1 : rr - 2;
    int64_t nR = op.getTransposeRhs() ? rr - 2 : rr - 1;
    Sharding sl = get(lhs);

    // Seeds: a weight argument not yet read.
    if (rr == 2 && canSplitArgument(rhs)) {
      if (!sl.isSplit() && !decisions.reverted.count(op)) {
        unsigned origin = columns.size();
        columns.push_back(op);
        SmallVector<int64_t> segments =
            decisions.segments.lookup(op.getOperation());
        if (segments.empty())
          segments.push_back(shapeOf(rhs)[nR]);
        states[rhs] = Sharding::split(nR, segments, {origin});
      } else if (sl.isSplit() && sl.axis == kL) {
        for (unsigned o : sl.origins)
          useful.insert(o);
        states[rhs] = Sharding::split(kR, sl.segments, sl.origins);
      }
    }
    Sharding sr = get(rhs);
    if (!sl.isSplit() && !sr.isSplit())
      return setAll(op, Sharding());

    // Where each operand's split lands in the result (-1: contracted).
    auto lhsAxis = [&](int64_t a) -> int64_t {
      if (a == kL)
        return -1;
      if (a == mL)
        return rank - 2;
      return a + rank - rl;
    };
    auto rhsAxis = [&](int64_t a) -> int64_t {
      if (a == kR)
        return -1;
      if (a == nR)
        return rank - 1;
      return a + rank - rr;
    };
    std::optional<int64_t> al, ar;
    if (sl.isSplit())
      al = lhsAxis(sl.axis);
    if (sr.isSplit())
      ar = rhsAxis(sr.axis);
    std::string text =
        "(left " + describe(sl) + ", right " + describe(sr) + ")";
    if ((al && *al == -1) || (ar && *ar == -1)) {
      if (al && ar && *al == -1 && *ar == -1 && sl.segments == sr.segments) {
        Sharding partial;
        partial.kind = Sharding::Partial;
        return setAll(op, partial);
      }
      return fail(op, "contracts a split axis with one that is not split "
                      "alike " +
                          text);
    }
    if (al && ar && (*al != *ar || sl.segments != sr.segments))
      return fail(op, "has operands split along different axes " + text);
    const Sharding &s = al ? sl : sr;
    Sharding result = Sharding::split(al ? *al : *ar, s.segments, s.origins);
    if (al && ar)
      unite(result.origins, sr.origins);
    // A replicated operand must broadcast along a split batch axis.
    if (result.axis < rank - 2) {
      Value other = al && !ar ? rhs : (ar && !al ? lhs : Value());
      if (other && failed(alignReplicated(other, rank, result.axis, result)))
        return fail(op, "has a replicated operand with the full extent of "
                        "the split batch axis " +
                            text);
    }
    setAll(op, result);
  }

  void visitReshape(ReshapeOp op) {
    Sharding s = get(op.getInput());
    if (!s.isSplit())
      return setAll(op, Sharding());
    auto mapped = mapThroughReshape(
        shapeOf(op.getInput()), shapeOf(op.getResult()), s.axis, s.segments);
    if (failed(mapped))
      return fail(op, "does not keep the split axis as the outermost factor "
                      "of a result dimension (input " +
                          describe(s) + ")");
    setAll(op, Sharding::split(mapped->first, mapped->second, s.origins));
  }

  void visitTranspose(TransposeOp op) {
    Sharding s = get(op.getInput());
    if (!s.isSplit())
      return setAll(op, Sharding());
    ArrayRef<int64_t> perm = op.getPerm();
    int64_t axis = llvm::find(perm, s.axis) - perm.begin();
    setAll(op, Sharding::split(axis, s.segments, s.origins));
  }

  void visitSplit(SplitOp op) {
    Sharding s = get(op.getInput());
    if (!s.isSplit())
      return setAll(op, Sharding());
    if (static_cast<int64_t>(op.getAxis()) != s.axis) {
      for (Value r : op.getResults())
        states[r] = s;
      return;
    }
    // Along the split axis: every piece must be whole segments.
    SmallVector<SmallVector<int64_t>> pieces;
    size_t next = 0;
    bool aligned = true;
    for (Value r : op.getResults()) {
      int64_t want = shapeOf(r)[s.axis], got = 0;
      SmallVector<int64_t> segments;
      while (got < want && next < s.segments.size()) {
        got += s.segments[next];
        segments.push_back(s.segments[next++]);
      }
      aligned &= got == want;
      pieces.push_back(segments);
    }
    if (!aligned) {
      // A column split cut here: refine its segments to the pieces.
      if (s.origins.size() == 1) {
        Operation *column = columns[s.origins.front()];
        SmallVector<int64_t> current = decisions.segments.lookup(column);
        if (current.empty())
          current.push_back(product(s.segments));
        if (current == s.segments) {
          SmallVector<int64_t> bounds;
          int64_t acc = 0;
          for (int64_t v : s.segments)
            bounds.push_back(acc += v);
          acc = 0;
          for (Value r : op.getResults())
            bounds.push_back(acc += shapeOf(r)[s.axis]);
          llvm::sort(bounds);
          bounds.erase(std::unique(bounds.begin(), bounds.end()), bounds.end());
          SmallVector<int64_t> refined;
          int64_t prev = 0;
          for (int64_t b : bounds) {
            refined.push_back(b - prev);
            prev = b;
          }
          refinements[column] = refined;
        }
      }
      return fail(op, "cuts the split axis inside a segment (input " +
                          describe(s) + ")");
    }
    for (auto [r, segments] : llvm::zip(op.getResults(), pieces))
      states[r] = Sharding::split(s.axis, segments, s.origins);
  }

  void visitSlice(SliceOp op) {
    Sharding s = get(op.getInput());
    if (!s.isSplit())
      return setAll(op, Sharding());
    if (shapeOf(op.getResult())[s.axis] != shapeOf(op.getInput())[s.axis])
      return fail(op, "slices the split axis (input " + describe(s) + ")");
    setAll(op, s);
  }

  void visitConcat(ConcatOp op) {
    std::optional<unsigned> first = firstSplit(op);
    if (!first)
      return setAll(op, Sharding());
    Sharding s = get(op.getOperand(*first));
    Sharding result = Sharding::split(s.axis, {}, {});
    for (auto [i, operand] : llvm::enumerate(op.getInputs())) {
      Sharding o = get(operand);
      if (!o.isSplit() || o.axis != s.axis ||
          (static_cast<int64_t>(op.getAxis()) != s.axis &&
           o.segments != s.segments))
        return fail(op, "joins operands split differently (" +
                            operandText(op, i) + ", operand #" +
                            std::to_string(*first) + " is " + describe(s) +
                            ")");
      unite(result.origins, o.origins);
      if (static_cast<int64_t>(op.getAxis()) == s.axis)
        result.segments.append(o.segments);
    }
    if (static_cast<int64_t>(op.getAxis()) != s.axis)
      result.segments = s.segments;
    setAll(op, result);
  }

  void visitReduce(ReduceOp op) {
    Sharding s = get(op.getInput());
    if (!s.isSplit())
      return setAll(op, Sharding());
    int64_t axis = op.getAxis();
    if (axis == s.axis) {
      if (op.getKind() != ReduceKind::sum)
        return fail(op, "reduces along the split axis with other than a sum "
                        "(input " +
                            describe(s) + ")");
      Sharding partial;
      partial.kind = Sharding::Partial;
      return setAll(op, partial);
    }
    int64_t out = s.axis;
    if (!op.getKeepDims() && axis < s.axis)
      --out;
    setAll(op, Sharding::split(out, s.segments, s.origins));
  }

  void visitAlongAxis(Operation *op, int64_t axis, StringRef what) {
    Sharding s = get(op->getOperand(0));
    if (s.isSplit() && s.axis == axis)
      return fail(op,
                  what + " along the split axis (input " + describe(s) + ")");
    setAll(op, s);
  }

  void visitNorm(Operation *op) {
    Sharding s = get(op->getOperand(0));
    int64_t last = shapeOf(op->getOperand(0)).size() - 1;
    if (s.isSplit() && s.axis == last)
      return fail(op,
                  "normalises over the split axis (input " + describe(s) + ")");
    for (unsigned i = 1; i < op->getNumOperands(); ++i)
      if (get(op->getOperand(i)).isSplit())
        return fail(op,
                    "has a split scale or shift (" + operandText(op, i) + ")");
    setAll(op, s);
  }

  void visitAttention(AttentionOp op) {
    Sharding q = get(op.getQuery()), k = get(op.getKey()),
             v = get(op.getValue());
    Value mask = op.getMask();
    bool anyMask = mask && get(mask).isSplit();
    if (!q.isSplit() && !k.isSplit() && !v.isSplit() && !anyMask)
      return setAll(op, Sharding());
    std::string text = "(query " + describe(q) + ", key " + describe(k) +
                       ", value " + describe(v) + ")";
    // Heads (axis 1) or batch (axis 0), the same for query, key and value.
    if (!q.isSplit() || !k.isSplit() || !v.isSplit() || q.axis != k.axis ||
        q.axis != v.axis || q.axis > 1)
      return fail(op, "needs query, key and value split alike along the "
                      "batch or head axis " +
                          text);
    if (q.axis == 0 && (q.segments != k.segments || q.segments != v.segments))
      return fail(op, "has query, key and value split in different batch "
                      "segments " +
                          text);
    if (q.axis == 1 && (q.segments.size() != 1 || k.segments.size() != 1 ||
                        v.segments != k.segments))
      return fail(op, "needs the heads of query, key and value each in one "
                      "segment " +
                          text);
    Sharding result = Sharding::split(q.axis, q.segments, q.origins);
    unite(result.origins, k.origins);
    unite(result.origins, v.origins);
    if (mask) {
      Sharding m = get(mask);
      int64_t d = q.axis - (4 - static_cast<int64_t>(shapeOf(mask).size()));
      if (m.isSplit() ? (m.axis != d || m.segments != q.segments)
                      : failed(alignReplicated(mask, 4, q.axis, result)))
        return fail(op, "has a mask that is not split along the query's "
                        "axis (mask " +
                            describe(m) + ", query " + describe(q) + ")");
    }
    Sharding out = result;
    for (Value r : op->getResults())
      states[r] = out;
  }

  void visitRope(RopeOp op) {
    Sharding s = get(op.getInput());
    int64_t rank = shapeOf(op.getInput()).size();
    if (s.isSplit() && s.axis >= rank - 2)
      return fail(op,
                  "rotates along the split axis (input " + describe(s) + ")");
    if (get(op.getInvFreq()).isSplit())
      return fail(op, "has split frequencies");
    setAll(op, s);
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

RankedTensorType localType(Type type, const Sharding &s, int64_t degree) {
  auto tensor = cast<RankedTensorType>(type);
  SmallVector<int64_t> shape(tensor.getShape());
  shape[s.axis] /= degree;
  return tensor.clone(shape);
}

struct TFuseShardTensorParallelPass
    : mlir::tfuse::impl::TFuseShardTensorParallelBase<
          TFuseShardTensorParallelPass> {
  using Base::Base;

  void runOnOperation() override {
    if (degree < 1) {
      getOperation().emitError()
          << "tfuse-shard-tensor-parallel: degree must be at least 1, got "
          << static_cast<int64_t>(degree);
      return signalPassFailure();
    }
    if (degree == 1)
      return;
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal())
        ok &= succeeded(shard(func));
    if (!ok)
      signalPassFailure();
  }

  LogicalResult shard(func::FuncOp func) {
    int64_t n = degree;
    if (!func.getBody().hasOneBlock())
      return func.emitError("tfuse-shard-tensor-parallel: the function has "
                            "more than one block");
    if (auto done =
            func->getAttrOfType<IntegerAttr>("tfuse.tensor_parallel_degree"))
      return func.emitError()
             << "tfuse-shard-tensor-parallel: the function is already one "
                "rank's program (tfuse.tensor_parallel_degree = "
             << done.getInt() << ")";
    Decisions decisions;
    std::unique_ptr<Propagation> run;
    // Each round either refines a segment list or takes back a column split
    // (and there are finitely many of both), so this ends.
    while (true) {
      run = std::make_unique<Propagation>(func, decisions);
      run->run();
      if (!run->refinements.empty()) {
        for (auto &[op, segments] : run->refinements)
          decisions.segments[op] = segments;
        continue;
      }
      bool changed = false;
      for (auto [origin, op] : llvm::enumerate(run->columns))
        if (!run->useful.count(origin)) {
          decisions.reverted.insert(op);
          changed = true;
        }
      if (!changed)
        break;
    }

    if (!run->failures.empty()) {
      for (const Failure &f : run->failures)
        f.op->emitError() << "cannot shard '" << f.op->getName()
                          << "' over degree " << n << ": " << f.message;
      return failure();
    }

    // Every segment must be a multiple of the degree.
    auto check = [&](Value v, const Sharding &s,
                     function_ref<InFlightDiagnostic()> emit) {
      for (int64_t segment : s.segments)
        if (segment % n != 0) {
          emit() << "is " << describe(s) << ", which degree " << n
                 << " does not divide";
          return false;
        }
      return true;
    };
    for (BlockArgument arg : func.getArguments()) {
      auto it = run->states.find(arg);
      if (it == run->states.end())
        continue;
      if (!check(arg, it->second, [&] {
            InFlightDiagnostic d = func.emitError()
                                   << "cannot shard over degree " << n
                                   << ": argument #" << arg.getArgNumber();
            if (auto name = func.getArgAttrOfType<StringAttr>(
                    arg.getArgNumber(), "tfuse.name"))
              d << " (" << name.getValue() << ")";
            d << " ";
            return d;
          }))
        return failure();
    }
    for (Operation &op : func.getBody().front())
      for (Value r : op.getResults()) {
        auto it = run->states.find(r);
        if (it == run->states.end() || !it->second.isSplit())
          continue;
        if (!check(r, it->second, [&] {
              InFlightDiagnostic d =
                  op.emitError()
                  << "cannot shard '" << op.getName() << "' over degree " << n
                  << ": result #" << cast<OpResult>(r).getResultNumber() << " ";
              return d;
            }))
          return failure();
      }

    if (run->partials.empty() &&
        llvm::none_of(run->states,
                      [](const auto &entry) { return entry.second.isSplit(); }))
      func.emitWarning() << "tfuse-shard-tensor-parallel: no matmul of the "
                            "function is split over degree "
                         << n << "; every rank computes all of it";

    // Rewrite: rank-local types, shard attributes, all-reduces.
    MLIRContext *ctx = func.getContext();
    Builder b(ctx);
    for (BlockArgument arg : func.getArguments()) {
      auto it = run->states.find(arg);
      if (it == run->states.end())
        continue;
      const Sharding &s = it->second;
      arg.setType(localType(arg.getType(), s, n));
      func.setArgAttr(arg.getArgNumber(), "tfuse.shard",
                      b.getDictionaryAttr(
                          {b.getNamedAttr("axis", b.getI64IntegerAttr(s.axis)),
                           b.getNamedAttr("degree", b.getI64IntegerAttr(n)),
                           b.getNamedAttr("segments", b.getDenseI64ArrayAttr(
                                                          s.segments))}));
    }
    for (Operation &op : func.getBody().front())
      for (Value r : op.getResults()) {
        auto it = run->states.find(r);
        if (it != run->states.end() && it->second.isSplit())
          r.setType(localType(r.getType(), it->second, n));
      }
    OpBuilder builder(ctx);
    for (Value v : run->partials) {
      builder.setInsertionPointAfterValue(v);
      auto reduce = AllReduceOp::create(builder, v.getLoc(), v.getType(), v,
                                        builder.getI64IntegerAttr(n));
      v.replaceAllUsesExcept(reduce.getResult(), reduce);
    }
    Operation *terminator = func.getBody().front().getTerminator();
    func.setType(FunctionType::get(ctx,
                                   func.getBody().front().getArgumentTypes(),
                                   terminator->getOperandTypes()));
    func->setAttr("tfuse.tensor_parallel_degree", b.getI64IntegerAttr(n));
    return success();
  }
};

} // namespace
