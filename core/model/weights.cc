#include "core/model/weights.h"

#include <cstdint>
#include <cstring>
#include <string>

#include "core/error.h"

namespace heed {
namespace {

// IEEE half to single precision, including subnormals, inf and NaN.
float HalfToFloat(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1Fu;
  uint32_t mant = h & 0x3FFu;
  uint32_t bits;
  if (exp == 0x1F) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else if (exp != 0) {
    bits = sign | ((exp + 112) << 23) | (mant << 13);
  } else if (mant == 0) {
    bits = sign;
  } else {  // subnormal: normalise
    exp = 113;
    while ((mant & 0x400u) == 0) {
      mant <<= 1;
      --exp;
    }
    bits = sign | (exp << 23) | ((mant & 0x3FFu) << 13);
  }
  float f;
  std::memcpy(&f, &bits, sizeof(f));
  return f;
}

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

  // The F32 values of tensor `name`, which must have `shape`.
  const float* Floats(const std::string& name,
                      const std::vector<size_t>& shape) {
    const TensorInfo* t = file_.Find(name);
    const std::string where = "model file '" + file_.source() + "': ";
    if (t == nullptr) throw Error(where + "missing tensor '" + name + "'");
    if (t->shape != shape) {
      throw Error(where + "tensor '" + name + "' has shape " +
                  ShapeString(t->shape) + ", expected " + ShapeString(shape));
    }
    const uint8_t* data = file_.data(*t);
    const size_t n = t->elements();
    w_->parameters += n;
    if (t->dtype == DType::kF32) {
      if (reinterpret_cast<uintptr_t>(data) % alignof(float) == 0) {
        return reinterpret_cast<const float*>(data);  // zero-copy
      }
      std::vector<float>& out = w_->converted.emplace_back(n);
      std::memcpy(out.data(), data, n * sizeof(float));
      return out.data();
    }
    if (t->dtype == DType::kF16) {
      std::vector<float>& out = w_->converted.emplace_back(n);
      for (size_t i = 0; i < n; ++i) {
        uint16_t h;
        std::memcpy(&h, data + 2 * i, 2);
        out[i] = HalfToFloat(h);
      }
      return out.data();
    }
    throw Error(where + "tensor '" + name + "' has dtype " +
                DTypeName(t->dtype) + "; this engine reads F32 and F16");
  }

  Linear ReadLinear(const std::string& prefix, size_t out, size_t in,
                    bool bias) {
    Linear l;
    l.in = in;
    l.out = out;
    l.weight =
        ops::PackMatrix(Floats(prefix + ".weight", {out, in}), out, in, in);
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

 private:
  const ModelFile& file_;
  Weights* w_;
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
    w.output.weight = ops::PackMatrix(w.target_embedding, c.target_vocab, d, d);
    if (c.output_bias) {
      w.output.bias = r.Floats("output_projection.bias", {c.target_vocab});
    }
  } else {
    w.output =
        r.ReadLinear("output_projection", c.target_vocab, d, c.output_bias);
  }
  return w;
}

}  // namespace heed
