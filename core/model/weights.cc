#include "core/model/weights.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>

#include "core/error.h"

namespace heed {
namespace {

std::string ShapeString(const std::vector<size_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    s += (i ? ", " : "") + std::to_string(shape[i]);
  }
  return s + "]";
}

class Reader {
 public:
  Reader(const ModelFile& file, Weights* w) : file_(file), w_(w) {}

  std::string Where() const { return "model file '" + file_.source() + "': "; }

  // Tensor `name`, which must exist and have `shape`.
  const TensorInfo& Tensor(const std::string& name,
                           const std::vector<size_t>& shape) {
    used_.insert(name);
    const TensorInfo* t = file_.Find(name);
    if (t == nullptr) throw Error(Where() + "missing tensor '" + name + "'");
    if (t->shape != shape) {
      throw Error(Where() + "tensor '" + name + "' has shape " +
                  ShapeString(t->shape) + ", expected " + ShapeString(shape));
    }
    return *t;
  }

  // The F32 values of tensor `name`, which must have `shape` and hold only
  // finite values (a NaN or inf weight would silently empty every
  // translation).
  const float* Floats(const std::string& name,
                      const std::vector<size_t>& shape) {
    const float* values = RawFloats(name, shape);
    const size_t n = Tensor(name, shape).elements();
    for (size_t i = 0; i < n; ++i) {
      if (!std::isfinite(values[i])) {
        throw Error(Where() + "tensor '" + name +
                    "' holds a non-finite value (" + std::to_string(values[i]) +
                    ") at element " + std::to_string(i));
      }
    }
    return values;
  }

  // The F32 values of tensor `name`: read in place when the file holds
  // aligned F32, else converted (F16, or I8 with its row scales).
  const float* RawFloats(const std::string& name,
                         const std::vector<size_t>& shape) {
    const TensorInfo& t = Tensor(name, shape);
    const uint8_t* data = file_.data(t);
    const size_t n = t.elements();
    w_->parameters += n;
    if (t.dtype == DType::kF32 &&
        reinterpret_cast<uintptr_t>(data) % alignof(float) == 0) {
      return reinterpret_cast<const float*>(data);  // zero-copy
    }
    std::vector<float>& out = w_->converted.emplace_back(n);
    if (DecodeFloats(file_, t, out.data())) return out.data();
    if (t.dtype == DType::kI8 && shape.size() == 2) {
      const float* scales = Scales(name, shape[0]);
      const auto* q = reinterpret_cast<const int8_t*>(data);
      for (size_t i = 0; i < n; ++i) out[i] = q[i] * scales[i / shape[1]];
      return out.data();
    }
    throw Error(Where() + "tensor '" + name + "' has dtype " +
                DTypeName(t.dtype) +
                "; this engine reads F32, F16 and (matrices) I8");
  }

  // Tensor `name` of `shape`, F32 or F16, decoded into out (its elements).
  void DecodeFloatsOrThrow(const std::string& name,
                           const std::vector<size_t>& shape, float* out) {
    const TensorInfo& t = Tensor(name, shape);
    if (!DecodeFloats(file_, t, out)) {
      throw Error(Where() + "tensor '" + name + "' has dtype " +
                  DTypeName(t.dtype) + ", expected F32 or F16");
    }
  }

  // The row scales of the I8 matrix `name`: tensor `name`_scale, F32 or F16
  // (rows), finite and not negative.
  const float* Scales(const std::string& name, size_t rows) {
    const std::string scale_name = name + "_scale";
    std::vector<float>& out = w_->converted.emplace_back(rows);
    DecodeFloatsOrThrow(scale_name, {rows}, out.data());
    // 127 · scale is the row's largest weight: at most F16's largest value,
    // so that every product and sum downstream stays finite.
    constexpr float kMaxScale = 65504.0f / 127.0f;
    for (size_t r = 0; r < rows; ++r) {
      if (!(out[r] >= 0.0f && out[r] <= kMaxScale)) {
        throw Error(Where() + "tensor '" + scale_name + "' row " +
                    std::to_string(r) + " is " + std::to_string(out[r]) +
                    ", not a scale in [0, 65504 / 127]");
      }
    }
    return out.data();
  }

  // Whether matrix `name` (rows, cols) is stored as I8.
  bool IsInt8(const std::string& name, size_t rows, size_t cols) {
    return Tensor(name, {rows, cols}).dtype == DType::kI8;
  }

  // The I8 matrix `name` (rows, cols) packed for ops::MatMulInt8, with its
  // row scales and, where the file has `name`_alpha, its inputs' calibrated
  // range. Its parameters are not counted here.
  ops::PackedInt8Matrix PackedInt8(const std::string& name, size_t rows,
                                   size_t cols) {
    const TensorInfo& t = Tensor(name, {rows, cols});
    ops::PackedInt8Matrix m =
        ops::PackInt8(reinterpret_cast<const int8_t*>(file_.data(t)),
                      Scales(name, rows), rows, cols, cols);
    m.a_max = Alpha(name);
    return m;
  }

