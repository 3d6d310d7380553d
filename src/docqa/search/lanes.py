"""The canonical dot product as explicit SIMD: a Numba ``@intrinsic`` that emits LLVM vector IR.

Why an intrinsic: without ``fastmath`` LLVM's loop vectoriser will not reassociate a sum, and
a loop over a fixed number of independent lanes is fully unrolled before it could be
vectorised (Numba keeps the SLP vectoriser off), so plain Numba loops for this order stay
scalar. Writing the lanes as one ``<16 x double>`` value states the order exactly and makes
it vector code on every target (LLVM splits the vector into the widths the CPU has).

The order (``LANES`` = 16), mirrored by :func:`docqa.search.reference.canonical_scores`, all
in IEEE float32 with round-to-nearest, every operation rounded on its own:

1. product ``p_i = x_i * q_i`` (float32);
2. the row is cut into ``ceil(d / 16)`` chunks of 16, the last one zero-padded; lane ``l``
   starts at ``+0.0`` and adds ``p_l, p_(l+16), p_(l+32), ...`` one chunk after another (the
   padded chunk only exists when ``d % 16 != 0``);
3. the 16 lanes are summed by a fixed pairwise tree, ``a_i += a_(i+w)`` for ``i < w`` and
   ``w = 8, 4, 2, 1``, and ``a_0`` is the score.

The multiply and the add are separate IR instructions without fast-math flags, so LLVM may
not fuse them into one FMA (which would round once instead of twice): the result is the same
on every x86 and ARM CPU, with or without FMA units. Why float32 and not float64 lanes: the
first version widened the products to float64 (exact products): two widening conversions,
two multiplies and two adds per 16 inputs where float32 lanes need one multiply and one add.
That made one query over 1M x 256 compute-bound on two cores (1.55x the memory floor here,
float32 lanes 1.15x in the same run). The error stays far inside what
ranking needs: ``|score - x.q| <= gamma_(ceil(d/16) + 5) sum |x_i q_i|`` (Higham), about
1.3e-6 relative to ``sum |x_i q_i|`` at d = 256 in the worst case, 1e-7 typically.

The kernels in :mod:`docqa.search.kernels` are ``cache=True``; their cache is keyed on this
file too (:mod:`docqa.search.numba_cache`), so editing it recompiles them. So is that of
:mod:`docqa.search.compact_kernels`, whose int8 intrinsic builds its IR with this module's
``operands`` and ``indices``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, cast

import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

from docqa.search.reference import LANES  # the order's width, in one (Numba-free) place


def _data(context: Any, builder: ir.IRBuilder, ty: types.Array, value: Any) -> ir.Value:
    return context.make_array(ty)(context, builder, value).data


def operands(
    context: Any, builder: ir.IRBuilder, signature: Any, args: Any
) -> tuple[ir.Value, ir.Value]:
    """The data pointers of an intrinsic's first two arguments, its ``row`` and ``q`` arrays
    (this module's ``lane_dot`` and ``docqa.search.compact_kernels.int_dot``)."""
    row_p = _data(context, builder, signature.args[0], args[0])
    q_p = _data(context, builder, signature.args[1], args[1])
    return row_p, q_p


def _zero_slot(builder: ir.IRBuilder) -> Any:
    """A stack slot (in the entry block) holding a zero ``<16 x float>``."""
    zero = ir.Constant(ir.VectorType(ir.FloatType(), LANES), None)
    return cgutils.alloca_once_value(builder, zero)  # type: ignore[no-untyped-call]


def _tail(builder: ir.IRBuilder, row: ir.Value, q: ir.Value, start: ir.Value, rem: ir.Value) -> Any:
    """The zero-padded last chunk: products of elements ``start .. start + rem - 1`` (rem < 16)."""
    slot = _zero_slot(builder)
    with cgutils.for_range(builder, rem) as loop:
        i = builder.add(start, loop.index)
        p = builder.fmul(builder.load(builder.gep(row, [i])), builder.load(builder.gep(q, [i])))
        builder.store(builder.insert_element(builder.load(slot), p, loop.index), slot)
    return builder.load(slot)


def indices(idx: range) -> ir.Constant:
    """``idx`` as a constant ``<len(idx) x i32>``, a ``shuffle_vector`` mask."""
    return ir.Constant(ir.VectorType(ir.IntType(32), len(idx)), list(idx))


def _tree(builder: ir.IRBuilder, acc: ir.Value) -> ir.Value:
    """``a_i += a_(i+w)`` for ``i < w``, ``w = 8, 4, 2, 1``; returns ``a_0`` (float32)."""
    w = LANES
    while w > 1:
        w //= 2
        lo = builder.shuffle_vector(acc, acc, indices(range(w)))
        hi = builder.shuffle_vector(acc, acc, indices(range(w, 2 * w)))
        acc = builder.fadd(lo, hi)
    return builder.extract_element(acc, ir.Constant(ir.IntType(32), 0))


def _lane_dot(typingctx: Any, row: types.Array, q: types.Array, d: types.Integer) -> Any:
    """Canonical dot product (float32) of ``row`` and ``q``.

    ``row`` and ``q`` are C-contiguous 1-D float32 arrays, ``d`` the number of elements to
    use (both must hold at least ``d``; not checked).
    """
    ok = all(
        isinstance(a, types.Array) and a.dtype == types.float32 and a.layout == "C"
        for a in (row, q)
    )
    if not ok:
        return None
    sig = types.float32(row, q, types.intp)

    def codegen(context: Any, builder: ir.IRBuilder, signature: Any, args: Any) -> ir.Value:
        row_p, q_p = operands(context, builder, signature, args)
        f32x = ir.VectorType(ir.FloatType(), LANES)
        width = ir.Constant(args[2].type, LANES)
        slot = _zero_slot(builder)
        with cgutils.for_range(builder, builder.sdiv(args[2], width)) as loop:
            off = builder.mul(loop.index, width)
            x = builder.load(builder.bitcast(builder.gep(row_p, [off]), f32x.as_pointer()), align=4)
            q = builder.load(builder.bitcast(builder.gep(q_p, [off]), f32x.as_pointer()), align=4)
            builder.store(builder.fadd(builder.load(slot), builder.fmul(x, q)), slot)
        rem = builder.srem(args[2], width)
        with builder.if_then(builder.icmp_signed(">", rem, ir.Constant(rem.type, 0))):
            tail = _tail(builder, row_p, q_p, builder.sub(args[2], rem), rem)
            builder.store(builder.fadd(builder.load(slot), tail), slot)
        return _tree(builder, builder.load(slot))

    return sig, codegen


lane_dot = cast(Callable[[np.ndarray, np.ndarray, int], float], intrinsic(_lane_dot))
"""``lane_dot(row, q, d) -> float32``, callable from ``@njit`` code only (see ``_lane_dot``)."""
