//===- Reductions.cpp - Reductions, scans and broadcasts ------------------===//
//
// Written once against FragmentMap, for every layout. A row reduction keeps
// one value per row: a thread first combines its own registers that hold the
// same row, then exchanges partial results with the lanes that hold other
// columns of that row (butterfly shuffles over the lane modes that move
// along columns), then, where other warps hold columns of the row too, with
// those warps through a shared-memory scratch (Exchange.cpp). The vector's
// registers are the tile's row-moving register modes in the same order,
// which is exactly the #tile.vec<row, L> map, so a broadcast back onto the
// tile moves no data. A vector's total (`tile.vec_reduce`) is the same
// reduction of the vector as a column; `tile.cumsum` scans the same three
// stages (CumsumLowering).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// The vector register that tile register `reg` contributes to: its digits
/// in the register modes that move along the kept axis.
int64_t vectorRegister(const FragmentMap &map, int64_t reg, bool alongRows) {
  int64_t index = 0, scale = 1;
  for (const FragmentMode &mode : map.modes(FragmentMap::Index::reg)) {
    int64_t digit = reg % mode.size;
    reg /= mode.size;
    if ((alongRows ? mode.rowStride : mode.colStride) != 0) {
      index += digit * scale;
      scale *= mode.size;
    }
  }
  return index;
}

/// Number of vector registers: the product of the kept-axis register modes.
int64_t vectorRegisters(const FragmentMap &map, bool alongRows) {
  int64_t n = 1;
  for (const FragmentMode &mode : map.modes(FragmentMap::Index::reg))
    if ((alongRows ? mode.rowStride : mode.colStride) != 0)
      n *= mode.size;
  return n;
}

Value combine(OpBuilder &b, Location loc, bool isMax, Value x, Value y) {
  if (isMax)
    return LLVM::MaxNumOp::create(b, loc, x, y);
  return LLVM::FAddOp::create(b, loc, x, y);
}

Value idx(OpBuilder &b, Location loc, int64_t v) {
  return constIndex(b, loc, v);
}

/// This thread's warp in the value's scope: (threadIdx / lanes) % warps.
Value warpOf(OpBuilder &b, Location loc, const FragmentMap &map) {
  Value tid = threadIndex(b, loc);
  Value warpInBlock =
      arith::DivUIOp::create(b, loc, tid, idx(b, loc, map.numLanes()));
  return arith::RemUIOp::create(b, loc, warpInBlock,
                                idx(b, loc, map.numWarps()));
}

