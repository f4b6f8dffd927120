// dnnl_engine.hpp — the one oneDNN CPU engine that every oneDNN baseline runs on
// (baselines_dnnl.cpp, baselines_dnnl_fused.cpp).
#pragma once

#include <dnnl.hpp>

namespace bench {

dnnl::engine& dnnl_engine();

}  // namespace bench
