// The cross-task models: rows come from every task of the target (and only those with transfer
// features), a ranker trained on some tasks orders a task it never saw, the stored copy
// round-trips with its data version, a tuner is handed the stored copy until enough new
// records make it retrain, and zero-shot's pick rule is judged on families left out in turn.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "db/db.hpp"
#include "ir/error.hpp"
#include "ir/op.hpp"
#include "model/transfer_model.hpp"

namespace attune {
namespace {

// A "machine" whose time for a config depends on its features the same way in every task,
// scaled by the task's size: what transfer learning assumes and what it must find.
double time_of(const std::vector<float>& x, double scale) {
  return scale * (1.0 + 3.0 * (x[0] - 0.3) * (x[0] - 0.3) + (x[1] > 0.5 ? 0.5 : 0.0) + 0.1 * x[2]);
}

// A machine whose time depends on `h`, what only compiling shows (a hidden feature), far more
// than on the transfer features: P can barely rank, A can.
double hidden_time_of(const std::vector<float>& x, float h, double scale) {
  return scale * (1.0 + 3.0 * (h - 0.3) * (h - 0.3) + 0.1 * x[0]);
}

// A canonical spec of op `family` ("spec" and "gemm": GEMM, "conv", "dwconv"), its size
// varying with `n`: every task its own shape, tasks of one family one op_family().
std::string spec_of(const std::string& family, int n) {
  const std::string m = std::to_string(8 + n);
  const std::string cli = family == "conv"     ? "conv2d:N=1,H=" + m + ",W=8,C=4,K=8,R=3,S=3,stride=1,pad=1"
                          : family == "dwconv" ? "depthwise_conv2d:N=1,H=" + m + ",W=8,C=8,R=3,S=3,stride=1,pad=1"
                                               : "gemm:M=" + m + ",N=16,K=8";
  return canonical_spec(op_from_cli(cli));
}

struct Fake {
  Database db = Database::open(":memory:");
  std::mt19937_64 rng{7};
  int serial = 0;