/// Reduces the registers of `x` (a struct of `map`'s registers) along rows
/// (one result per row) or columns: a thread's registers, then butterflies
/// over the lanes holding other positions of the reduced axis, then, where
/// warps hold such positions too, the warps' partials through `op`'s
/// scratch, combined in warp order. Returns the result vector's registers
/// (`map.slice(alongRows)`'s).
SmallVector<Value> reduceAlong(OpBuilder &b, Location loc, Operation *op,
                               const FragmentMap &map, Value x, bool alongRows,
                               bool isMax, Scope scope) {
  int64_t count = vectorRegisters(map, alongRows);
  SmallVector<Value> partial(count);
  SmallVector<int64_t> keptOffset(count, 0);
  for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
    int64_t v = vectorRegister(map, reg, alongRows);
    Value element = LLVM::ExtractValueOp::create(b, loc, x, reg);
    if (!partial[v]) {
      auto [r, c] = map.elementAt({reg, 0, 0});
      keptOffset[v] = alongRows ? r : c;
    }
    partial[v] =
        partial[v] ? combine(b, loc, isMax, partial[v], element) : element;
  }
  // Lanes holding other positions along the reduced axis.
  int64_t laneStride = 1;
  for (const FragmentMode &mode : map.modes(FragmentMap::Index::lane)) {
    if ((alongRows ? mode.colStride : mode.rowStride) != 0)
      for (int64_t bit = 1; bit < mode.size; bit *= 2)
        for (Value &p : partial) {
          Value other = shuffleXor(b, loc, p, bit * laneStride);
          p = combine(b, loc, isMax, p, other);
        }
    laneStride *= mode.size;
  }
  int64_t groups = warpsAcross(map, alongRows);
  if (groups == 1)
    return partial;
  // Warps holding other positions: scratch[kept][group], where `group`
  // numbers the warps whose partials combine.
  Value warp = warpOf(b, loc, map);
  Value group = idx(b, loc, 0);
  int64_t warpStride = 1, groupStride = 1;
  for (const FragmentMode &mode : map.modes(FragmentMap::Index::warp)) {
    if ((alongRows ? mode.colStride : mode.rowStride) != 0) {
      Value shifted =
          arith::DivUIOp::create(b, loc, warp, idx(b, loc, warpStride));
      Value digit =
          arith::RemUIOp::create(b, loc, shifted, idx(b, loc, mode.size));
      group = arith::AddIOp::create(
          b, loc, group,
          arith::MulIOp::create(b, loc, digit, idx(b, loc, groupStride)));
      groupStride *= mode.size;
    }
    warpStride *= mode.size;
  }
  Value zero = idx(b, loc, 0);
  auto [row, col] = threadOrigin(b, loc, map, zero, zero);
  Value kept = alongRows ? row : col;
  Value scratch = exchangeScratch(b, loc, op, scope);
  Type element = partial.front().getType();
  int64_t eb = elementBytes(element);
  auto at = [&](int64_t v, Value g) {
    Value e = arith::AddIOp::create(b, loc, kept, idx(b, loc, keptOffset[v]));
    Value i = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, e, idx(b, loc, groups)), g);
    return offsetPtr(b, loc, scratch,
                     arith::MulIOp::create(b, loc, i, idx(b, loc, eb)));
  };
  scopeBarrier(b, loc, op, scope);
  for (int64_t v = 0; v < count; ++v)
    LLVM::StoreOp::create(b, loc, partial[v], at(v, group));
  scopeBarrier(b, loc, op, scope);
  for (int64_t v = 0; v < count; ++v) {
    Value acc;
    for (int64_t g = 0; g < groups; ++g) {
      Value got = LLVM::LoadOp::create(b, loc, element, at(v, idx(b, loc, g)));
      acc = acc ? combine(b, loc, isMax, acc, got) : got;
    }
    partial[v] = acc;
  }
  return partial;
}

template <typename ReduceOp, bool AlongRows, bool IsMax>
struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern<ReduceOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, typename ReduceOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<FragmentMap> map = getScopeFragmentMap(op.getX().getType());
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    SmallVector<Value> partial =
        reduceAlong(rewriter, loc, op, *map, adaptor.getX(), AlongRows, IsMax,
                    op.getX().getType().getScope());
    Value slack;
    if constexpr (IsMax)
      slack = adaptor.getSlack();
    if (Value init = adaptor.getInit())
      for (auto [i, p] : llvm::enumerate(partial)) {
        Value old = LLVM::ExtractValueOp::create(rewriter, loc, init, i);
        Value combined = combine(rewriter, loc, IsMax, p, old);
        if (slack) {
          // Keep `old` unless the tile's maximum passes it by more than the
          // slack (NaN from -inf - -inf compares false: keeps -inf).
          // (In f32: the slack is an f32 scalar, the tile may be bf16/f16.)
          Value p32 = convertFloat(rewriter, loc, p, rewriter.getF32Type());
          Value old32 = convertFloat(rewriter, loc, old, rewriter.getF32Type());
          Value grown = LLVM::FSubOp::create(rewriter, loc, p32, old32);
          Value moves = LLVM::FCmpOp::create(
              rewriter, loc, LLVM::FCmpPredicate::ogt, grown, slack);
          combined =
              LLVM::SelectOp::create(rewriter, loc, moves, combined, old);
        }
        p = combined;
      }
    rewriter.replaceOp(
        op, packStruct(rewriter, loc,
                       this->getTypeConverter()->convertType(op.getType()),
                       partial));
    return success();
  }
};

/// A vector's total: the vector as a column (its elements run along rows),
/// reduced along it.
struct VecReduceLowering : OpConversionPattern<VecReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(VecReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    FailureOr<FragmentMap> map = getScopeFragmentMap(op.getX().getType());
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    SmallVector<Value> total = reduceAlong(
        rewriter, op.getLoc(), op, *map, adaptor.getX(), /*alongRows=*/false,
        op.getCombine() == Combine::max, op.getX().getType().getScope());
    rewriter.replaceOp(op, convertFloat(rewriter, op.getLoc(), total.front(),
                                        rewriter.getF32Type()));
    return success();
  }
};

