//===- Memory.cpp - Shared buffers, TMA copies, register stores -----------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::nvvm;

namespace {

/// The start of dynamic shared memory, rounded up to 1024 bytes (the
/// manifest asks for that much more), plus `offset`.
Value sharedAt(OpBuilder &b, Location loc, int64_t offset) {
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx, 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptr, kSmemSymbol);
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), base);
  Value rounded = arith::AndIOp::create(
      b, loc, arith::AddIOp::create(b, loc, addr, constI64(b, loc, 1023)),
      constI64(b, loc, ~int64_t(1023)));
  Value delta = arith::SubIOp::create(b, loc, rounded, addr);
  return offsetPtr(
      b, loc, base,
      arith::AddIOp::create(b, loc, delta, constI64(b, loc, offset)));
}

struct AllocLowering : OpConversionPattern<AllocOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    int64_t offset = op->getAttrOfType<IntegerAttr>(kSmemOffset).getInt();
    rewriter.replaceOp(op, sharedAt(rewriter, op.getLoc(), offset));
    return success();
  }
};

/// Bytes between consecutive slots of a ring.
int64_t slotBytes(Type ring) {
  if (auto tile = dyn_cast<SharedTileType>(ring))
    return tile.getTileBytes();
  if (auto vec = dyn_cast<SharedVecType>(ring))
    return vec.getTileBytes();
  return 8; // one mbarrier
}

struct SlotLowering : OpConversionPattern<SlotOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SlotOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value offset = arith::MulIOp::create(
        rewriter, loc, adaptor.getIndex(),
        constIndex(rewriter, loc, slotBytes(op.getRing().getType())));
    rewriter.replaceOp(op, offsetPtr(rewriter, loc, adaptor.getRing(), offset));
    return success();
  }
};

/// Byte offset of element (row, col) of `tile`, where row is a multiple of 8
/// and col of the swizzle width, so the swizzle does not move it.
Value alignedElementOffset(OpBuilder &b, Location loc, SharedTileType tile,
                           Value row, Value col) {
  int64_t eb = elementBytes(tile.getElementType());
  int64_t swizzle = tile.getSwizzle() ? tile.getSwizzle().getBytes() : 0;
  if (!swizzle) {
    Value linear = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, row, constIndex(b, loc, tile.getCols())),
        col);
    return arith::MulIOp::create(b, loc, linear, constIndex(b, loc, eb));
  }
  int64_t width = swizzle / eb;
  Value block = arith::DivUIOp::create(b, loc, col, constIndex(b, loc, width));
  Value blockOffset = arith::MulIOp::create(
      b, loc, block, constIndex(b, loc, tile.getRows() * swizzle));
  Value rowOffset =
      arith::MulIOp::create(b, loc, row, constIndex(b, loc, swizzle));
  return arith::AddIOp::create(b, loc, blockOffset, rowOffset);
}

struct SubtileLowering : OpConversionPattern<SubtileOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SubtileOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SharedTileType result = op.getType();
    Value row =
        arith::MulIOp::create(rewriter, loc, adaptor.getRow(),
                              constIndex(rewriter, loc, result.getRows()));
    Value col =
        arith::MulIOp::create(rewriter, loc, adaptor.getCol(),
                              constIndex(rewriter, loc, result.getCols()));
    Value offset =
        alignedElementOffset(rewriter, loc, op.getSource().getType(), row, col);
    rewriter.replaceOp(op,
                       offsetPtr(rewriter, loc, adaptor.getSource(), offset));
    return success();
  }
};

/// TMA coordinates (innermost first, in elements) of the box at tile
/// coordinates `coords` moving `buffer`, shifted `colShift` elements right.
SmallVector<Value> tmaCoordinates(OpBuilder &b, Location loc, Type buffer,
                                  ValueRange coords, int64_t colShift) {
  SmallVector<int64_t> extent(coords.size(), 1);
  if (auto tile = dyn_cast<SharedTileType>(buffer)) {
    extent[coords.size() - 2] = tile.getRows();
    extent[coords.size() - 1] = tile.getCols();
  } else {
    extent.back() = cast<SharedVecType>(buffer).getLength();
  }
  SmallVector<Value> result;
  for (int64_t i = coords.size() - 1; i >= 0; --i) {
    Value c =
        arith::MulIOp::create(b, loc, coords[i], constIndex(b, loc, extent[i]));
    if (i + 1 == int64_t(coords.size()) && colShift)
      c = arith::AddIOp::create(b, loc, c, constIndex(b, loc, colShift));
    result.push_back(toI32(b, loc, c));
  }
  return result;
}

