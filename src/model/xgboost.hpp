// model/xgboost.hpp — a small RAII wrapper over XGBoost's C API (libxgboost-dev).
//
// attune's cost models (model/cost_model.hpp) are gradient-boosted trees. This header keeps the
// C API's handles, error codes and buffer lifetimes out of the rest of the code: a Matrix owns a
// DMatrix, a Booster owns a booster, every failing call throws attune::Error with
// XGBGetLastError()'s text, and a model round-trips through bytes (UBJSON) so the database can
// keep it. Missing feature values are NaN (XGBoost's default "missing").
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace attune::xgb {

// A dense row-major feature matrix with labels (and optional ranking groups).
class Matrix {
 public:
  Matrix(const std::vector<float>& data, std::size_t rows, std::size_t cols);
  Matrix(const Matrix&) = delete;
  Matrix& operator=(const Matrix&) = delete;
  ~Matrix();
  void set_labels(const std::vector<float>& labels);
  void set_weights(const std::vector<float>& weights);
  // Sizes of consecutive query groups for rank:* objectives (one group: {rows}).
  void set_groups(const std::vector<unsigned>& sizes);
  void* handle() const { return handle_; }
  std::size_t rows() const { return rows_; }

 private:
  void* handle_ = nullptr;
  std::size_t rows_ = 0;
};

class Booster {
 public:
  Booster();
  Booster(const Booster&) = delete;
  Booster& operator=(const Booster&) = delete;
  Booster(Booster&& o) noexcept;
  Booster& operator=(Booster&& o) noexcept;
  ~Booster();

  // Trains from scratch: sets `params` ("objective", "max_depth", "eta", ...) then runs
  // `rounds` boosting iterations on `train`.
  static Booster train(const Matrix& train, const std::map<std::string, std::string>& params, int rounds);
  // The raw margin-transformed prediction per row (probabilities for binary:logistic,
  // scores for rank:pairwise).
  std::vector<float> predict(const Matrix& m) const;
  std::string save() const;                       // UBJSON bytes
  static Booster load(const std::string& bytes);  // throws Error for bytes that are not a model

 private:
  explicit Booster(void* h) : handle_(h) {}
  void* handle_ = nullptr;
};

}  // namespace attune::xgb
