// The cross-task models: rows come from every task of the target (and only those with transfer
// features), a ranker trained on some tasks orders a task it never saw, the stored copy
// round-trips with its data version, and a tuner is handed the stored copy until enough new
// records make it retrain.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "db/db.hpp"
#include "ir/error.hpp"
#include "model/transfer_model.hpp"

namespace attune {
namespace {

// A "machine" whose time for a config depends on its features the same way in every task,
// scaled by the task's size: what transfer learning assumes and what it must find.
double time_of(const std::vector<float>& x, double scale) {
  return scale * (1.0 + 3.0 * (x[0] - 0.3) * (x[0] - 0.3) + (x[1] > 0.5 ? 0.5 : 0.0) + 0.1 * x[2]);
}

struct Fake {
  Database db = Database::open(":memory:");
  std::mt19937_64 rng{7};
  int serial = 0;

  // `n` attempts of a new task: random features, a tenth of them invalid (x[3] > 0.9).
  std::int64_t add_task(const std::string& target, int n, double scale, bool with_transfer = true) {
    const TaskInfo t = db.get_or_create_task("t" + std::to_string(serial), "spec " + std::to_string(serial), target);
    ++serial;
    std::uniform_real_distribution<float> u(0, 1);
    for (int i = 0; i < n; ++i) {
      std::vector<float> x = {u(rng), u(rng), u(rng), u(rng)};
      Record r;
      r.task_id = t.id;
      r.trace = "[]";
      r.trace_hash = "h" + std::to_string(serial) + "_" + std::to_string(i);
      r.features = nlohmann::json::object();
      if (with_transfer) r.features[kTransferFeature] = x;
      r.hidden_features = {{"fma", 10 * x[0]}};
      r.strategy = "random";
      r.trial = i;
      if (x[3] > 0.9f) {
        r.status = Status::compile_error;
        r.error = "no";
      } else {
        r.median_s = time_of(x, scale);
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
  const TransferModel m = train_transfer_model(rows);
  const TransferModel back = TransferModel::load(m.save());
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

}  // namespace
}  // namespace attune
