// db::Transaction, the same on both backends (connection.hpp).
#include "db/connection.hpp"

namespace attune::db {

Transaction::Transaction(Connection& c, bool exclusive) : c_(c) {
  if (exclusive)
    c_.begin_write();
  else
    c_.begin();
}

Transaction::~Transaction() {
  if (done_) return;
  // A destructor must not throw; a connection that failed is rolled back by its server.
  try {
    c_.exec("ROLLBACK");
  } catch (...) {
  }
}

void Transaction::commit() {
  c_.exec("COMMIT");
  done_ = true;
}

}  // namespace attune::db
