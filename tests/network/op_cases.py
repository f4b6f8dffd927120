#!/usr/bin/python3
"""Single-operator ONNX models covering the attribute forms attune's importer must read.

   /usr/bin/python3 tests/network/op_cases.py DIR

Writes DIR/CASE.onnx and DIR/CASE.input.npy (graph input 'x', output 'y'; every other operand
is a random initializer) for each case below. The expected outputs come from ONNX Runtime
(bench/models/ort_run.js), not from here: this script only builds models. Needs python3-onnx.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(7)
CASES = []


def case(name, op, x_shape, attrs=None, weights=(), opset=17, pre=None):
    """One node `op` reading x (optionally through `pre` nodes first) and the weights in order."""
    CASES.append((name, op, x_shape, attrs or {}, weights, opset, pre))


def w(*shape, positive=False):
    a = rng.standard_normal(shape).astype(np.float32)
    return np.abs(a) + 0.5 if positive else a


# Convolutions: per-axis strides and dilations, asymmetric pads, auto_pad, groups, 1-D to 3-D.
case("conv2d_groups_dilation_asym_pads", "Conv", (1, 4, 9, 8),
     dict(group=2, dilations=[2, 1], strides=[2, 1], pads=[1, 0, 2, 1]), [w(6, 2, 3, 2), w(6)])
case("conv2d_same_upper_stride2", "Conv", (2, 3, 7, 6), dict(auto_pad="SAME_UPPER", strides=[2, 2]), [w(5, 3, 3, 3)])
case("conv2d_same_lower", "Conv", (1, 3, 6, 6), dict(auto_pad="SAME_LOWER", strides=[2, 1]), [w(4, 3, 4, 2), w(4)])
case("conv2d_valid", "Conv", (1, 2, 5, 7), dict(auto_pad="VALID", strides=[1, 2]), [w(3, 2, 3, 3)])
case("conv2d_depthwise", "Conv", (1, 6, 8, 8), dict(group=6, pads=[1, 1, 1, 1], strides=[2, 2]), [w(6, 1, 3, 3), w(6)])
case("conv1d_stride_dilation", "Conv", (2, 3, 17), dict(strides=[2], pads=[1, 2], dilations=[2]), [w(4, 3, 3), w(4)])
case("conv3d_pads", "Conv", (1, 2, 5, 6, 4), dict(pads=[1, 0, 1, 0, 1, 1]), [w(3, 2, 3, 2, 3)])
case("conv_transpose2d_outpad_groups", "ConvTranspose", (1, 4, 5, 4),
     dict(strides=[2, 2], pads=[1, 1, 0, 0], output_padding=[1, 0], group=2), [w(4, 3, 3, 3), w(6)])
case("conv_transpose2d_output_shape", "ConvTranspose", (1, 2, 4, 4),
     dict(strides=[2, 2], output_shape=[8, 9]), [w(2, 3, 3, 3)])
case("conv_transpose2d_same_upper", "ConvTranspose", (1, 3, 4, 5),
     dict(strides=[2, 2], auto_pad="SAME_UPPER"), [w(3, 2, 3, 3)])
case("conv_transpose1d_dilation", "ConvTranspose", (2, 3, 6), dict(strides=[3], dilations=[2], pads=[1, 0]), [w(3, 2, 3)])
# Gemm: transA/transB, alpha, beta and every shape C may broadcast from.
case("gemm_trans_alpha_beta", "Gemm", (6, 5), dict(transA=1, transB=1, alpha=0.5, beta=2.0), [w(4, 6), w(5, 4)])
case("gemm_bias_row", "Gemm", (3, 6), {}, [w(6, 4), w(4)])
case("gemm_bias_column", "Gemm", (3, 6), dict(beta=-1.5), [w(6, 4), w(3, 1)])
case("gemm_bias_scalar", "Gemm", (3, 6), dict(transB=1), [w(4, 6), w(1)])
case("gemm_no_bias", "Gemm", (3, 6), dict(alpha=2.0), [w(6, 4)])
# MatMul broadcasting and vectors.
case("matmul_batched_broadcast", "MatMul", (2, 3, 4, 5), {}, [w(5, 6)])
case("matmul_broadcast_lhs", "MatMul", (4, 5), {}, [w(2, 5, 3)])
case("matmul_vector_rhs", "MatMul", (3, 4, 5), {}, [w(5)])
case("matmul_vector_lhs", "MatMul", (5,), {}, [w(2, 5, 3)])
# Pooling: pads, strides, dilations, ceil_mode, count_include_pad, 1-D.
case("maxpool2d_pads_ceil", "MaxPool", (1, 3, 9, 8),
     dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1))
case("maxpool2d_dilation", "MaxPool", (1, 2, 9, 9), dict(kernel_shape=[2, 2], dilations=[2, 2]))
case("maxpool1d_same_upper", "MaxPool", (2, 3, 10), dict(kernel_shape=[3], strides=[2], auto_pad="SAME_UPPER"))
case("avgpool2d_exclude_pad", "AveragePool", (1, 3, 7, 7), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]))
case("avgpool2d_include_pad_ceil", "AveragePool", (1, 2, 8, 7),
     dict(kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 0, 1], count_include_pad=1, ceil_mode=1))
case("global_avgpool", "GlobalAveragePool", (2, 5, 4, 3))
case("global_maxpool", "GlobalMaxPool", (1, 3, 5, 5))
# Normalisations, reductions.
case("softmax_axis1", "Softmax", (2, 5, 3), dict(axis=1))
case("softmax_opset11_flatten", "Softmax", (2, 3, 4), dict(axis=1), opset=11)
case("log_softmax_last", "LogSoftmax", (3, 7))
case("layernorm_axis_minus2", "LayerNormalization", (2, 3, 4, 5), dict(axis=-2, epsilon=1e-3), [w(4, 5), w(4, 5)])
case("batchnorm_standalone", "BatchNormalization", (2, 4, 3, 3), dict(epsilon=1e-3),
     [w(4), w(4), w(4), w(4, positive=True)])
case("reducemean_axes_nokeep", "ReduceMean", (2, 3, 4), dict(axes=[0, 2], keepdims=0))
case("reducemean_opset18_input", "ReduceMean", (2, 3, 4), dict(keepdims=1), [np.array([1], dtype=np.int64)], opset=18)
case("reducesum_all", "ReduceSum", (3, 4), dict(keepdims=0), opset=11)
# Elementwise math, broadcasting, select, layout.
case("add_broadcast", "Add", (2, 3, 4), {}, [w(3, 1)])
case("sub_broadcast_rank", "Sub", (3, 4), {}, [w(2, 1, 4)])
case("div_broadcast", "Div", (2, 3), {}, [w(3, positive=True)])
case("mul_scalar", "Mul", (4, 5), {}, [np.array(0.25, dtype=np.float32)])
case("pow_square", "Pow", (3, 4), {}, [np.array(2.0, dtype=np.float32)])
case("clip_relu6", "Clip", (3, 5), {}, [np.array(0.0, dtype=np.float32), np.array(6.0, dtype=np.float32)])
case("clip_min_only", "Clip", (3, 5), {}, [np.array(-0.3, dtype=np.float32)])
case("erf", "Erf", (4, 6))
case("tanh", "Tanh", (4, 6))
case("sigmoid", "Sigmoid", (4, 6))
case("sqrt_of_abs", "Sqrt", (4, 6), pre=("Abs", {}))
case("transpose_perm", "Transpose", (2, 3, 4, 5), dict(perm=[0, 2, 3, 1]))
case("transpose_default", "Transpose", (2, 3, 4))
case("where_less", "Where", (3, 4), {}, [w(1, 4)], pre=("Less", None))
case("flatten_then_relu", "Relu", (2, 3, 4), pre=("Flatten", {"axis": 2}))


def build(name, op, x_shape, attrs, weights, opset, pre):
    nodes, inits, names = [], [], ["x"]
    if pre is not None and pre[0] == "Less":  # y = Where(x < 0.1, x, w0)
        inits.append(numpy_helper.from_array(np.full(x_shape, 0.1, np.float32), "c"))
        nodes.append(helper.make_node("Less", ["x", "c"], ["cond"]))
        names = ["cond", "x"]
    elif pre is not None:
        nodes.append(helper.make_node(pre[0], ["x"], ["x_pre"], **pre[1]))
        names = ["x_pre"]
    for k, wt in enumerate(weights):
        inits.append(numpy_helper.from_array(np.asarray(wt), f"w{k}"))
        names.append(f"w{k}")
    nodes.append(helper.make_node(op, names, ["y"], **attrs))
    graph = helper.make_graph(nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x_shape))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 8
    return model


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name, op, x_shape, attrs, weights, opset, pre in CASES:
        onnx.save(build(name, op, x_shape, attrs, weights, opset, pre), os.path.join(out, name + ".onnx"))
        np.save(os.path.join(out, name + ".input.npy"), rng.standard_normal(x_shape).astype(np.float32))
    print("\n".join(c[0] for c in CASES))


if __name__ == "__main__":
    main()
