// The cross-task models of a target (transfer_model.hpp): rows from every task's records,
// training, and the stored copy with the data version it learnt from.
#include "model/transfer_model.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <thread>
#include <tuple>
#include <utility>

#include <nlohmann/json.hpp>

#include "ir/error.hpp"
#include "ir/op.hpp"
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
  nlohmann::json h = {
      {"format", "attune-transfer-1"},
      {"data_version", m.data_version},
      {"rows", m.rows},
      {"valid_rows", m.valid_rows},
      {"tasks", m.tasks},
      {"pick_rule", m.pick_rule ? nlohmann::json{{"among", m.pick_rule->among}, {"families", m.pick_rule->families}}
                                : nlohmann::json()}};
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
    if (h.contains("pick_rule") && !h["pick_rule"].is_null())
      m.pick_rule = PickRule{h["pick_rule"].at("among").get<int>(), h["pick_rule"].at("families").get<int>()};
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
    TransferRows::Task where{op_family(task.spec), rows.p_x.size(), 0, rows.a_x.size(), 0};
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
    where.p_count = p_n;
    where.a_count = a_n;
    if (p_n > 0) rows.valid_tasks.push_back(std::move(where));
  }
  return rows;
}

namespace {

// An access with each index reduced to its variables and their signs ("I[n,p+r,c]"): the
// coefficients (strides, dilations) and constants (paddings) left out; a divided index (a
// transposed convolution's) in parentheses.
std::string access_shape(const Access& a) {
  std::string out = a.tensor + "[";
  for (std::size_t i = 0; i < a.index.size(); ++i) {
    const AffineExpr& e = a.index[i];
    std::string terms;
    for (const auto& [v, c] : e.terms) terms += (c < 0 ? "-" : terms.empty() ? "" : "+") + v;
    out += (i ? "," : "") + (e.divisor > 1 ? "(" + terms + ")" : terms);
  }
  return out + "]";
}

}  // namespace

std::string op_family(const std::string& spec) {
  Op op;
  try {
    op = parse_spec(spec);
  } catch (const Error&) {
    return spec;  // not a spec this version reads: a family of its own
  }
  if (op.multi_stage()) return spec;  // no transfer features: never judged
  std::string family = access_shape(op.output) + "+=";
  for (std::size_t i = 0; i < op.inputs.size(); ++i) family += (i ? "*" : "") + access_shape(op.inputs[i]);
  if (op.epilogue.bias) family += ";bias";
  if (op.epilogue.relu) family += ";relu";
  if (op.epilogue.value) family += ";value";
  return family + "\n";
}

namespace {

// One ranker's training rows: features, labels and one group per task.
struct RankRows {
  FeatureRows x;
  std::vector<float> y;
  std::vector<unsigned> groups;
  // Appends the group of `count` rows of (x, y) from `begin`, if any.
  void add_group(const FeatureRows& from_x, const std::vector<float>& from_y, std::size_t begin, std::size_t count) {
    if (count == 0) return;
    x.insert(x.end(), from_x.begin() + begin, from_x.begin() + begin + count);
    y.insert(y.end(), from_y.begin() + begin, from_y.begin() + begin + count);
    groups.push_back(static_cast<unsigned>(count));
  }
};

// P's and A's training rows without the tasks of `family`.
std::pair<RankRows, RankRows> rows_without(const TransferRows& rows, const std::string& family) {
  RankRows p, a;
  for (const TransferRows::Task& t : rows.valid_tasks)
    if (t.family != family) {
      p.add_group(rows.p_x, rows.p_y, t.p_begin, t.p_count);
      a.add_group(rows.a_x, rows.a_y, t.a_begin, t.a_count);
    }
  return {std::move(p), std::move(a)};
}

FitOptions ranker_options() {
  FitOptions o;
  o.rounds = kTransferRankRounds;
  o.max_depth = kTransferRankDepth;
  return o;
}

}  // namespace