/// One thread of the warpgroup issues a TMA copy per swizzle-width column
/// block of the destination.
struct LoadAsyncLowering : OpConversionPattern<LoadAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type buffer = op.getDst().getType();
    Value map =
        kernelParam(op, op->getAttrOfType<IntegerAttr>(kTmaParam).getInt());
    int64_t blocks = 1, blockBytes = 0, width = 0;
    if (auto tile = dyn_cast<SharedTileType>(buffer)) {
      int64_t swizzle = tile.getSwizzle().getBytes();
      if (swizzle) {
        width = swizzle / elementBytes(tile.getElementType());
        blocks = std::max<int64_t>(1, tile.getCols() / width);
        blockBytes = tile.getRows() * swizzle;
      }
    }
    emitOncePerWarpgroup(rewriter, loc, [&](OpBuilder &b) {
      for (int64_t j = 0; j < blocks; ++j) {
        Value dst = adaptor.getDst();
        if (j)
          dst = offsetPtr(b, loc, dst, constI64(b, loc, j * blockBytes));
        // The sm_90 form writes a shared::cluster address; this block's own
        // shared memory is part of its cluster window.
        dst = LLVM::AddrSpaceCastOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), dst);
        SmallVector<Value> coords =
            tmaCoordinates(b, loc, buffer, adaptor.getCoords(), j * width);
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, loc, dst, map, coords, adaptor.getSem(),
            /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/Value{},
            /*l2CacheHint=*/Value{}, NVVM::TMALoadMode::TILE,
            /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr{},
            /*predicate=*/Value{});
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Register tile → global view: every thread stores the elements it holds,
/// skipping those past the view's edges.
struct StoreGlobalLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto view = dyn_cast<GlobalType>(op.getDst().getType());
    auto tile = dyn_cast<RegTileType>(op.getValue().getType());
    if (!view || !tile)
      return rewriter.notifyMatchFailure(op, "only register tile to global");
    Location loc = op.getLoc();
    FragmentMap map;
    std::string why;
    if (failed(getFragmentMap(tile, getScopeWarps(tile.getScope()), map, why)))
      return rewriter.notifyMatchFailure(op, why);
    int64_t viewParam = op->getAttrOfType<IntegerAttr>(kViewParam).getInt();
    size_t rank = view.getShape().size();
    SmallVector<Value> dims;
    for (size_t d = 0; d < rank; ++d)
      dims.push_back(
          toIndex(rewriter, loc, kernelParam(op, viewParam + 1 + d)));

    // This thread's lane and warp (within the owning scope), and where they
    // put it in the tile.
    Value tid = threadIndex(rewriter, loc);
    Value lane = arith::RemUIOp::create(rewriter, loc, tid,
                                        constIndex(rewriter, loc, 32));
    Value warp = arith::RemUIOp::create(
        rewriter, loc,
        arith::DivUIOp::create(rewriter, loc, tid,
                               constIndex(rewriter, loc, 32)),
        constIndex(rewriter, loc, map.numWarps()));
    Value row =
        arith::MulIOp::create(rewriter, loc, adaptor.getCoords()[rank - 2],
                              constIndex(rewriter, loc, tile.getShape()[0]));
    Value col =
        arith::MulIOp::create(rewriter, loc, adaptor.getCoords()[rank - 1],
                              constIndex(rewriter, loc, tile.getShape()[1]));
    auto addModes = [&](FragmentMap::Index index, Value id) {
      int64_t stride = 1;
      for (const FragmentMode &mode : map.modes(index)) {
        Value digit = arith::RemUIOp::create(
            rewriter, loc,
            arith::DivUIOp::create(rewriter, loc, id,
                                   constIndex(rewriter, loc, stride)),
            constIndex(rewriter, loc, mode.size));
        if (mode.rowStride)
          row = arith::AddIOp::create(
              rewriter, loc, row,
              arith::MulIOp::create(rewriter, loc, digit,
                                    constIndex(rewriter, loc, mode.rowStride)));
        if (mode.colStride)
          col = arith::AddIOp::create(
              rewriter, loc, col,
              arith::MulIOp::create(rewriter, loc, digit,
                                    constIndex(rewriter, loc, mode.colStride)));
        stride *= mode.size;
      }
    };
    addModes(FragmentMap::Index::lane, lane);
    addModes(FragmentMap::Index::warp, warp);

    // Row-major element offset of (leading..., row, col).
    Value base = constIndex(rewriter, loc, 0);
    for (size_t d = 0; d + 2 < rank; ++d)
      base = arith::AddIOp::create(
          rewriter, loc, arith::MulIOp::create(rewriter, loc, base, dims[d]),
          adaptor.getCoords()[d]);
    base = arith::MulIOp::create(rewriter, loc, base, dims[rank - 2]);
    Value rows = dims[rank - 2], cols = dims[rank - 1];
    Type element = tile.getElementType();
    Value ptr = adaptor.getDst();
    for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
      auto [dr, dc] = map.elementAt({reg, 0, 0});
      Value r = arith::AddIOp::create(rewriter, loc, row,
                                      constIndex(rewriter, loc, dr));
      Value c = arith::AddIOp::create(rewriter, loc, col,
                                      constIndex(rewriter, loc, dc));
      Value inside = arith::AndIOp::create(
          rewriter, loc,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, r,
                                rows),
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, c,
                                cols));
      Value value =
          LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(), reg);
      auto guard = scf::IfOp::create(rewriter, loc, inside, false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
      Value index = arith::AddIOp::create(
          rewriter, loc,
          arith::MulIOp::create(rewriter, loc,
                                arith::AddIOp::create(rewriter, loc, base, r),
                                cols),
          c);
      Value address =
          LLVM::GEPOp::create(rewriter, loc, ptr.getType(), element, ptr,
                              ValueRange{toI64(rewriter, loc, index)});
      LLVM::StoreOp::create(rewriter, loc, value, address);
    }
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tk::nvvm::populateMemoryPatterns(TypeConverter &converter,
                                      RewritePatternSet &patterns) {
  patterns.add<AllocLowering, SlotLowering, SubtileLowering, LoadAsyncLowering,
               StoreGlobalLowering>(converter, patterns.getContext());
}