  // The I8 matrix `name`'s input range: tensor `name`_alpha, F32 or F16 (1),
  // finite and positive; 0 (each row its own) where the file has none.
  float Alpha(const std::string& name) {
    const std::string alpha_name = name + "_alpha";
    if (file_.Find(alpha_name) == nullptr) return 0.0f;
    float alpha = 0.0f;
    DecodeFloatsOrThrow(alpha_name, {1}, &alpha);
    if (!(alpha > 0.0f && std::isfinite(alpha))) {
      throw Error(Where() + "tensor '" + alpha_name + "' is " +
                  std::to_string(alpha) + ", not a positive finite range");
    }
    return alpha;
  }

  // A (rows, cols) weight for the matrix multiply: int8 where the file
  // holds I8, else float.
  void ReadMatrix(const std::string& name, size_t rows, size_t cols,
                  Linear* l) {
    if (IsInt8(name, rows, cols)) {
      w_->parameters += rows * cols;
      l->weight8 = PackedInt8(name, rows, cols);
      l->int8 = true;
    } else {
      l->weight = ops::PackMatrix(Floats(name, {rows, cols}), rows, cols, cols);
    }
  }

  Linear ReadLinear(const std::string& prefix, size_t out, size_t in,
                    bool bias) {
    Linear l;
    l.in = in;
    l.out = out;
    ReadMatrix(prefix + ".weight", out, in, &l);
    if (bias) l.bias = Floats(prefix + ".bias", {out});
    return l;
  }

  Norm ReadNorm(const std::string& prefix, size_t d) {
    return Norm{Floats(prefix + ".weight", {d}), Floats(prefix + ".bias", {d})};
  }

  AttentionWeights ReadAttention(const std::string& prefix, size_t d) {
    return AttentionWeights{ReadLinear(prefix + ".q_proj", d, d, true),
                            ReadLinear(prefix + ".k_proj", d, d, true),
                            ReadLinear(prefix + ".v_proj", d, d, true),
                            ReadLinear(prefix + ".out_proj", d, d, true)};
  }

  FeedForward ReadFeedForward(const std::string& prefix, size_t d,
                              size_t d_ff) {
    return FeedForward{ReadLinear(prefix + ".fc1", d_ff, d, true),
                       ReadLinear(prefix + ".fc2", d, d_ff, true)};
  }

  // Throws unless every tensor of the file was read (the tokenizers
  // aside): a config that declares fewer layers, or no output bias, than
  // the file holds contradicts it.
  void CheckAllUsed() const {
    for (const TensorInfo& t : file_.tensors()) {
      if (used_.count(t.name) == 0 && t.name.rfind("tokenizer.", 0) != 0) {
        throw Error(Where() + "tensor '" + t.name +
                    "' is not used by the model's config (layers, "
                    "embeddings, biases): the config contradicts the file");
      }
    }
  }

 private:
  const ModelFile& file_;
  Weights* w_;
  std::set<std::string> used_;  // every tensor name looked up
};

}  // namespace

Weights LoadWeights(const ModelFile& file, const ModelConfig& c) {
  Weights w;
  Reader r(file, &w);
  const size_t d = c.d_model;
  w.source_embedding =
      r.Floats("encoder.embed_tokens.weight", {c.source_vocab, d});
  w.target_embedding =
      c.shared_embeddings
          ? w.source_embedding
          : r.Floats("decoder.embed_tokens.weight", {c.target_vocab, d});
  for (size_t i = 0; i < c.encoder_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i);
    w.encoder.push_back(
        EncoderLayerWeights{r.ReadAttention(p + ".self_attn", d),
                            r.ReadNorm(p + ".self_attn_layer_norm", d),
                            r.ReadFeedForward(p, d, c.d_ff),
                            r.ReadNorm(p + ".final_layer_norm", d)});
  }
  for (size_t i = 0; i < c.decoder_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i);
    w.decoder.push_back(
        DecoderLayerWeights{r.ReadAttention(p + ".self_attn", d),
                            r.ReadNorm(p + ".self_attn_layer_norm", d),
                            r.ReadAttention(p + ".encoder_attn", d),
                            r.ReadNorm(p + ".encoder_attn_layer_norm", d),
                            r.ReadFeedForward(p, d, c.d_ff),
                            r.ReadNorm(p + ".final_layer_norm", d)});
  }
  if (c.pre_norm) {
    w.encoder_norm = r.ReadNorm("encoder.layer_norm", d);
    w.decoder_norm = r.ReadNorm("decoder.layer_norm", d);
  }
  w.output.in = d;
  w.output.out = c.target_vocab;
  if (c.tied_output) {
    const std::string embedding = c.shared_embeddings
                                      ? "encoder.embed_tokens.weight"
                                      : "decoder.embed_tokens.weight";
    if (r.IsInt8(embedding, c.target_vocab, d)) {  // counted as embedding
      w.output.weight8 = r.PackedInt8(embedding, c.target_vocab, d);
      w.output.int8 = true;
    } else {
      w.output.weight =
          ops::PackMatrix(w.target_embedding, c.target_vocab, d, d);
    }
    if (c.output_bias) {
      w.output.bias = r.Floats("output_projection.bias", {c.target_vocab});
    }
  } else {
    w.output =
        r.ReadLinear("output_projection", c.target_vocab, d, c.output_bias);
  }
  r.CheckAllUsed();
  return w;
}

}  // namespace heed
