// held_out_quality(): V, P and A trained on 70% of a workload's distinct configs, scored on
// the other 30% (model_quality.hpp). The split hashes the visible features, so it is the same
// on every run of the program and independent of which strategy found a config.
#include "model_quality.hpp"

#include <algorithm>
#include <functional>
#include <map>

#include "model/cost_model.hpp"
#include "model/features.hpp"

namespace attune::bench {

namespace {

struct Row {
  std::vector<float> visible, combined;
  bool valid = false, has_hidden = false;
  double time_s = 0;
};

bool held_out(const std::vector<float>& v) {
  std::size_t h = 1469598103934665603ull;
  for (float x : v) h = (h ^ std::hash<float>{}(x)) * 1099511628211ull;
  return (h % 10) < 3;
}

std::vector<float> labels(const std::vector<const Row*>& rows) {
  std::vector<double> times;
  for (const Row* r : rows) times.push_back(r->time_s);
  return relative_throughput(times);
}

}  // namespace

ModelQuality held_out_quality(const std::vector<const Run*>& runs, const std::string& hidden_kind) {
  std::map<std::vector<float>, Row> by_config;  // NaN-free key: the visible vector's bytes
  for (const Run* run : runs)
    for (const auto& a : run->attempts) {
      if (a.visible.empty()) continue;
      std::vector<float> key = a.visible;
      for (float& x : key)
        if (x != x) x = -1e30f;  // NaN never compares equal; give it one stand-in value
      Row& r = by_config[key];
      r.visible = a.visible;
      r.valid = a.status == Status::ok;
      r.time_s = a.time_s;
      if (!a.hidden.is_null()) {
        r.combined = with_hidden(a.visible, a.hidden, hidden_kind);
        r.has_hidden = true;
      }
    }
  std::vector<const Row*> train, test;
  for (const auto& [k, r] : by_config) (held_out(k) ? test : train).push_back(&r);

  ModelQuality q;
  q.train_rows = static_cast<int>(train.size());
  q.test_rows = static_cast<int>(test.size());
  FeatureRows vx, px, ax;
  std::vector<float> vy;
  std::vector<const Row*> ptr, atr;
  for (const Row* r : train) {
    vx.push_back(r->visible);
    vy.push_back(r->valid ? 1.f : 0.f);
    if (!r->valid) continue;
    px.push_back(r->visible);
    ptr.push_back(r);
    if (r->has_hidden) {
      ax.push_back(r->combined);
      atr.push_back(r);
    }
  }
  std::vector<const Row*> tv;
  for (const Row* r : test)
    if (r->valid && r->has_hidden) tv.push_back(r);
  q.test_valid = static_cast<int>(tv.size());
  if (ptr.size() < 4 || atr.size() < 4 || tv.size() < 2) return q;

  CostModel p(ModelKind::rank), a(ModelKind::rank);
  p.fit(px, labels(ptr));
  a.fit(ax, labels(atr));
  FeatureRows tpx, tax;
  std::vector<double> times;
  for (const Row* r : tv) {
    tpx.push_back(r->visible);
    tax.push_back(r->combined);
    times.push_back(r->time_s);
  }
  const auto ps = p.predict(tpx), as = a.predict(tax);
  q.p_pairwise = pairwise_accuracy(ps, times);
  q.a_pairwise = pairwise_accuracy(as, times);
  q.p_peak1 = peak_at_k(ps, times, 1);
  q.a_peak1 = peak_at_k(as, times, 1);
  q.p_peak5 = peak_at_k(ps, times, 5);
  q.a_peak5 = peak_at_k(as, times, 5);

  bool any_invalid = std::find(vy.begin(), vy.end(), 0.f) != vy.end();
  bool any_valid = std::find(vy.begin(), vy.end(), 1.f) != vy.end();
  if (any_invalid && any_valid) {
    CostModel v(ModelKind::validity);
    v.fit(vx, vy);
    FeatureRows tx;
    std::vector<bool> truth;
    for (const Row* r : test) {
      tx.push_back(r->visible);
      truth.push_back(r->valid);
    }
    const auto cq = classifier_quality(v.predict(tx), truth);
    q.v_precision = cq.precision;
    q.v_recall = cq.recall;
    q.v_accuracy = cq.accuracy;
  }
  q.ok = true;
  return q;
}

}  // namespace attune::bench
