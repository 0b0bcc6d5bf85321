//===- Reductions.cpp - Row/column reductions and broadcasts --------------===//
//
// Written once against FragmentMap, for every layout. A row reduction keeps
// one value per row: a thread first combines its own registers that hold the
// same row, then exchanges partial results with the lanes that hold other
// columns of that row (butterfly shuffles over the lane modes that move
// along columns). The vector's registers are the tile's row-moving register
// modes in the same order, which is exactly the #tile.vec<row, L> map, so a
// broadcast back onto the tile moves no data.
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
    int64_t count = vectorRegisters(*map, AlongRows);
    SmallVector<Value> partial(count);
    for (int64_t reg = 0; reg < map->numRegs(); ++reg) {
      int64_t v = vectorRegister(*map, reg, AlongRows);
      Value x =
          LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getX(), reg);
      partial[v] =
          partial[v] ? combine(rewriter, loc, IsMax, partial[v], x) : x;
    }
    // Lanes holding other positions along the reduced axis.
    int64_t laneStride = 1;
    for (const FragmentMode &mode : map->modes(FragmentMap::Index::lane)) {
      if ((AlongRows ? mode.colStride : mode.rowStride) != 0)
        for (int64_t bit = 1; bit < mode.size; bit *= 2)
          for (Value &p : partial) {
            Value other = shuffleXor(rewriter, loc, p, bit * laneStride);
            p = combine(rewriter, loc, IsMax, p, other);
          }
      laneStride *= mode.size;
    }
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
          Value grown = LLVM::FSubOp::create(
              rewriter, loc,
              convertFloat(rewriter, loc, p, rewriter.getF32Type()),
              convertFloat(rewriter, loc, old, rewriter.getF32Type()));
          Value moves = LLVM::FCmpOp::create(
              rewriter, loc, LLVM::FCmpPredicate::ogt, grown, slack);
          combined =
              LLVM::SelectOp::create(rewriter, loc, moves, combined, old);
        }
        p = combined;
      }
    Type structType = this->getTypeConverter()->convertType(op.getType());
    Value result = LLVM::UndefOp::create(rewriter, loc, structType);
    for (auto [i, p] : llvm::enumerate(partial))
      result = LLVM::InsertValueOp::create(rewriter, loc, result, p, i);
    rewriter.replaceOp(op, result);
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

std::string tk::lower::reductionUnsupportedReason(RegTileType tile,
                                                  bool alongRows) {
  FailureOr<FragmentMap> map = getScopeFragmentMap(tile);
  if (failed(map))
    return "has a tile without a fragment map";
  if (!tile.getLayout())
    return "";
  for (const FragmentMode &mode : map->modes(FragmentMap::Index::warp))
    if ((alongRows ? mode.colStride : mode.rowStride) != 0)
      return "reduces across warps, which is not lowered yet";
  for (const FragmentMode &mode : map->modes(FragmentMap::Index::lane))
    if ((alongRows ? mode.colStride : mode.rowStride) != 0 &&
        (alongRows ? mode.rowStride : mode.colStride) != 0)
      return "has a lane mode moving along both axes";
  for (const FragmentMode &mode : map->modes(FragmentMap::Index::lane))
    if (!llvm::isPowerOf2_64(uint64_t(mode.size)))
      return "has a lane mode whose size is not a power of two";
  return "";
}

void tk::lower::populateReductionPatterns(TypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<ReduceLowering<RowMaxOp, true, true>,
               ReduceLowering<RowSumOp, true, false>,
               ReduceLowering<ColMaxOp, false, true>,
               ReduceLowering<ColSumOp, false, false>, BroadcastLowering>(
      converter, patterns.getContext());
}
