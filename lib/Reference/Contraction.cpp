//===- Contraction.cpp - matmul and attention -------------------*- C++ -*-===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements the contractions: a blocked, multi-threaded batched
// matmul whose every dot product is summed in double in increasing k order
// (so results do not depend on blocking or threads), and attention computed
// exactly (in double) and rounded once.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Reference/Reference.h"

#include "Detail.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <thread>

using namespace mlir::tfuse::ref;

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

namespace {
/// The operands of one matmul, as strided 2-D views per batch.
struct MatmulProblem {
  const double *a, *b;
  double *out;
  DType dtype;
  int64_t m, n, k;
  /// Element (i, k) of A is a[aOffset + i * aRowStride + k * aColStride].
  int64_t aRowStride, aColStride;
  /// Element (k, j) of B is b[bOffset + k * bRowStride + j * bColStride].
  int64_t bRowStride, bColStride;
  /// Per output batch: the offsets of its A and B matrices.
  std::vector<std::pair<int64_t, int64_t>> batches;
};
} // namespace

// Column block (kept per task), depth block (one packed B panel) and the
// number of rows that share a panel row.
static constexpr int64_t kBlockN = 256;
static constexpr int64_t kBlockK = 256;
static constexpr int64_t kRowsPerStep = 4;

/// Computes the columns [j0, j0 + nb) of batch `batch`. `acc` and `panel` are
/// scratch buffers owned by the calling thread.
static void matmulTask(const MatmulProblem &p, size_t batch, int64_t j0,
                       std::vector<double> &acc, std::vector<double> &panel) {
  int64_t nb = std::min(kBlockN, p.n - j0);
  acc.assign(static_cast<size_t>(p.m * nb), 0.0);
  panel.resize(static_cast<size_t>(kBlockK * nb));
  const double *a = p.a + p.batches[batch].first;
  const double *b = p.b + p.batches[batch].second;
  for (int64_t k0 = 0; k0 < p.k; k0 += kBlockK) {
    int64_t kb = std::min(kBlockK, p.k - k0);
    // Pack B[k0:k0+kb, j0:j0+nb] contiguously (this also undoes transposeB).
    for (int64_t kk = 0; kk < kb; ++kk)
      for (int64_t jj = 0; jj < nb; ++jj)
        panel[kk * nb + jj] =
            b[(k0 + kk) * p.bRowStride + (j0 + jj) * p.bColStride];
    for (int64_t i0 = 0; i0 < p.m; i0 += kRowsPerStep) {
      int64_t mr = std::min(kRowsPerStep, p.m - i0);
      for (int64_t kk = 0; kk < kb; ++kk) {
        const double *__restrict bRow = panel.data() + kk * nb;
        for (int64_t ii = 0; ii < mr; ++ii) {
          double aik = a[(i0 + ii) * p.aRowStride + (k0 + kk) * p.aColStride];
          double *__restrict cRow = acc.data() + (i0 + ii) * nb;
          // Each accumulator receives its products in increasing k order.
          for (int64_t jj = 0; jj < nb; ++jj)
            cRow[jj] += aik * bRow[jj];
        }
      }
    }
  }
  double *out = p.out + static_cast<int64_t>(batch) * p.m * p.n + j0;
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t jj = 0; jj < nb; ++jj)
      out[i * p.n + jj] = roundTo(p.dtype, acc[i * nb + jj]);
}

/// Runs `runTasks(first, step)` on as many threads as pay for `work`
/// multiply-adds (one below 4M): thread t takes tasks t, t + step, ... of
/// `tasks`, so each task runs exactly once whatever the thread count.
static void
runInParallel(int64_t tasks, double work,
              const std::function<void(int64_t, int64_t)> &runTasks) {
  int64_t threads = std::max(1u, std::thread::hardware_concurrency());
  threads = std::max<int64_t>(1, std::min(threads, tasks));
  if (work < (1 << 22))
    threads = 1;
  std::vector<std::thread> pool;
  for (int64_t t = 1; t < threads; ++t)
    pool.emplace_back(runTasks, t, threads);
  runTasks(0, threads);
  for (std::thread &thread : pool)
    thread.join();
}