  // `n` attempts of a new task of op `family`: random features, a tenth of them invalid
  // (x[3] > 0.9). `hidden`: the time depends on a hidden feature (hidden_time_of).
  std::int64_t add_task(const std::string& target, int n, double scale, bool with_transfer = true,
                        const std::string& family = "spec", bool hidden = false) {
    const TaskInfo t = db.get_or_create_task("t" + std::to_string(serial), spec_of(family, serial), target);
    ++serial;
    std::uniform_real_distribution<float> u(0, 1);
    for (int i = 0; i < n; ++i) {
      std::vector<float> x = {u(rng), u(rng), u(rng), u(rng)};
      const float h = u(rng);
      Record r;
      r.task_id = t.id;
      r.trace = "[]";
      r.trace_hash = "h" + std::to_string(serial) + "_" + std::to_string(i);
      r.features = nlohmann::json::object();
      if (with_transfer) r.features[kTransferFeature] = x;
      r.hidden_features = {{"fma", 10 * (hidden ? h : x[0])}};
      r.strategy = "random";
      r.trial = i;
      if (x[3] > 0.9f) {
        r.status = Status::compile_error;
        r.error = "no";
      } else {
        r.median_s = hidden ? hidden_time_of(x, h, scale) : time_of(x, scale);
        r.times_s = {r.median_s};
      }
      db.insert(r);
    }
    return t.id;
  }
};

TEST(TransferModel, RowsComeFromEveryTaskOfTheTargetWithTransferFeatures) {
  Fake f;
  f.add_task("x86", 30, 1.0);
  f.add_task("x86", 20, 100.0);
  f.add_task("x86", 25, 1.0, /*with_transfer=*/false);  // older records: nothing to learn from
  f.add_task("vta", 15, 1.0);                           // another target
  const TransferRows rows = transfer_rows(f.db, "x86", "cpu");
  EXPECT_EQ(rows.tasks, 2);
  EXPECT_EQ(rows.v_x.size(), 50u);
  EXPECT_EQ(rows.p_x.size(), rows.p_y.size());
  ASSERT_EQ(rows.p_groups.size(), 2u);
  EXPECT_EQ(rows.p_groups[0] + rows.p_groups[1], rows.p_x.size());
  EXPECT_EQ(rows.a_x.front().size(), 4u + 10u) << "transfer features, then the cpu hidden features";
  // Labels are relative to each task's own best: the best row of each task is 1.
  float top = 0;
  for (float y : rows.p_y) {
    EXPECT_GT(y, 0.f);
    EXPECT_LE(y, 1.f);
    top = std::max(top, y);
  }
  EXPECT_FLOAT_EQ(top, 1.f);
}

TEST(TransferModel, RankerTrainedOnOtherTasksOrdersANewTaskWellAboveChance) {
  Fake train, held_out;
  for (int k = 0; k < 4; ++k) train.add_task("x86", 60, std::pow(10.0, k));
  const TransferModel m = train_transfer_model(transfer_rows(train.db, "x86", "cpu"));
  ASSERT_TRUE(m.p && m.v && m.a);
  EXPECT_EQ(m.tasks, 4);

  held_out.add_task("x86", 80, 3.0);
  const TransferRows test = transfer_rows(held_out.db, "x86", "cpu");
  std::vector<double> times;
  for (float y : test.p_y) times.push_back(1.0 / y);
  EXPECT_GT(pairwise_accuracy(m.p->predict(test.p_x), times), 0.8);
  EXPECT_GT(pairwise_accuracy(m.a->predict(test.a_x), times), 0.8);
  std::vector<bool> valid;
  for (float y : test.v_y) valid.push_back(y > 0.5f);
  EXPECT_GT(classifier_quality(m.v->predict(test.v_x), valid).accuracy, 0.9);
}

TEST(TransferModel, SavedBytesLoadToTheSameModelAndDataVersion) {
  Fake f;
  f.add_task("x86", 40, 1.0);
  const TransferRows rows = transfer_rows(f.db, "x86", "cpu");
  TransferModel m = train_transfer_model(rows);
  EXPECT_FALSE(TransferModel::load(m.save()).pick_rule) << "not judged: none saved";
  m.pick_rule = PickRule{4, 7};
  const TransferModel back = TransferModel::load(m.save());
  EXPECT_EQ(back.pick_rule, (PickRule{4, 7}));
  EXPECT_EQ(back.data_version, rows.max_record_id);
  EXPECT_EQ(back.rows, 40);
  EXPECT_EQ(back.tasks, 1);
  ASSERT_TRUE(back.p && back.v && back.a);
  EXPECT_EQ(back.p->predict(rows.p_x), m.p->predict(rows.p_x));
  EXPECT_EQ(back.a->predict(rows.a_x), m.a->predict(rows.a_x));
  for (const std::string bad : {"", "garbage", "{\"format\":\"other\"}\n", "{\"format\":\"attune-transfer-1\"}\n"})
    EXPECT_THROW(TransferModel::load(bad), Error) << bad;
  std::string cut = m.save();
  cut.resize(cut.size() - 10);
  EXPECT_THROW(TransferModel::load(cut), Error) << "truncated";
}

TEST(TransferModel, CurrentModelIsTheStoredOneUntilEnoughNewRecordsArrive) {
  Fake f;
  EXPECT_FALSE(current_transfer_model(f.db, "x86", "cpu")) << "nothing to learn from yet";
  f.add_task("x86", 100, 1.0);
  const auto first = current_transfer_model(f.db, "x86", "cpu");
  ASSERT_TRUE(first && first->p);
  EXPECT_EQ(first->rows, 100);
  const auto stored = f.db.latest_model("x86", kTransferModelKind);
  ASSERT_TRUE(stored) << "saved for the next tuner";

  f.add_task("x86", 5, 2.0);  // fewer than a tenth new: the stored model stands
  EXPECT_EQ(current_transfer_model(f.db, "x86", "cpu")->rows, 100);
  EXPECT_EQ(f.db.latest_model("x86", kTransferModelKind)->id, stored->id);

  f.add_task("x86", 40, 2.0);  // now enough: retrained on all and saved again
  const auto again = current_transfer_model(f.db, "x86", "cpu");
  EXPECT_EQ(again->rows, 145);
  EXPECT_EQ(again->tasks, 3);
  EXPECT_GT(f.db.latest_model("x86", kTransferModelKind)->id, stored->id);
}

TEST(TransferModel, OpFamilyKeepsTheStatementsWithoutTheirNumbers) {
  const std::string gemm_a =
      "tensor A[64, 32] f32\ntensor B[32, 16] f32\ntensor C[64, 16] f32\nC[m, n] += A[m, k] * B[k, n]\n";
  const std::string gemm_b =
      "tensor A[512, 512] f32\ntensor B[512, 8] f32\ntensor C[512, 8] f32\nC[m, n] += A[m, k] * B[k, n]\n";
  const std::string bmm =
      "tensor A[2, 8, 8] f32\ntensor B[2, 8, 8] f32\ntensor C[2, 8, 8] f32\nC[b, m, n] += A[b, m, k] * B[b, k, n]\n";
  const std::string conv_s1 =
      "tensor I[1, 8, 9, 9] f32\ntensor W[4, 8, 3, 3] f32\ntensor O[1, 4, 7, 7] f32\n"
      "O[n, k, p, q] += I[n, c, p + r, q + s] * W[k, c, r, s]\n";
  const std::string conv_s2 =
      "tensor I[1, 8, 17, 17] f32\ntensor W[4, 8, 3, 3] f32\ntensor O[1, 4, 8, 8] f32\n"
      "O[n, k, p, q] += I[n, c, 2*p + r - 1, 2*q + s - 1] * W[k, c, r, s]\n";
  EXPECT_EQ(op_family(gemm_a), op_family(gemm_b)) << "sizes do not make a family";
  EXPECT_EQ(op_family(conv_s1), op_family(conv_s2)) << "nor do strides and paddings";
  const std::string c1d =
      "tensor I[1, 33, 4] f32\ntensor W[3, 4, 8] f32\ntensor O[1, 16, 8] f32\n"
      "O[n, l, k] += I[n, l*2 + r, c] * W[r, c, k]\n";
  EXPECT_EQ(op_family(c1d), "O[n,l,k]+=I[n,l+r,c]*W[r,c,k]\n") << "a stride after its index keeps the sum";
  EXPECT_NE(op_family(gemm_a), op_family(bmm));
  EXPECT_NE(op_family(gemm_a), op_family(conv_s1));
  EXPECT_EQ(op_family(gemm_a).find("tensor"), std::string::npos);
}

TEST(TransferModel, PickRuleIsJudgedOnFamiliesTheModelsDidNotSee) {
  // Three families whose speed only compiling shows: A, choosing among many of P's, picks far
  // better than P alone, on every family left out.
  Fake hidden;
  for (const std::string family : {"gemm", "conv", "dwconv"})
    for (int k = 0; k < 2; ++k) hidden.add_task("x86", 60, std::pow(10.0, k), true, family, /*hidden=*/true);
  const TransferRows rows = transfer_rows(hidden.db, "x86", "cpu");
  ASSERT_EQ(rows.valid_tasks.size(), 6u);
  const std::vector<PickRuleScore> scores = judge_pick_rules(rows, {1, 24});
  ASSERT_EQ(scores.size(), 2u);
  for (const PickRuleScore& s : scores) {
    EXPECT_EQ(s.tasks, 6) << "every task judged once, with its family left out";
    EXPECT_GT(s.mean, 0.0);
    EXPECT_LE(s.mean, 1.0);
  }
  EXPECT_GT(scores[1].mean, scores[0].mean + 0.1) << "A among 24 against P alone";
  EXPECT_GT(scores[1].mean, 0.85);
  EXPECT_EQ(choose_pick_rule(rows), (PickRule{24, 3}));

  // One family: nothing to leave out, so nothing judged and the default rule.
  Fake one;
  for (int k = 0; k < 3; ++k) one.add_task("x86", 40, 1.0);
  const TransferRows one_rows = transfer_rows(one.db, "x86", "cpu");
  EXPECT_TRUE(judge_pick_rules(one_rows, {1, 24}).empty());
  EXPECT_EQ(choose_pick_rule(one_rows), (PickRule{std::end(kPickRules)[-1], 0})) << "the default, not judged";
}

TEST(TransferModel, OnlyZeroShotPaysForThePickRuleAndItIsSavedWithTheModel) {
  Fake f;
  for (const std::string family : {"gemm", "conv"}) f.add_task("x86", 50, 1.0, true, family, /*hidden=*/true);
  const auto tuner = current_transfer_model(f.db, "x86", "cpu");
  ASSERT_TRUE(tuner);
  EXPECT_FALSE(tuner->pick_rule) << "a tuner does not need it";
  const auto stored = f.db.latest_model("x86", kTransferModelKind);
  ASSERT_TRUE(stored);

  const auto zero_shot = current_transfer_model(f.db, "x86", "cpu", /*with_pick_rule=*/true);
  ASSERT_TRUE(zero_shot && zero_shot->pick_rule);
  EXPECT_EQ(*zero_shot->pick_rule, choose_pick_rule(transfer_rows(f.db, "x86", "cpu")));
  EXPECT_EQ(zero_shot->pick_rule->families, 2);
  EXPECT_EQ(zero_shot->data_version, tuner->data_version) << "the same model, judged";
  const auto saved = f.db.latest_model("x86", kTransferModelKind);
  EXPECT_GT(saved->id, stored->id);
  EXPECT_EQ(TransferModel::load(saved->blob).pick_rule, zero_shot->pick_rule);
  EXPECT_EQ(current_transfer_model(f.db, "x86", "cpu", true)->pick_rule, zero_shot->pick_rule);
  EXPECT_EQ(f.db.latest_model("x86", kTransferModelKind)->id, saved->id) << "judged once";
}

TEST(TransferModel, ADefaultRuleIsJudgedAgainOnceThereAreTwoFamilies) {
  Fake f;
  f.add_task("x86", 200, 1.0, true, "gemm", /*hidden=*/true);
  const auto one = current_transfer_model(f.db, "x86", "cpu", /*with_pick_rule=*/true);
  ASSERT_TRUE(one && one->pick_rule);
  EXPECT_EQ(one->pick_rule->families, 0) << "one family: the default";
  f.add_task("x86", 14, 1.0, true, "conv", /*hidden=*/true);  // too few new records to retrain
  const auto two = current_transfer_model(f.db, "x86", "cpu", true);
  EXPECT_EQ(two->data_version, one->data_version) << "the same model";
  EXPECT_EQ(two->pick_rule->families, 2) << "its rule judged again";
}

}  // namespace
}  // namespace attune