/// One mode of the scanned axis: which index it splits, the stride of its
/// digit in that index, its size, and its stride along the axis.
struct ScanMode {
  FragmentMap::Index index;
  int64_t indexStride, size, axisStride;
};

/// The modes that move along the scanned axis (columns when `alongCols`),
/// fastest first.
SmallVector<ScanMode> scanModes(const FragmentMap &map, bool alongCols) {
  SmallVector<ScanMode> modes;
  for (auto index : {FragmentMap::Index::reg, FragmentMap::Index::lane,
                     FragmentMap::Index::warp}) {
    int64_t stride = 1;
    for (const FragmentMode &mode : map.modes(index)) {
      if (int64_t s = alongCols ? mode.colStride : mode.rowStride)
        modes.push_back({index, stride, mode.size, s});
      stride *= mode.size;
    }
  }
  llvm::sort(modes, [](const ScanMode &a, const ScanMode &b) {
    return a.axisStride < b.axisStride;
  });
  return modes;
}

/// `tile.cumsum`: a hierarchical scan over the modes of the scanned axis,
/// fastest first. Each register carries its prefix within the block of
/// positions the modes so far span, and that block's total; a mode adds to
/// the prefix the totals of the blocks before it along that mode (from the
/// thread's other registers, from other lanes by shuffles, or from other
/// warps through the op's scratch) and makes the total the sum over the
/// mode. The prefix starts as the element (inclusive) or 0 (exclusive).
struct CumsumLowering : OpConversionPattern<CumsumOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CumsumOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<RegisterType>(op.getType());
    FailureOr<FragmentMap> map = getScopeFragmentMap(type);
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    bool alongCols = op.getAxis() && *op.getAxis() == Axis::row;
    Type f32 = b.getF32Type();
    int64_t n = map->numRegs();
    SmallVector<Value> prefix(n), total(n);
    Value fzero = LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(0));
    for (int64_t reg = 0; reg < n; ++reg) {
      Value x = convertFloat(
          b, loc, LLVM::ExtractValueOp::create(b, loc, adaptor.getX(), reg),
          f32);
      prefix[reg] = op.getExclusive() ? fzero : x;
      total[reg] = x;
    }
    Value tid = threadIndex(b, loc);
    Value lane =
        arith::RemUIOp::create(b, loc, tid, idx(b, loc, map->numLanes()));
    Value zero = idx(b, loc, 0);
    auto [row0, col0] = threadOrigin(b, loc, *map, zero, zero);
    auto digitOf = [&](Value id, const ScanMode &m) -> Value {
      Value shifted =
          arith::DivUIOp::create(b, loc, id, idx(b, loc, m.indexStride));
      return arith::RemUIOp::create(b, loc, shifted, idx(b, loc, m.size));
    };
    auto ge = [&](Value x, int64_t c) -> Value {
      return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, x,
                                   idx(b, loc, c));
    };
    // Registers whose totals are equal (they differ only in the digits of
    // register modes already scanned) share one exchange: `key` is the
    // register with those digits zeroed.
    SmallVector<ScanMode> scanned;
    auto keyOf = [&](int64_t reg) {
      for (const ScanMode &m : scanned)
        if (m.index == FragmentMap::Index::reg)
          reg -= (reg / m.indexStride % m.size) * m.indexStride;
      return reg;
    };
    for (const ScanMode &m : scanModes(*map, alongCols)) {
      SmallVector<Value> before(n), sum(n);
      if (m.index == FragmentMap::Index::reg) {
        for (int64_t reg = 0; reg < n; ++reg) {
          int64_t d = reg / m.indexStride % m.size;
          int64_t first = reg - d * m.indexStride;
          for (int64_t e = 0; e < m.size; ++e) {
            Value t = total[first + e * m.indexStride];
            if (e < d)
              before[reg] = before[reg]
                                ? LLVM::FAddOp::create(b, loc, before[reg], t)
                                : t;
            sum[reg] = sum[reg] ? LLVM::FAddOp::create(b, loc, sum[reg], t) : t;
          }
        }
      } else if (m.index == FragmentMap::Index::lane) {
        Value d = digitOf(lane, m);
        // The lane `delta` lanes below where `ok`, else this lane.
        auto below = [&](Value ok, int64_t delta) -> Value {
          Value moved = arith::SubIOp::create(b, loc, lane, idx(b, loc, delta));
          return arith::SelectOp::create(b, loc, ok, moved, lane);
        };
        DenseMap<int64_t, std::pair<Value, Value>> shared;
        for (int64_t reg = 0; reg < n; ++reg) {
          auto [it, fresh] = shared.try_emplace(keyOf(reg));
          if (fresh) {
            // Hillis-Steele over the mode's lanes, then the lane before's
            // inclusive value and the last lane's.
            Value incl = total[reg];
            for (int64_t off = 1; off < m.size; off *= 2) {
              Value ok = ge(d, off);
              Value got =
                  shuffleIdx(b, loc, incl, below(ok, off * m.indexStride));
              incl = arith::SelectOp::create(
                  b, loc, ok, LLVM::FAddOp::create(b, loc, incl, got), incl);
            }
            Value ok = ge(d, 1);
            Value prev = shuffleIdx(b, loc, incl, below(ok, m.indexStride));
            Value digitsLeft =
                arith::SubIOp::create(b, loc, idx(b, loc, m.size - 1), d);
            Value toLast = arith::MulIOp::create(b, loc, digitsLeft,
                                                 idx(b, loc, m.indexStride));
            Value last = shuffleIdx(
                b, loc, incl, arith::AddIOp::create(b, loc, lane, toLast));
            it->second = {arith::SelectOp::create(b, loc, ok, prev, fzero),
                          last};
          }
          before[reg] = it->second.first;
          sum[reg] = it->second.second;
        }
      } else {
        // Block totals in units of this mode's stride along the axis, for
        // each position along the other axis: scratch[other][block].
        int64_t axisLen = alongCols ? map->getCols() : map->getRows();
        int64_t blocks = axisLen / m.axisStride;
        Value scratch = exchangeScratch(b, loc, op, type.getScope());
        auto at = [&](Value i) {
          return offsetPtr(b, loc, scratch,
                           arith::MulIOp::create(b, loc, i, idx(b, loc, 4)));
        };
        SmallVector<std::pair<Value, Value>> slots(n); // (this block, first)
        DenseMap<int64_t, int64_t> owner;
        scopeBarrier(b, loc, op, type.getScope());
        for (int64_t reg = 0; reg < n; ++reg) {
          auto [inserted, fresh] = owner.try_emplace(keyOf(reg), reg);
          if (!fresh)
            continue;
          auto [r, c] = map->elementAt({reg, 0, 0});
          Value pos = arith::AddIOp::create(b, loc, alongCols ? col0 : row0,
                                            idx(b, loc, alongCols ? c : r));
          Value other = arith::AddIOp::create(b, loc, alongCols ? row0 : col0,
                                              idx(b, loc, alongCols ? r : c));
          Value block =
              arith::DivUIOp::create(b, loc, pos, idx(b, loc, m.axisStride));
          Value d = arith::RemUIOp::create(b, loc, block, idx(b, loc, m.size));
          Value here = arith::AddIOp::create(
              b, loc, arith::MulIOp::create(b, loc, other, idx(b, loc, blocks)),
              block);
          slots[reg] = {here, arith::SubIOp::create(b, loc, here, d)};
          LLVM::StoreOp::create(b, loc, total[reg], at(here));
        }
        scopeBarrier(b, loc, op, type.getScope());
        for (int64_t reg = 0; reg < n; ++reg) {
          int64_t own = owner.lookup(keyOf(reg));
          if (own != reg) {
            before[reg] = before[own];
            sum[reg] = sum[own];
            continue;
          }
          auto [here, first] = slots[reg];
          for (int64_t e = 0; e < m.size; ++e) {
            Value at_e = arith::AddIOp::create(b, loc, first, idx(b, loc, e));
            Value t = LLVM::LoadOp::create(b, loc, f32, at(at_e));
            Value earlier = arith::CmpIOp::create(
                b, loc, arith::CmpIPredicate::ult, at_e, here);
            Value add = arith::SelectOp::create(b, loc, earlier, t, fzero);
            before[reg] = before[reg]
                              ? LLVM::FAddOp::create(b, loc, before[reg], add)
                              : add;
            sum[reg] = sum[reg] ? LLVM::FAddOp::create(b, loc, sum[reg], t) : t;
          }
        }
      }
      for (int64_t reg = 0; reg < n; ++reg) {
        if (before[reg])
          prefix[reg] = LLVM::FAddOp::create(b, loc, prefix[reg], before[reg]);
        total[reg] = sum[reg];
      }
      scanned.push_back(m);
    }
    for (Value &p : prefix)
      p = convertFloat(b, loc, p, type.getElementType());
    rewriter.replaceOp(
        op, packStruct(b, loc, getTypeConverter()->convertType(op.getType()),
                       prefix));
    return success();
  }
};