Tensor mlir::tfuse::ref::matmul(const Tensor &a, const Tensor &b,
                                bool transposeA, bool transposeB) {
  if (a.rank() < 2 || b.rank() < 2)
    return detail::invalidTensor(a.dtype);
  int64_t ra = a.rank(), rb = b.rank();
  int64_t m = a.shape[ra - (transposeA ? 1 : 2)];
  int64_t k = a.shape[ra - (transposeA ? 2 : 1)];
  int64_t kOfB = b.shape[rb - (transposeB ? 1 : 2)];
  int64_t n = b.shape[rb - (transposeB ? 2 : 1)];
  if (k != kOfB)
    return detail::invalidTensor(a.dtype);
  std::vector<int64_t> batchA(a.shape.begin(), a.shape.end() - 2);
  std::vector<int64_t> batchB(b.shape.begin(), b.shape.end() - 2);
  bool ok;
  std::vector<int64_t> batch = broadcastShapes(batchA, batchB, ok);
  if (!ok)
    return detail::invalidTensor(a.dtype);

  std::vector<int64_t> shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  Tensor y = zeros(a.dtype, shape);
  if (y.data.empty())
    return y;

  MatmulProblem p;
  p.a = a.data.data();
  p.b = b.data.data();
  p.out = y.data.data();
  p.dtype = a.dtype;
  p.m = m;
  p.n = n;
  p.k = k;
  p.aRowStride = transposeA ? 1 : k;
  p.aColStride = transposeA ? m : 1;
  p.bRowStride = transposeB ? 1 : n;
  p.bColStride = transposeB ? k : 1;
  detail::forEachBroadcast(batch, detail::broadcastStrides(batchA, batch),
                           detail::broadcastStrides(batchB, batch),
                           [&](int64_t, int64_t offA, int64_t offB) {
                             p.batches.emplace_back(offA * m * k, offB * k * n);
                           });

  // Tasks are (batch, column block) pairs writing disjoint outputs; each
  // output element is computed by exactly one task in the same order, so the
  // thread count does not change the result.
  int64_t blocksN = (n + kBlockN - 1) / kBlockN;
  int64_t tasks = static_cast<int64_t>(p.batches.size()) * blocksN;
  auto runTasks = [&](int64_t first, int64_t step) {
    std::vector<double> acc, panel;
    for (int64_t t = first; t < tasks; t += step)
      matmulTask(p, static_cast<size_t>(t / blocksN), (t % blocksN) * kBlockN,
                 acc, panel);
  };
  runInParallel(tasks, static_cast<double>(p.batches.size()) * m * n * (k + 1),
                runTasks);
  return y;
}

//===----------------------------------------------------------------------===//
// attention
//===----------------------------------------------------------------------===//