std::vector<PickRuleScore> judge_pick_rules(const TransferRows& rows, const std::vector<int>& among) {
  std::vector<std::string> families;
  for (const auto& t : rows.valid_tasks)
    if (std::find(families.begin(), families.end(), t.family) == families.end()) families.push_back(t.family);
  if (families.size() < 2) return {};
  // Per family: each rule's summed labels and the tasks judged; each worker fills its own.
  std::vector<std::vector<double>> sums(families.size(), std::vector<double>(among.size(), 0.0));
  std::vector<int> judged(families.size(), 0);
  const auto judge_family = [&](std::size_t f) {
    const auto [p_rows, a_rows] = rows_without(rows, families[f]);
    if (p_rows.x.size() < kMinValidRows || a_rows.x.size() < kMinValidRows) return;
    CostModel p(ModelKind::rank), a(ModelKind::rank);
    p.fit(p_rows.x, p_rows.y, p_rows.groups, ranker_options());
    a.fit(a_rows.x, a_rows.y, a_rows.groups, ranker_options());
    for (const TransferRows::Task& t : rows.valid_tasks) {
      // A's rows are P's with the hidden features, in the same order, where every row has them.
      if (t.family != families[f] || t.a_count != t.p_count || t.p_count < 2) continue;
      const FeatureRows px(rows.p_x.begin() + t.p_begin, rows.p_x.begin() + t.p_begin + t.p_count);
      const FeatureRows ax(rows.a_x.begin() + t.a_begin, rows.a_x.begin() + t.a_begin + t.a_count);
      const std::vector<float> ps = p.predict(px), as = a.predict(ax);
      std::vector<std::size_t> order(t.p_count);
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) { return ps[x] > ps[y]; });
      for (std::size_t r = 0; r < among.size(); ++r) {
        const std::size_t k = std::min<std::size_t>(std::max(among[r], 1), t.p_count);
        const auto pick = *std::max_element(order.begin(), order.begin() + k,
                                            [&](std::size_t x, std::size_t y) { return as[x] < as[y]; });
        sums[f][r] += rows.p_y[t.p_begin + pick];
      }
      ++judged[f];
    }
  };
  // Each fit is single-threaded (xgb_booster.cpp), so the families run side by side.
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> failed(families.size());
  const auto worker = [&] {
    for (std::size_t f; (f = next++) < families.size();) try {
        judge_family(f);
      } catch (...) {
        failed[f] = std::current_exception();
      }
  };
  std::vector<std::thread> workers;
  const std::size_t n = std::min<std::size_t>(families.size(), std::max(1u, std::thread::hardware_concurrency()));
  for (std::size_t i = 1; i < n; ++i) workers.emplace_back(worker);
  worker();
  for (auto& w : workers) w.join();
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);

  std::vector<PickRuleScore> scores;
  for (std::size_t r = 0; r < among.size(); ++r) {
    PickRuleScore s{among[r], 0.0, 0, 0};
    for (std::size_t f = 0; f < families.size(); ++f) {
      s.mean += sums[f][r];
      s.tasks += judged[f];
      s.families += judged[f] > 0;
    }
    if (s.tasks > 0) s.mean /= s.tasks;
    scores.push_back(s);
  }
  return scores;
}

namespace {

// Whether `rows` hold two families or more, so that one can be left out.
bool judgeable(const TransferRows& rows) {
  for (const auto& t : rows.valid_tasks)
    if (t.family != rows.valid_tasks.front().family) return true;
  return false;
}

}  // namespace

PickRule choose_pick_rule(const TransferRows& rows) {
  const std::vector<int> rules(std::begin(kPickRules), std::end(kPickRules));
  PickRule best{rules.back(), 0};
  double best_mean = -1;
  for (const PickRuleScore& s : judge_pick_rules(rows, rules))
    if (s.tasks > 0 && s.mean > best_mean) {
      best = {s.among, s.families};
      best_mean = s.mean;
    }
  return best;
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
  const FitOptions ranker = ranker_options();
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
                                                    const std::string& hidden_kind, bool with_pick_rule) {
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
    if (unseen < kStaleNewRecords && unseen < kStaleShare * static_cast<double>(stored->rows) + 1) {
      // Judged once per model; a default judged on one family is judged again once there are two.
      if (with_pick_rule && (!stored->pick_rule || (stored->pick_rule->families == 0 && judgeable(rows)))) {
        stored->pick_rule = choose_pick_rule(rows);
        if (!db.read_only()) db.save_model(target, kTransferModelKind, stored->save());
      }
      return stored;
    }
  }
  TransferModel fresh = train_transfer_model(rows);
  if (with_pick_rule) fresh.pick_rule = choose_pick_rule(rows);
  if (!db.read_only()) db.save_model(target, kTransferModelKind, fresh.save());
  return fresh;
}

}  // namespace attune
