#!/usr/bin/python3
"""compare_npy.py ACTUAL.npy EXPECTED.npy TOL: exits 1 unless the shapes match and
max|a - e| <= TOL * max(1, max|e|) (a relative tolerance on the output's scale). Prints the
largest absolute and relative differences either way."""
import sys

import numpy as np

a, e, tol = np.load(sys.argv[1]), np.load(sys.argv[2]), float(sys.argv[3])
if a.shape != e.shape:
    print(f"shape {a.shape} != expected {e.shape}")
    sys.exit(1)
diff = float(np.abs(a.astype(np.float64) - e).max()) if a.size else 0.0
scale = max(1.0, float(np.abs(e).max()) if e.size else 0.0)
print(f"max_abs_diff={diff:.3g} max_rel_diff={diff / scale:.3g}")
sys.exit(0 if diff <= tol * scale else 1)
