#pragma once
// What an export writes with: the Writer that collects one export's .npy files and its
// per-operator records for the manifest, and the small array and count helpers the
// operators' exporters share (vector_export.cpp, layer_vector_export.cpp).

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/studies/vector_export.h"
#include "core/util/bf16.h"
#include "core/util/error.h"
#include "core/util/fp16.h"
#include "core/util/hash.h"
#include "core/util/npy.h"

namespace moe::vectors {

using Shape = std::vector<std::size_t>;

inline std::size_t sz(int v) {
  return static_cast<std::size_t>(v);
}

// Collects the files and the per-operator records of one export.
class Writer {
 public:
  explicit Writer(std::filesystem::path dir) : dir_(std::move(dir)) {}

  void op(const std::string& name, const std::string& aclnn, int rank, nlohmann::json attrs,
          const std::string& comparison) {
    op_ = name;
    rank_ = rank;
    operators_.push_back({{"op", name},
                          {"aclnn", aclnn},
                          {"rank", rank},
                          {"directory", relDir()},
                          {"attrs", std::move(attrs)},
                          {"comparison", comparison}});
  }
  // A field of the current operator's record beside its attrs (not an operator argument).
  void note(const std::string& key, nlohmann::json value) {
    operators_.back()[key] = std::move(value);
  }

  // logical is what the array means (bfloat16 for '<u2' bit patterns, float16 for '<f2').
  void file(const std::string& role, const std::string& argument, NpyArray a,
            const std::string& logical) {
    const std::string rel = relDir() + "/" + argument + ".npy";
    const std::filesystem::path full = dir_ / rel;
    std::error_code ec;
    std::filesystem::create_directories(full.parent_path(), ec);
    require(!ec, "--out", "cannot create directory '" + full.parent_path().string() + "'");
    writeNpy(full.string(), a);
    contents_.text(rel);
    contents_.bytes(a.data.data(), a.data.size());
    files_.push_back({rel, op_, rank_, role, argument, a.dtype, logical, a.shape});
  }
  void in(const std::string& arg, NpyArray a, const std::string& logical) {
    file("input", arg, std::move(a), logical);
  }
  void golden(const std::string& arg, NpyArray a, const std::string& logical) {
    file("golden", arg, std::move(a), logical);
  }

  std::vector<ExportedFile>& files() { return files_; }
  nlohmann::json operators() const { return operators_; }
  // FNV-1a 64 (core/util/hash.h) over every file in the order written, which is the
  // manifest's order: its relative path, then its array payload (raw little-endian
  // elements in C order, bool as 0/1 bytes; the .npy header is not hashed). Two exports
  // with this digest hold the same arrays under the same names.
  std::uint64_t contentsDigest() const { return contents_.digest(); }

 private:
  std::string relDir() const { return op_ + "/rank" + std::to_string(rank_); }
  std::filesystem::path dir_;
  std::string op_;
  int rank_ = 0;
  std::vector<ExportedFile> files_;
  Fnv1a contents_;
  nlohmann::json operators_ = nlohmann::json::array();
};

inline NpyArray i32(Shape s, const std::vector<std::int32_t>& v) {
  return makeNpy<std::int32_t>(std::move(s), v);
}
inline NpyArray i64(Shape s, const std::vector<std::int32_t>& v) {
  return makeNpy<std::int64_t>(std::move(s), std::vector<std::int64_t>(v.begin(), v.end()));
}
inline NpyArray f32(Shape s, const std::vector<float>& v) {
  return makeNpy<float>(std::move(s), v);
}
inline NpyArray bf16Bits(Shape s, const std::vector<bf16>& v) {
  return makeNpy<std::uint16_t>(std::move(s), v);
}
inline NpyArray fp16Array(Shape s, const std::vector<fp16>& v) {
  NpyArray a = makeNpy<std::uint16_t>(std::move(s), v);
  a.dtype = "<f2";  // IEEE half: numpy's float16, bit for bit
  return a;
}

inline std::vector<std::int32_t> encodeCounts(std::vector<std::int32_t> v, CountEncoding e) {
  if (e == CountEncoding::PrefixSums)
    for (std::size_t i = 1; i < v.size(); ++i) v[i] += v[i - 1];
  return v;
}

inline const char* countsName(CountEncoding e) {
  return e == CountEncoding::Counts ? "counts" : "prefix-sums";
}
inline const char* expandName(ExpandIdxLayout l) {
  return l == ExpandIdxLayout::Rows ? "rows" : "slots";
}

}  // namespace moe::vectors
