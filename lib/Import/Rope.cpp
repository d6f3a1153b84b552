//===- Rope.cpp - rotary frequencies as transformers computes them --------===//
//
// Part of the tfuse project.
// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
//
//===----------------------------------------------------------------------===//
//
// This file implements computeRopeFrequencies(): the inv_freq and attention
// scaling of transformers' rope initialisers (modeling_rope_utils: default,
// linear, dynamic, llama3, yarn), in f32 where transformers computes in f32
// tensors and in double where it computes with Python floats.
//
//===----------------------------------------------------------------------===//

#include "tfuse/Import/TransformerSpec.h"

#include <algorithm>
#include <cmath>

using namespace mlir::tfuse;

const char *mlir::tfuse::describeRopeType(RopeType type) {
  switch (type) {
  case RopeType::Default:
    return "default";
  case RopeType::Linear:
    return "linear";
  case RopeType::Dynamic:
    return "dynamic";
  case RopeType::Llama3:
    return "llama3";
  case RopeType::Yarn:
    return "yarn";
  }
  return "?";
}

/// 1 / base^(2i / dim) for i < dim / 2, in f32 (torch.arange(0, dim, 2)).
static std::vector<float> baseFrequencies(double base, int64_t dim) {
  std::vector<float> invFreq;
  for (int64_t i = 0; i < dim; i += 2) {
    float exponent = static_cast<float>(i) / static_cast<float>(dim);
    invFreq.push_back(1.0f / std::pow(static_cast<float>(base), exponent));
  }
  return invFreq;
}

/// YaRN's attention factor for a context `scale` times longer.
static double yarnMscale(double scale, double mscale) {
  return scale <= 1.0 ? 1.0 : 0.1 * mscale * std::log(scale) + 1.0;
}

/// The dimension whose wavelength turns `rotations` times in `positions`.
static double yarnCorrectionDim(double rotations, int64_t dim, double base,
                                int64_t positions) {
  return (dim * std::log(positions / (rotations * 2 * M_PI))) /
         (2 * std::log(base));
}

RopeFrequencies mlir::tfuse::computeRopeFrequencies(const RopeSpec &rope,
                                                    int64_t seq) {
  RopeFrequencies out;
  int64_t dim = rope.rotaryDim;
  switch (rope.type) {
  case RopeType::Default:
    out.invFreq = baseFrequencies(rope.theta, dim);
    break;
  case RopeType::Linear:
    out.invFreq = baseFrequencies(rope.theta, dim);
    for (float &f : out.invFreq)
      f = f / static_cast<float>(rope.factor);
    break;
  case RopeType::Dynamic: {
    // NTK scaling once positions pass the trained context: positions
    // 0..seq-1 have seq_len = seq (dynamic_rope_update).
    double base = rope.theta;
    if (seq > rope.maxPositions)
      base *=
          std::pow(rope.factor * seq / rope.maxPositions - (rope.factor - 1),
                   static_cast<double>(dim) / (dim - 2));
    out.invFreq = baseFrequencies(base, dim);
    break;
  }
  case RopeType::Llama3: {
    out.invFreq = baseFrequencies(rope.theta, dim);
    float factor = rope.factor, low = rope.lowFreqFactor,
          high = rope.highFreqFactor;
    float context = rope.originalMaxPositions;
    float lowWavelen = context / low, highWavelen = context / high;
    for (float &f : out.invFreq) {
      float wavelen = static_cast<float>(2 * M_PI) / f;
      float scaled = wavelen > lowWavelen ? f / factor : f;
      if (!(wavelen < highWavelen) && !(wavelen > lowWavelen)) {
        float smooth = (context / wavelen - low) / (high - low);
        scaled = (1 - smooth) * scaled / factor + smooth * scaled;
      }
      f = scaled;
    }
    break;
  }
  case RopeType::Yarn: {
    double factor = rope.factor;
    if (rope.attentionFactor)
      out.attentionScaling = *rope.attentionFactor;
    else if (rope.mscale && rope.mscaleAllDim && *rope.mscale &&
             *rope.mscaleAllDim)
      out.attentionScaling = yarnMscale(factor, *rope.mscale) /
                             yarnMscale(factor, *rope.mscaleAllDim);
    else
      out.attentionScaling = yarnMscale(factor, 1.0);
    double low = yarnCorrectionDim(rope.betaFast, dim, rope.theta,
                                   rope.originalMaxPositions);
    double high = yarnCorrectionDim(rope.betaSlow, dim, rope.theta,
                                    rope.originalMaxPositions);
    if (rope.truncate) {
      low = std::floor(low);
      high = std::ceil(high);
    }
    low = std::max(low, 0.0);
    high = std::min(high, static_cast<double>(dim - 1));
    if (low == high)
      high += 0.001;
    std::vector<float> extrapolation = baseFrequencies(rope.theta, dim);
    for (size_t i = 0; i < extrapolation.size(); ++i) {
      float posFreq = 1.0f / extrapolation[i];
      float interpolation = 1.0f / (static_cast<float>(factor) * posFreq);
      float ramp = std::clamp(
          static_cast<float>((static_cast<float>(i) - low) / (high - low)),
          0.0f, 1.0f);
      float keep = 1.0f - ramp;
      out.invFreq.push_back(interpolation * (1 - keep) +
                            extrapolation[i] * keep);
    }
    break;
  }
  }
  return out;
}
