// db/not_ready.hpp — the one connection failure worth waiting out.
//
// A PostgreSQL server that answers but accepts no connections yet or any more (starting up,
// shutting down, recovering: libpq's PQPING_REJECT) will take them again soon; a wrong host, a
// wrong database or a refused password will not. Database::open throws this subclass of
// attune::Error for the first kind only, so a worker launched with its database (a Slurm array,
// a Kubernetes Job) waits for the server, while a typo still stops it with one line at once.
#pragma once

#include "ir/error.hpp"

namespace attune {

class DatabaseNotReady : public Error {
 public:
  using Error::Error;
};

}  // namespace attune
