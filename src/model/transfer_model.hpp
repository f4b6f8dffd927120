// model/transfer_model.hpp — the cross-task cost models of one target: what every task tuned
// so far teaches the next one.
//
// Every record of a target, whatever task, op family or strategy produced it, is a training row,
// provided it carries transfer features (Record::features["transfer"], written by the tuning
// loop from Space::transfer_features: the loop nest's static features and the parallel split,
// relative to the op, with no knob of any one space, so rows of a GEMM and of a convolution
// line up column by column). Three XGBoost models, as in ML²Tuner (cost_model.hpp):
//   V  validity, from every attempt (label: ok or not), when the target has failures at all
//   P  rank:pairwise on the transfer features, from valid measurements
//   A  rank:pairwise on the transfer features followed by the hidden features
// A ranker's label is the record's throughput relative to its own task's best (best / time),
// and rows are ranked within their task only (one ranking group per task): a slow GEMM is not
// "worse" than a fast convolution, it is worse than the GEMM's best.
//
// The models are stored in the database's models table as kind "transfer" per target,
// together with the data version they learnt from (the largest record id, and the row and task
// counts), so a tuner opening the database knows whether they are current.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "db/db.hpp"
#include "model/cost_model.hpp"

namespace attune {

inline constexpr const char* kTransferFeature = "transfer";      // the key in Record::features
inline constexpr const char* kTransferModelKind = "transfer";    // the kind in the models table

// Zero-shot's pick rules (predict_search.cpp): A, after compiling, chooses among P's first k
// candidates; k = 1 is P alone. Which carries best to an unseen family differs by machine: on
// a Zen 5 A among 24 picked 0.83 of the best, on a Xeon it misranked the larger spaces' seeds
// (docs/results/transfer-2026-12-07-xeon.md), so the rule is chosen from the data
// (choose_pick_rule) and the last is the default where the data cannot choose.
inline constexpr int kPickRules[] = {1, 4, 24};

struct PickRule {
  int among = 0;     // A chooses among P's first `among`; 1: P alone
  int families = 0;  // op families it was judged on; 0: the default, too few families to judge
  bool operator==(const PickRule&) const = default;
};

struct TransferModel {
  std::optional<CostModel> v, p, a;
  std::int64_t data_version = 0;  // the largest record id it learnt from
  std::int64_t rows = 0;          // distinct attempts it learnt from (V's rows)
  std::int64_t valid_rows = 0;    // of which valid (P's rows)
  std::int64_t tasks = 0;         // tasks those rows came from
  std::optional<PickRule> pick_rule;  // zero-shot's (choose_pick_rule), once judged

  std::string save() const;
  // Throws Error for bytes that are not a saved TransferModel.
  static TransferModel load(const std::string& bytes);
};

// The rows a target's transfer models learn from: every record of `target` in `db` with
// transfer features (confirmations and repeated traces counted once), grouped by task.
struct TransferRows {
  FeatureRows v_x, p_x, a_x;
  std::vector<float> v_y, p_y, a_y;
  std::vector<unsigned> p_groups, a_groups;  // rows per task, in row order
  // One per task with valid rows, in row order: its op family and where its P and A rows are.
  struct Task {
    std::string family;  // op_family(spec)
    std::size_t p_begin = 0, p_count = 0, a_begin = 0, a_count = 0;
  };
  std::vector<Task> valid_tasks;
  std::int64_t max_record_id = 0;
  std::int64_t tasks = 0;
};
TransferRows transfer_rows(const Database& db, const std::string& target, const std::string& hidden_kind);

// The op family of a task's canonical spec: its accesses with each index reduced to its
// variables and their signs (parse_spec() reads it), so shapes, paddings and strides of one
// operator share it and a GEMM, a batched GEMM and a convolution do not.
std::string op_family(const std::string& spec);

// Trains the three models on `rows`; a model whose rows do not allow it (no failure for V, too
// few valid rows for P or A) is left empty.
TransferModel train_transfer_model(const TransferRows& rows);

// How well zero-shot's pick rules (A chooses among P's `among` best candidates; 1 is P alone)
// carry to a family the models never saw: each family of `rows` in turn is left out, P and A
// are trained on the others, and each of its tasks' valid rows are ranked; a rule's score is
// the mean over those tasks of its pick's label (the pick's speed as a fraction of the task's
// best). Empty with fewer than two families. The families are judged in parallel.
struct PickRuleScore {
  int among = 0;
  double mean = 0;
  int tasks = 0;     // tasks judged
  int families = 0;  // families they came from (one with too few rows left out is not judged)
};
std::vector<PickRuleScore> judge_pick_rules(const TransferRows& rows, const std::vector<int>& among);

// The rule of kPickRules that judge_pick_rules scores best (the fewer candidates on a tie);
// kPickRules' last where the rows cannot judge.
PickRule choose_pick_rule(const TransferRows& rows);

// The target's transfer model, current enough for a tuner: the stored one when the records it
// has not seen are fewer than a tenth of those it learnt from (and fewer than 32), else one
// retrained on every record now there, saved back unless `db` is read-only. nullopt when the
// target has no valid record with transfer features. `with_pick_rule`: the model also carries
// zero-shot's pick rule, judged now (seconds: two models per family) when it has none yet and
// saved with it; only zero-shot needs it, so a tuner does not pay for it.
std::optional<TransferModel> current_transfer_model(Database& db, const std::string& target,
                                                    const std::string& hidden_kind, bool with_pick_rule = false);

}  // namespace attune