struct BroadcastLowering : OpConversionPattern<BroadcastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BroadcastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<FragmentMap> map = getScopeFragmentMap(op.getType());
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    bool alongRows = op.getAxis() == Axis::row;
    Type structType = getTypeConverter()->convertType(op.getType());
    Value result = LLVM::UndefOp::create(rewriter, loc, structType);
    for (int64_t reg = 0; reg < map->numRegs(); ++reg) {
      Value v = LLVM::ExtractValueOp::create(
          rewriter, loc, adaptor.getX(), vectorRegister(*map, reg, alongRows));
      result = LLVM::InsertValueOp::create(rewriter, loc, result, v, reg);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};
} // namespace

/// Why modes of `map` that move along both axes, or lanes in groups that
/// are not a power of two, keep a reduction or scan from being lowered.
static std::string modesUnsupportedReason(const FragmentMap &map,
                                          bool butterflies) {
  for (auto index : {FragmentMap::Index::lane, FragmentMap::Index::warp})
    for (const FragmentMode &mode : map.modes(index))
      if (mode.rowStride != 0 && mode.colStride != 0)
        return std::string("has a ") +
               (index == FragmentMap::Index::lane ? "lane" : "warp") +
               " mode moving along both axes";
  if (butterflies)
    for (const FragmentMode &mode : map.modes(FragmentMap::Index::lane))
      if (!llvm::isPowerOf2_64(uint64_t(mode.size)))
        return "has a lane mode whose size is not a power of two";
  return "";
}

