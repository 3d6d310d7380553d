"""The canonical dot product as explicit SIMD: a Numba ``@intrinsic`` that emits LLVM vector IR.

Why an intrinsic: without ``fastmath`` LLVM's loop vectoriser will not reassociate a sum, and
a loop over a fixed number of independent lanes is fully unrolled before it could be
vectorised (Numba keeps the SLP vectoriser off), so plain Numba loops for this order stay
scalar. Writing the lanes as one ``<16 x double>`` value states the order exactly and makes
it vector code on every target (LLVM splits the vector into the widths the CPU has).

The order (``LANES`` = 16), mirrored by :func:`docqa.search.reference.canonical_scores`:

1. product ``p_i = float64(x_i) * float64(q_i)``: exact, so a fused multiply-add in place of
   the following add (if LLVM ever contracted one) would round identically;
2. the row is cut into ``ceil(d / 16)`` chunks of 16, the last one zero-padded; lane ``l``
   starts at ``+0.0`` and adds ``p_l, p_(l+16), p_(l+32), ...`` one chunk after another in
   float64 (the padded chunk only exists when ``d % 16 != 0``);
3. the 16 lanes are summed by a fixed pairwise tree, ``a_i += a_(i+w)`` for ``i < w`` and
   ``w = 8, 4, 2, 1``, and ``a_0`` is returned as float64 (callers round it once to float32).

The kernels in :mod:`docqa.search.kernels` are ``cache=True``, and Numba keys that cache on
``kernels.py`` alone: after editing this file, touch ``kernels.py`` so they are recompiled.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

LANES = 16
"""Independent float64 accumulators of the canonical dot product."""


def _data(context: Any, builder: ir.IRBuilder, ty: types.Array, value: Any) -> ir.Value:
    return context.make_array(ty)(context, builder, value).data


def _zero_slot(builder: ir.IRBuilder) -> Any:
    """A stack slot (in the entry block) holding a zero ``<16 x double>``."""
    zero = ir.Constant(ir.VectorType(ir.DoubleType(), LANES), None)
    return cgutils.alloca_once_value(builder, zero)  # type: ignore[no-untyped-call]


def _tail(builder: ir.IRBuilder, row: ir.Value, q: ir.Value, start: ir.Value, rem: ir.Value) -> Any:
    """The zero-padded last chunk: products of elements ``start .. start + rem - 1`` (rem < 16)."""
    slot = _zero_slot(builder)
    with cgutils.for_range(builder, rem) as loop:
        i = builder.add(start, loop.index)
        x = builder.fpext(builder.load(builder.gep(row, [i])), ir.DoubleType())
        p = builder.fmul(x, builder.load(builder.gep(q, [i])))
        builder.store(builder.insert_element(builder.load(slot), p, loop.index), slot)
    return builder.load(slot)


def _indices(idx: range) -> ir.Constant:
    return ir.Constant(ir.VectorType(ir.IntType(32), len(idx)), list(idx))


def _tree(builder: ir.IRBuilder, acc: ir.Value) -> ir.Value:
    """``a_i += a_(i+w)`` for ``i < w``, ``w = 8, 4, 2, 1``; returns ``a_0`` (float64)."""
    w = LANES
    while w > 1:
        w //= 2
        lo = builder.shuffle_vector(acc, acc, _indices(range(w)))
        hi = builder.shuffle_vector(acc, acc, _indices(range(w, 2 * w)))
        acc = builder.fadd(lo, hi)
    return builder.extract_element(acc, ir.Constant(ir.IntType(32), 0))


def _lane_dot(typingctx: Any, row: types.Array, q64: types.Array, d: types.Integer) -> Any:
    """Canonical dot product (float64, before the final rounding) of ``row`` and ``q64``.

    ``row`` is a C-contiguous 1-D float32 array, ``q64`` a C-contiguous 1-D float64 array,
    ``d`` the number of elements to use (both must hold at least ``d``; not checked).
    """
    ok = (
        isinstance(row, types.Array)
        and row.dtype == types.float32
        and row.layout == "C"
        and isinstance(q64, types.Array)
        and q64.dtype == types.float64
        and q64.layout == "C"
    )
    if not ok:
        return None
    sig = types.float64(row, q64, types.intp)

    def codegen(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> ir.Value:
        row_p = _data(context, builder, signature.args[0], args[0])
        q_p = _data(context, builder, signature.args[1], args[1])
        f32x = ir.VectorType(ir.FloatType(), LANES)
        f64x = ir.VectorType(ir.DoubleType(), LANES)
        width = ir.Constant(args[2].type, LANES)
        slot = _zero_slot(builder)
        with cgutils.for_range(builder, builder.sdiv(args[2], width)) as loop:
            off = builder.mul(loop.index, width)
            x = builder.load(builder.bitcast(builder.gep(row_p, [off]), f32x.as_pointer()), align=4)
            q = builder.load(builder.bitcast(builder.gep(q_p, [off]), f64x.as_pointer()), align=8)
            prod = builder.fmul(builder.fpext(x, f64x), q)
            builder.store(builder.fadd(builder.load(slot), prod), slot)
        rem = builder.srem(args[2], width)
        with builder.if_then(builder.icmp_signed(">", rem, ir.Constant(rem.type, 0))):
            tail = _tail(builder, row_p, q_p, builder.sub(args[2], rem), rem)
            builder.store(builder.fadd(builder.load(slot), tail), slot)
        return _tree(builder, builder.load(slot))

    return sig, codegen


lane_dot = cast(Callable[[np.ndarray, np.ndarray, int], float], intrinsic(_lane_dot))
"""``lane_dot(row, q64, d) -> float64``, callable from ``@njit`` code only (see ``_lane_dot``)."""
