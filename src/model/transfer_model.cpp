// The cross-task models of a target (transfer_model.hpp): rows from every task's records,
// training, and the stored copy with the data version it learnt from.
#include "model/transfer_model.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <tuple>

#include <nlohmann/json.hpp>

#include "ir/error.hpp"
#include "model/features.hpp"

namespace attune {

namespace {

constexpr std::size_t kMinValidRows = 8;  // P and A need this many valid rows, from any tasks
constexpr int kTransferRankRounds = 120;  // rows from many tasks: more trees than one task's model
constexpr int kTransferRankDepth = 6;
constexpr std::int64_t kStaleNewRecords = 32;  // retrain once this many unseen records exist ...
constexpr double kStaleShare = 0.1;            // ... or a tenth of what the model saw, if fewer

// The record's transfer features; empty when it has none (an older record, or a space
// without them). JSON null stands for NaN (XGBoost's missing value).
std::vector<float> transfer_of(const Record& r) {
  std::vector<float> f;
  if (!r.features.is_object()) return f;
  const auto it = r.features.find(kTransferFeature);
  if (it == r.features.end() || !it->is_array()) return f;
  for (const auto& x : *it) f.push_back(x.is_number() ? x.get<float>() : std::numeric_limits<float>::quiet_NaN());
  return f;
}

std::string header_of(const TransferModel& m) {
  nlohmann::json h = {{"format", "attune-transfer-1"},
                      {"data_version", m.data_version},
                      {"rows", m.rows},
                      {"valid_rows", m.valid_rows},
                      {"tasks", m.tasks}};
  for (const auto& [name, model] :
       {std::pair{"V", &m.v}, std::pair{"P", &m.p}, std::pair{"A", &m.a}})
    h["sizes"][name] = *model ? (*model)->save().size() : 0;
  return h.dump();
}

}  // namespace

std::string TransferModel::save() const {
  std::string out = header_of(*this) + "\n";
  for (const auto* model : {&v, &p, &a})
    if (*model) out += (*model)->save();
  return out;
}

TransferModel TransferModel::load(const std::string& bytes) {
  const auto nl = bytes.find('\n');
  nlohmann::json h;
  try {
    h = nlohmann::json::parse(bytes.substr(0, nl == std::string::npos ? 0 : nl));
  } catch (const nlohmann::json::exception&) {
    throw Error("transfer model: saved bytes have no header");
  }
  if (!h.is_object() || h.value("format", "") != "attune-transfer-1")
    throw Error("transfer model: unknown format (expected attune-transfer-1)");
  TransferModel m;
  try {
    m.data_version = h.at("data_version").get<std::int64_t>();
    m.rows = h.at("rows").get<std::int64_t>();
    m.valid_rows = h.at("valid_rows").get<std::int64_t>();
    m.tasks = h.at("tasks").get<std::int64_t>();
    std::size_t at = nl + 1;
    for (const auto& [name, model, kind] :
         {std::tuple{"V", &m.v, ModelKind::validity}, std::tuple{"P", &m.p, ModelKind::rank},
          std::tuple{"A", &m.a, ModelKind::rank}}) {
      const std::size_t size = h.at("sizes").at(name).get<std::size_t>();
      if (size == 0) continue;
      if (at + size > bytes.size()) throw Error("transfer model: saved bytes are truncated");
      *model = CostModel::load(kind, bytes.substr(at, size));
      at += size;
    }
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("transfer model: bad header: ") + e.what());
  }
  return m;
}

TransferRows transfer_rows(const Database& db, const std::string& target, const std::string& hidden_kind) {
  TransferRows rows;
  for (const TaskInfo& task : db.tasks()) {
    if (task.target != target) continue;
    struct Attempt {
      std::vector<float> x;
      const Record* r;
    };
    const std::vector<Record> records = db.records(task.id);
    std::vector<Attempt> attempts;
    std::set<std::string> seen;
    double best = 0;
    for (const Record& r : records) {
      if (r.strategy == kConfirmStrategy || !seen.insert(r.trace_hash).second) continue;
      std::vector<float> x = transfer_of(r);
      if (x.empty()) continue;
      rows.max_record_id = std::max(rows.max_record_id, r.id);
      if (r.ok() && r.median_s > 0 && (best == 0 || r.median_s < best)) best = r.median_s;
      attempts.push_back({std::move(x), &r});
    }
    if (attempts.empty()) continue;
    ++rows.tasks;
    unsigned p_n = 0, a_n = 0;
    for (const Attempt& at : attempts) {
      const Record& r = *at.r;
      // Rows of another width (features added in a later version) cannot share a model.
      if (!rows.v_x.empty() && at.x.size() != rows.v_x.front().size()) continue;
      rows.v_x.push_back(at.x);
      rows.v_y.push_back(r.ok() ? 1.f : 0.f);
      if (!r.ok() || r.median_s <= 0) continue;
      const float label = static_cast<float>(best / r.median_s);
      rows.p_x.push_back(at.x);
      rows.p_y.push_back(label);
      ++p_n;
      if (r.hidden_features.is_object()) {
        rows.a_x.push_back(with_hidden(at.x, r.hidden_features, hidden_kind));
        rows.a_y.push_back(label);
        ++a_n;
      }
    }
    if (p_n > 0) rows.p_groups.push_back(p_n);
    if (a_n > 0) rows.a_groups.push_back(a_n);
  }
  return rows;
}

TransferModel train_transfer_model(const TransferRows& rows) {
  TransferModel m;
  m.data_version = rows.max_record_id;
  m.rows = static_cast<std::int64_t>(rows.v_x.size());
  m.valid_rows = static_cast<std::int64_t>(rows.p_x.size());
  m.tasks = rows.tasks;
  const bool any_valid = std::find(rows.v_y.begin(), rows.v_y.end(), 1.f) != rows.v_y.end();
  const bool any_invalid = std::find(rows.v_y.begin(), rows.v_y.end(), 0.f) != rows.v_y.end();
  if (any_valid && any_invalid) {
    m.v.emplace(ModelKind::validity);
    m.v->fit(rows.v_x, rows.v_y);
  }
  const FitOptions ranker{.rounds = kTransferRankRounds, .max_depth = kTransferRankDepth};
  if (rows.p_x.size() >= kMinValidRows) {
    m.p.emplace(ModelKind::rank);
    m.p->fit(rows.p_x, rows.p_y, rows.p_groups, ranker);
  }
  if (rows.a_x.size() >= kMinValidRows) {
    m.a.emplace(ModelKind::rank);
    m.a->fit(rows.a_x, rows.a_y, rows.a_groups, ranker);
  }
  return m;
}

std::optional<TransferModel> current_transfer_model(Database& db, const std::string& target,
                                                    const std::string& hidden_kind) {
  std::optional<TransferModel> stored;
  try {
    if (auto blob = db.latest_model(target, kTransferModelKind)) stored = TransferModel::load(blob->blob);
  } catch (const Error&) {
    stored.reset();  // written by another version: retrain
  }
  const TransferRows rows = transfer_rows(db, target, hidden_kind);
  if (rows.p_x.empty()) return std::nullopt;
  if (stored && stored->data_version <= rows.max_record_id) {
    const auto unseen = static_cast<std::int64_t>(rows.v_x.size()) - stored->rows;
    if (unseen < kStaleNewRecords && unseen < kStaleShare * static_cast<double>(stored->rows) + 1) return stored;
  }
  TransferModel fresh = train_transfer_model(rows);
  if (!db.read_only()) db.save_model(target, kTransferModelKind, fresh.save());
  return fresh;
}

}  // namespace attune
