// The XGBoost C API behind model/xgboost.hpp: handles owned, errors thrown, models as bytes.
#include <xgboost/c_api.h>

#include <limits>
#include <utility>

#include "ir/error.hpp"
#include "model/xgboost.hpp"

namespace attune::xgb {

namespace {
void check(int rc, const char* what) {
  if (rc != 0) throw Error(std::string("xgboost: ") + what + ": " + XGBGetLastError());
}
}  // namespace

Matrix::Matrix(const std::vector<float>& data, std::size_t rows, std::size_t cols) : rows_(rows) {
  if (data.size() != rows * cols)
    throw Error("xgboost: matrix data has " + std::to_string(data.size()) + " values, expected " +
                std::to_string(rows) + " x " + std::to_string(cols));
  DMatrixHandle h = nullptr;
  check(XGDMatrixCreateFromMat(data.data(), rows, cols, std::numeric_limits<float>::quiet_NaN(), &h), "create matrix");
  handle_ = h;
}

Matrix::~Matrix() {
  if (handle_) XGDMatrixFree(handle_);
}

void Matrix::set_labels(const std::vector<float>& labels) {
  check(XGDMatrixSetFloatInfo(handle_, "label", labels.data(), labels.size()), "set labels");
}

void Matrix::set_weights(const std::vector<float>& weights) {
  check(XGDMatrixSetFloatInfo(handle_, "weight", weights.data(), weights.size()), "set weights");
}

void Matrix::set_groups(const std::vector<unsigned>& sizes) {
  check(XGDMatrixSetUIntInfo(handle_, "group", sizes.data(), sizes.size()), "set groups");
}

Booster::Booster() = default;
Booster::Booster(Booster&& o) noexcept : handle_(std::exchange(o.handle_, nullptr)) {}
Booster& Booster::operator=(Booster&& o) noexcept {
  if (this != &o) {
    if (handle_) XGBoosterFree(handle_);
    handle_ = std::exchange(o.handle_, nullptr);
  }
  return *this;
}
Booster::~Booster() {
  if (handle_) XGBoosterFree(handle_);
}

Booster Booster::train(const Matrix& train, const std::map<std::string, std::string>& params, int rounds) {
  DMatrixHandle mats[] = {train.handle()};
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(mats, 1, &h), "create booster");
  Booster b(h);
  // Deterministic and quiet: one thread (results must not depend on the machine's cores, and
  // models are small) and no console output from the library.
  check(XGBoosterSetParam(h, "nthread", "1"), "set nthread");
  check(XGBoosterSetParam(h, "verbosity", "0"), "set verbosity");
  for (const auto& [k, v] : params) check(XGBoosterSetParam(h, k.c_str(), v.c_str()), ("set " + k).c_str());
  for (int i = 0; i < rounds; ++i) check(XGBoosterUpdateOneIter(h, i, train.handle()), "train");
  return b;
}

std::vector<float> Booster::predict(const Matrix& m) const {
  if (!handle_) throw Error("xgboost: predict on an empty booster");
  bst_ulong len = 0;
  const float* out = nullptr;
  check(XGBoosterPredict(handle_, m.handle(), 0, 0, 0, &len, &out), "predict");
  return std::vector<float>(out, out + len);
}

std::string Booster::save() const {
  if (!handle_) throw Error("xgboost: save of an empty booster");
  bst_ulong len = 0;
  const char* buf = nullptr;
  check(XGBoosterSaveModelToBuffer(handle_, R"({"format": "ubj"})", &len, &buf), "save model");
  return std::string(buf, len);
}

Booster Booster::load(const std::string& bytes) {
  BoosterHandle h = nullptr;
  check(XGBoosterCreate(nullptr, 0, &h), "create booster");
  Booster b(h);
  check(XGBoosterLoadModelFromBuffer(h, bytes.data(), bytes.size()), "load model");
  return b;
}

}  // namespace attune::xgb