std::string tk::lower::reductionUnsupportedReason(RegTileType tile,
                                                  bool alongRows) {
  FailureOr<FragmentMap> map = getScopeFragmentMap(tile);
  if (failed(map))
    return "has a tile without a fragment map";
  if (!tile.getLayout())
    return "";
  return modesUnsupportedReason(*map, /*butterflies=*/true);
}

std::string tk::lower::scanUnsupportedReason(Operation *op) {
  auto type = cast<RegisterType>(op->getOperand(0).getType());
  if (!type.getLayout())
    return "";
  FailureOr<FragmentMap> map = getScopeFragmentMap(type);
  if (failed(map))
    return "has a value without a fragment map";
  if (std::string why =
          modesUnsupportedReason(*map, /*butterflies=*/isa<VecReduceOp>(op));
      !why.empty())
    return why;
  if (auto scan = dyn_cast<CumsumOp>(op)) {
    // The scanned axis's modes must tile it in order of their strides.
    bool alongCols = scan.getAxis() && *scan.getAxis() == Axis::row;
    int64_t expected = 1;
    for (const ScanMode &m : scanModes(*map, alongCols)) {
      if (m.axisStride != expected)
        return "has modes that do not tile the scanned axis";
      expected *= m.size;
    }
  }
  return "";
}

void tk::lower::populateReductionPatterns(TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<RowMaxOp, true, true>,
               ReduceLowering<RowSumOp, true, false>,
               ReduceLowering<ColMaxOp, false, true>,
               ReduceLowering<ColSumOp, false, false>, BroadcastLowering,
               VecReduceLowering, CumsumLowering>(converter,
                                                  patterns.getContext());
}