Tensor mlir::tfuse::ref::attention(const Tensor &q, const Tensor &k,
                                   const Tensor &v, const Tensor *mask,
                                   double scale, bool causal, double dropoutP,
                                   uint64_t seed, Tensor *lse) {
  DType dtype = q.dtype;
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4)
    return detail::invalidTensor(dtype);
  int64_t batch = q.shape[0], heads = q.shape[1], kvHeads = k.shape[1];
  if (kvHeads <= 0 || heads % kvHeads != 0 || v.shape[1] != kvHeads ||
      k.shape[0] != batch || v.shape[0] != batch || k.shape[3] != q.shape[3] ||
      v.shape[2] != k.shape[2])
    return detail::invalidTensor(dtype);
  int64_t sq = q.shape[2], sk = k.shape[2], d = q.shape[3], dv = v.shape[3];
  int64_t group = heads / kvHeads;
  std::vector<int64_t> scoreShape{batch, heads, sq, sk};
  std::vector<int64_t> maskStrides(4, 0);
  if (mask) {
    bool ok = true;
    if (broadcastShapes(mask->shape, scoreShape, ok) != scoreShape || !ok)
      return detail::invalidTensor(dtype);
    maskStrides = detail::broadcastStrides(mask->shape, scoreShape);
  }
  Tensor y = zeros(dtype, {batch, heads, sq, dv});
  if (lse)
    *lse = zeros(DType::F32, {batch, heads, sq});
  double keepScale = 1.0 / (1.0 - dropoutP);

  // One task per (batch, head, query row); each row is computed by one task
  // in one order, so the thread count does not change the result.
  auto row = [&](int64_t task, std::vector<double> &s) {
    int64_t i = task % sq, h = (task / sq) % heads, b = task / (sq * heads);
    const double *qi = q.data.data() + ((b * heads + h) * sq + i) * d;
    int64_t kvHead = b * kvHeads + h / group;
    const double *kh = k.data.data() + kvHead * sk * d;
    const double *vh = v.data.data() + kvHead * sk * dv;
    double m = -std::numeric_limits<double>::infinity();
    for (int64_t j = 0; j < sk; ++j) {
      if (causal && j > i) {
        s[j] = -std::numeric_limits<double>::infinity();
        continue;
      }
      double dot = 0.0;
      for (int64_t c = 0; c < d; ++c)
        dot += qi[c] * kh[j * d + c];
      s[j] = dot * scale;
      if (mask)
        s[j] += mask->data[b * maskStrides[0] + h * maskStrides[1] +
                           i * maskStrides[2] + j * maskStrides[3]];
      m = std::isnan(s[j]) || std::isnan(m) ? std::nan("") : std::max(m, s[j]);
    }
    double sum = 0.0;
    for (int64_t j = 0; j < sk; ++j) {
      s[j] = std::exp(s[j] - m);
      sum += s[j];
    }
    if (lse)
      lse->data[task] = roundTo(DType::F32, m + std::log(sum));
    double *out = y.data.data() + task * dv;
    // With causal, keys after the row take no part at all (as in a kernel
    // that never reads them).
    int64_t keys = causal ? std::min(sk, i + 1) : sk;
    for (int64_t j = 0; j < keys; ++j) {
      double p = s[j] / sum;
      if (dropoutP > 0)
        p = dropoutKeep(static_cast<uint64_t>(task * sk + j), dropoutP, seed)
                ? p * keepScale
                : 0.0;
      for (int64_t c = 0; c < dv; ++c)
        out[c] += p * vh[j * dv + c];
    }
    for (int64_t c = 0; c < dv; ++c)
      out[c] = roundTo(dtype, out[c]);
  };
  int64_t tasks = batch * heads * sq;
  auto runTasks = [&](int64_t first, int64_t step) {
    std::vector<double> s(static_cast<size_t>(sk));
    for (int64_t t = first; t < tasks; t += step)
      row(t, s);
  };
  runInParallel(tasks, static_cast<double>(tasks) * sk * (d + dv), runTasks);
  return y;
}

