//===- Interpreter.h - Evaluate op graphs with the reference ----*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file declares an MLIR-free interpreter of small graphs of tfuse ops,
// the `ops` graph that every step of a bundle's plan.json carries
// (docs/bundle.md, "ops: the reference graph of a step"). The GPU runtime
// evaluates a step's graph on the step's actual GPU inputs and compares the
// result with what the GPU computed.
//
// Values are numbered as in plan.json: first the graph's arguments
// (0 .. n-1), then the results of each op, in order. Every op maps onto one
// function of the CPU reference (tfuse/Reference/Reference.h), so the
// numerics are exactly those of `tfuse-opt --tfuse-evaluate`.
//
// The library uses no LLVM/MLIR and no exceptions: errors are returned as
// messages that name the op ("op 3 (tfuse.layer_norm): missing attribute
// 'epsilon'").
//
//===----------------------------------------------------------------------===//

#ifndef TFUSE_REFERENCE_INTERPRETER_H
#define TFUSE_REFERENCE_INTERPRETER_H

#include "tfuse/Reference/Reference.h"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace mlir::tfuse::ref {

/// The type of a value of a graph: element type and static shape.
struct TensorType {
  DType dtype = DType::F32;
  std::vector<int64_t> shape;

  bool operator==(const TensorType &other) const {
    return dtype == other.dtype && shape == other.shape;
  }
  bool operator!=(const TensorType &other) const { return !(*this == other); }
};

/// "[4, 1024] bf16" ("[] f32" for a scalar).
std::string formatTensorType(const TensorType &type);
/// "[4, 1024]".
std::string formatShape(const std::vector<int64_t> &shape);

/// An attribute value. Integers written without a fraction are int64_t; the
/// accessors convert between int64_t and double (and between the two vector
/// kinds) where the value is exact. The strings "inf", "-inf" and "nan" are
/// accepted wherever a number is expected (JSON cannot spell them).
using RefAttribute = std::variant<bool, int64_t, double, std::string,
                                  std::vector<int64_t>, std::vector<double>>;

/// One op of a graph.
struct RefOp {
  /// Full name: "tfuse.add".
  std::string name;
  /// Value numbers of the operands.
  std::vector<int> operands;
  /// The declared result types; the interpreter checks the computed results
  /// against them.
  std::vector<TensorType> results;
  std::map<std::string, RefAttribute> attributes;
};

/// A graph of ops with its arguments and the values it yields.
struct RefGraph {
  std::vector<TensorType> arguments;
  std::vector<RefOp> ops;
  std::vector<int> yields;
};

/// The names of the ops the interpreter knows ("tfuse.add", ...), sorted.
const std::vector<std::string> &getRefOpNames();

/// Checks one op on its own: known name, number of operands and results, and
/// every attribute it needs present with the right type (also op-specific
/// rules such as layer_norm's operand count matching has_gamma/has_beta).
/// Does not look at operand types. On failure sets `error` to a message
/// without the "op N (...)" prefix and returns false.
bool verifyRefOp(const RefOp &op, std::string &error);

/// Checks the structure of a graph: every op verifies, every operand and
/// yield names a value defined before it, results are non-empty, and every
/// declared tensor can be allocated (no negative dimension, at most 2^40
/// elements: tfuse/Support/CheckedInt.h). On
/// failure sets `error` ("op 2 (tfuse.add): operand 1 refers to value 7,
/// which is not defined before the op") and returns false.
bool verifyGraph(const RefGraph &graph, std::string &error);

/// Evaluates `graph` on `inputs` (one per argument, each of the argument's
/// type) and returns the yielded tensors. Every op's computed result must
/// have its declared type. On failure returns an empty optional and sets
/// `error`.
std::optional<std::vector<Tensor>>
evaluateGraph(const RefGraph &graph, const std::vector<Tensor> &inputs,
              std::string &error);

/// The longest reduction in `graph`: the largest reduced extent of a
/// tfuse.reduce/softmax/layer_norm/rms_norm (the axis' size) or contraction
/// (K of tfuse.matmul, max(head dim, key length) of tfuse.attention); 0 when
/// there is none. The runtime's check widens float tolerances with it. Call
/// only on a graph that verifies.
int64_t longestReduction(const RefGraph &graph);

} // namespace mlir::tfuse::ref

#endif // TFUSE_REFERENCE_INTERPRETER_H