mlir::tfuse::ref::AttentionGrads mlir::tfuse::ref::attentionGrad(
    const Tensor &q, const Tensor &k, const Tensor &v, const Tensor &outGrad,
    const Tensor &lse, const Tensor &delta, const Tensor *mask, double scale,
    bool causal, double dropoutP, uint64_t seed,
    const AttentionGradVisitor *visit) {
  DType dtype = q.dtype;
  AttentionGrads invalid{detail::invalidTensor(dtype),
                         detail::invalidTensor(dtype),
                         detail::invalidTensor(dtype)};
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4 || outGrad.rank() != 4)
    return invalid;
  int64_t batch = q.shape[0], heads = q.shape[1], kvHeads = k.shape[1];
  if (kvHeads <= 0 || heads % kvHeads != 0 || v.shape[1] != kvHeads ||
      k.shape[0] != batch || v.shape[0] != batch || k.shape[3] != q.shape[3] ||
      v.shape[2] != k.shape[2])
    return invalid;
  int64_t sq = q.shape[2], sk = k.shape[2], d = q.shape[3], dv = v.shape[3];
  std::vector<int64_t> rowShape{batch, heads, sq};
  if (outGrad.shape != std::vector<int64_t>{batch, heads, sq, dv} ||
      lse.shape != rowShape || delta.shape != rowShape)
    return invalid;
  int64_t group = heads / kvHeads;
  std::vector<int64_t> scoreShape{batch, heads, sq, sk};
  std::vector<int64_t> maskStrides(4, 0);
  if (mask) {
    bool ok = true;
    if (broadcastShapes(mask->shape, scoreShape, ok) != scoreShape || !ok)
      return invalid;
    maskStrides = detail::broadcastStrides(mask->shape, scoreShape);
  }
  AttentionGrads grads{zeros(dtype, q.shape), zeros(dtype, k.shape),
                       zeros(dtype, v.shape)};
  double keepScale = 1.0 / (1.0 - dropoutP);

  // One task per (batch, kv head): it walks the rows of every query head
  // of its group in order, so dK and dV sum in one order whatever the
  // thread count.
  auto kvTask = [&](int64_t task) {
    int64_t b = task / kvHeads, hk = task % kvHeads;
    const double *kh = k.data.data() + task * sk * d;
    const double *vh = v.data.data() + task * sk * dv;
    double *dk = grads.key.data.data() + task * sk * d;
    double *dvOut = grads.value.data.data() + task * sk * dv;
    for (int64_t h = hk * group; h < (hk + 1) * group; ++h)
      for (int64_t i = 0; i < sq; ++i) {
        int64_t row = (b * heads + h) * sq + i;
        const double *qi = q.data.data() + row * d;
        const double *doi = outGrad.data.data() + row * dv;
        double *dqi = grads.query.data.data() + row * d;
        int64_t keys = causal ? std::min(sk, i + 1) : sk;
        for (int64_t j = 0; j < keys; ++j) {
          double s = 0.0;
          for (int64_t c = 0; c < d; ++c)
            s += qi[c] * kh[j * d + c];
          s *= scale;
          if (mask)
            s += mask->data[b * maskStrides[0] + h * maskStrides[1] +
                            i * maskStrides[2] + j * maskStrides[3]];
          double p = std::exp(s - lse.data[row]);
          double keep = 1.0;
          if (dropoutP > 0)
            keep =
                dropoutKeep(static_cast<uint64_t>(row * sk + j), dropoutP, seed)
                    ? keepScale
                    : 0.0;
          double dp = 0.0;
          for (int64_t c = 0; c < dv; ++c) {
            dvOut[j * dv + c] += p * keep * doi[c];
            dp += doi[c] * vh[j * dv + c];
          }
          double ds = p * (dp * keep - delta.data[row]) * scale;
          if (visit)
            (*visit)({row, task * sk + j, p, keep, dp, ds});
          for (int64_t c = 0; c < d; ++c) {
            dqi[c] += ds * kh[j * d + c];
            dk[j * d + c] += ds * qi[c];
          }
        }
      }
  };
  int64_t tasks = batch * kvHeads;
  auto runTasks = [&](int64_t first, int64_t step) {
    for (int64_t t = first; t < tasks; t += step)
      kvTask(t);
  };
  runInParallel(tasks,
                static_cast<double>(batch) * heads * sq * sk * 2 * (d + dv),
                runTasks);
  for (Tensor *grad : {&grads.query, &grads.key, &grads.value})
    for (double &x : grad->data)
      x = roundTo(dtype, x);
  return grads;
}
