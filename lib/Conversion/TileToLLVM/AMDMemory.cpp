//===- AMDMemory.cpp - Copies into LDS, staging, LDS conversions ----------===//
//
// The AMD memory patterns:
//
// - `tile.copy` (global → LDS, the whole block): each thread moves 16-byte
//   runs with buffer loads, whose hardware range check returns zeros past
//   the view's last row; a run past the last column gets an out-of-range
//   offset (rows are whole runs: the manifest asks the launcher for row
//   lengths of a multiple of 16 bytes, as TMA does on NVIDIA). Runs land in
//   LDS at their swizzled offsets -- transposed (N x K) for a tile that only
//   feeds `AB` MFMAs as B, so its fragments are contiguous reads like A's.
//   A block barrier before (earlier readers are done) and after (the data
//   is visible) makes the copy synchronous, as the op promises.
// - The two halves of a split copy (tile-pipeline's AMD form): a global
//   load into `#tile.chunks` registers and their store into LDS.
// - Layout conversions whose elements cross waves, through an LDS scratch
//   tile; `tile.barrier block`.
//
//===----------------------------------------------------------------------===//
#include "AMD.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;
using namespace tk::lower::amd;

/// How a shared tile read as the B operand of `AB` MFMAs is stored when the
/// pass stores it transposed (N x K): the transposed shape, with the
/// tile's swizzle where it fits that shape (else unswizzled).
SharedTileType tk::lower::amd::transposedStorage(SharedTileType tile) {
  int64_t eb = elementBytes(tile.getElementType());
  SwizzleAttr swizzle = tile.getSwizzle();
  if (!swizzle.checkShape(tile.getCols(), tile.getRows(), eb).empty())
    swizzle = SwizzleAttr::get(tile.getContext(), 0);
  return SharedTileType::get(tile.getContext(),
                             {tile.getCols(), tile.getRows()},
                             tile.getElementType(), swizzle);
}

Value tk::lower::amd::unpackInto(OpBuilder &b, Location loc, Value record,
                                 Value vector, int64_t first) {
  auto type = cast<VectorType>(vector.getType());
  for (int64_t i = 0; i < type.getNumElements(); ++i)
    record = LLVM::InsertValueOp::create(
        b, loc, record,
        LLVM::ExtractElementOp::create(b, loc, vector, constI32(b, loc, i)),
        first + i);
  return record;
}

/// The 16-byte-aligned address of the run at (row, col) and whether the
/// swizzle swapped its halves (bit 3 of the swizzled offset).
static std::pair<Value, Value> chunkAt(OpBuilder &b, Location loc, Value base,
                                       SharedTileType tile, int64_t rows,
                                       Value row, Value col) {
  Value offset = swizzledOffset(b, loc, tile, rows, row, col);
  Value aligned = arith::AndIOp::create(b, loc, offset, index(b, loc, ~15));
  Value bit3 = arith::AndIOp::create(b, loc, offset, index(b, loc, 8));
  Value zero = index(b, loc, 0);
  Value swapped =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, bit3, zero);
  return {offsetPtr(b, loc, base, aligned), swapped};
}

/// `v` (16 bytes) with its 8-byte halves swapped where `swapped`.
static Value swapHalves(OpBuilder &b, Location loc, Value v, Value swapped) {
  auto words = VectorType::get({4}, b.getI32Type());
  Value w = LLVM::BitcastOp::create(b, loc, words, v);
  Value s = LLVM::ShuffleVectorOp::create(b, loc, w, w,
                                          ArrayRef<int32_t>{2, 3, 0, 1});
  Value r = arith::SelectOp::create(b, loc, swapped, s, w);
  return LLVM::BitcastOp::create(b, loc, v.getType(), r);
}

Value tk::lower::amd::readChunk(OpBuilder &b, Location loc, Value base,
                                SharedTileType tile, int64_t rows, Value row,
                                Value col, Type type) {
  auto [at, swapped] = chunkAt(b, loc, base, tile, rows, row, col);
  Value v = LLVM::LoadOp::create(b, loc, type, at, /*alignment=*/16);
  return swapHalves(b, loc, v, swapped);
}

void tk::lower::amd::writeChunk(OpBuilder &b, Location loc, Value base,
                                SharedTileType tile, int64_t rows, Value row,
                                Value col, Value value) {
  auto [at, swapped] = chunkAt(b, loc, base, tile, rows, row, col);
  LLVM::StoreOp::create(b, loc, swapHalves(b, loc, value, swapped), at,
                        /*alignment=*/16);
}

namespace {

/// gfx9 buffer resource flags (word 3): 32-bit data format, no swizzle.
constexpr int64_t kBufferFlags = 0x27000;
/// A byte offset past any range we describe: loads there return zeros.
constexpr int64_t kOutOfRange = 0x7ffffff0;

/// A buffer resource for the bytes of a global view from element `start`
/// on, `bytes` long (clamped to [0, kOutOfRange)).
Value bufferResource(OpBuilder &b, Location loc, Value ptr, Type element,
                     Value start, Value bytes) {
  MLIRContext *ctx = b.getContext();
  Value base = LLVM::GEPOp::create(b, loc, ptr.getType(), element, ptr,
                                   ValueRange{toI64(b, loc, start)});
  Value positive = arith::MaxSIOp::create(b, loc, bytes, index(b, loc, 0));
  Value clamped =
      arith::MinSIOp::create(b, loc, positive, index(b, loc, kOutOfRange));
  Value stride = arith::ConstantIntOp::create(b, loc, 0, 16);
  Value numRecords = toI64(b, loc, clamped);
  Value flags = constI32(b, loc, kBufferFlags);
  return ROCDL::MakeBufferRsrcOp::create(b, loc,
                                         LLVM::LLVMPointerType::get(ctx, 8),
                                         base, stride, numRecords, flags);
}

Value bufferLoad(OpBuilder &b, Location loc, Type type, Value rsrc,
                 Value offset) {
  Value zero = constI32(b, loc, 0);
  return ROCDL::RawPtrBufferLoadOp::create(b, loc, type, rsrc,
                                           toI32(b, loc, offset), zero, zero,
                                           /*alias_scopes=*/nullptr,
                                           /*noalias_scopes=*/nullptr,
                                           /*tbaa=*/nullptr);
}

/// Where the 16-byte runs of a `rowsT` x `colsT` tile at tile coordinates
/// `coords` of a global view are read from: a buffer resource starting at
/// the tile's first element and ending with the view (the hardware range
/// check zero-fills rows past the end), and what a run's offset needs.
struct TileSource {
  Value rsrc, cols, c0;
  int64_t eb;

  TileSource(OpBuilder &b, Location loc, Operation *op, Value ptr,
             GlobalType view, ValueRange coords, int64_t rowsT, int64_t colsT) {
    Type element = view.getElementType();
    eb = elementBytes(element);
    size_t rank = view.getShape().size();
    SmallVector<Value> dims = viewDims(b, loc, op, rank);
    Value rows = dims[rank - 2];
    cols = dims[rank - 1];
    Value r0 = mul(b, loc, coords[rank - 2], index(b, loc, rowsT));
    c0 = mul(b, loc, coords[rank - 1], index(b, loc, colsT));
    Value lead = leadingOffset(b, loc, coords, dims, rank - 2);
    Value start = add(b, loc, mul(b, loc, add(b, loc, lead, r0), cols), c0);
    Value left = arith::SubIOp::create(
        b, loc,
        mul(b, loc, arith::SubIOp::create(b, loc, rows, r0).getResult(), cols),
        c0);
    rsrc = bufferResource(b, loc, ptr, element, start,
                          mul(b, loc, left, index(b, loc, eb)));
  }

  /// The byte offset of tile element (r, c), or one past any range when
  /// its column is past the view (rows past it are past the resource).
  Value offset(OpBuilder &b, Location loc, Value r, Value c) const {
    Value element = add(b, loc, mul(b, loc, r, cols), c);
    Value byte = mul(b, loc, element, index(b, loc, eb));
    Value inside = ult(b, loc, add(b, loc, c0, c), cols);
    return arith::SelectOp::create(b, loc, inside, byte,
                                   index(b, loc, kOutOfRange));
  }

  /// The 16 bytes at tile row `r`, columns `c` .. (zeros past the view;
  /// rows are whole runs, which the launcher checks).
  Value load(OpBuilder &b, Location loc, Value r, Value c) const {
    return bufferLoad(b, loc, VectorType::get({4}, b.getI32Type()), rsrc,
                      offset(b, loc, r, c));
  }
};

/// Register tile → global view with buffer stores: the range check drops
/// the elements past the view (rows past the resource, columns given an
/// out-of-range offset), so there is no branch per element.
struct StoreGlobalBuffered : OpConversionPattern<StoreOp> {
  StoreGlobalBuffered(TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto view = dyn_cast<GlobalType>(op.getDst().getType());
    auto tile = dyn_cast<RegTileType>(op.getValue().getType());
    if (!view || !tile)
      return rewriter.notifyMatchFailure(op, "not a register tile store");
    FailureOr<FragmentMap> map = getScopeFragmentMap(tile);
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type element = tile.getElementType();
    Type bits = b.getIntegerType(element.getIntOrFloatBitWidth());
    TileSource dst(b, loc, op, adaptor.getDst(), view, adaptor.getCoords(),
                   tile.getShape()[0], tile.getShape()[1]);
    Value zero = index(b, loc, 0), zero32 = constI32(b, loc, 0);
    auto [row, col] = threadOrigin(b, loc, *map, zero, zero);
    for (int64_t reg = 0; reg < map->numRegs(); ++reg) {
      auto [dr, dc] = map->elementAt({reg, 0, 0});
      Value r = add(b, loc, row, index(b, loc, dr));
      Value c = add(b, loc, col, index(b, loc, dc));
      Value offset = dst.offset(b, loc, r, c);
      Value value = LLVM::BitcastOp::create(
          b, loc, bits,
          LLVM::ExtractValueOp::create(b, loc, adaptor.getValue(), reg));
      ROCDL::RawPtrBufferStoreOp::create(
          b, loc, value, dst.rsrc, toI32(b, loc, offset), zero32, zero32,
          /*alias_scopes=*/nullptr, /*noalias_scopes=*/nullptr,
          /*tbaa=*/nullptr);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Writes the 16-byte run `run` (vector<4xi32>) of tile row `r`, columns
/// `c` .. into LDS: one 16-byte store at its swizzled offset, or, for a
/// tile stored transposed, one store per element into its column.
void storeRun(OpBuilder &b, Location loc, Value dst, Value tileValue, Value r,
              Value c, Value run, bool transposed) {
  auto tile = cast<SharedTileType>(tileValue.getType());
  Type element = tile.getElementType();
  int64_t eb = elementBytes(element), perRun = 16 / eb;
  if (!transposed) {
    writeChunk(b, loc, dst, tile, allocationRows(tileValue), r, c, run);
    return;
  }
  // Element (r, c + i) goes to row c + i, column r of the N x K form.
  SharedTileType t = transposedStorage(tile);
  auto elems = VectorType::get({perRun}, element);
  Value values = LLVM::BitcastOp::create(b, loc, elems, run);
  for (int64_t i = 0; i < perRun; ++i) {
    Value at = offsetPtr(b, loc, dst,
                         swizzledOffset(b, loc, t, t.getRows(),
                                        add(b, loc, c, index(b, loc, i)), r));
    LLVM::StoreOp::create(
        b, loc,
        LLVM::ExtractElementOp::create(b, loc, values, constI32(b, loc, i)), at,
        eb);
  }
}

/// tile.copy: barrier, run `i` of the tile moved by thread `i mod T`,
/// barrier. A shared vector is a one-row tile of the view's last axis,
/// stored unswizzled: run `i` at byte 16 i.
struct CopyLowering : OpConversionPattern<CopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    auto threads = op->getAttrOfType<IntegerAttr>(kThreads);
    if (!threads)
      return rewriter.notifyMatchFailure(op, "block size not recorded");
    if (auto vec = dyn_cast<SharedVecType>(op.getDst().getType())) {
      // The vector's elements of the view's last axis, from coordinate
      // `c` · length on: a buffer resource ending with that row, so reads
      // past it are zeros (any view rank).
      Type element = vec.getElementType();
      int64_t eb = elementBytes(element);
      int64_t runs = vec.getLength() * eb / 16;
      ValueRange coords = adaptor.getCoords();
      size_t rank = coords.size();
      SmallVector<Value> dims = viewDims(b, loc, op, rank);
      Value c0 = mul(b, loc, coords[rank - 1], index(b, loc, vec.getLength()));
      Value start =
          add(b, loc, leadingOffset(b, loc, coords, dims, rank - 1), c0);
      Value left = arith::SubIOp::create(b, loc, dims[rank - 1], c0);
      Value rsrc = bufferResource(b, loc, adaptor.getSrc(), element, start,
                                  mul(b, loc, left, index(b, loc, eb)));
      ROCDL::BarrierOp::create(b, loc);
      Value tid = threadIndex(b, loc);
      for (int64_t round = 0; round * threads.getInt() < runs; ++round) {
        Value i = add(b, loc, tid, index(b, loc, round * threads.getInt()));
        auto guard = scf::IfOp::create(
            b, loc, ult(b, loc, i, index(b, loc, runs)), false);
        OpBuilder::InsertionGuard g(b);
        b.setInsertionPoint(guard.thenBlock()->getTerminator());
        Value run = bufferLoad(b, loc, VectorType::get({4}, b.getI32Type()),
                               rsrc, mul(b, loc, i, index(b, loc, 16)));
        LLVM::StoreOp::create(b, loc, run,
                              offsetPtr(b, loc, adaptor.getDst(),
                                        mul(b, loc, i, index(b, loc, 16))),
                              16);
      }
      ROCDL::BarrierOp::create(b, loc);
      rewriter.eraseOp(op);
      return success();
    }
    auto tile = cast<SharedTileType>(op.getDst().getType());
    int64_t perRun = 16 / elementBytes(tile.getElementType());
    int64_t runsPerRow = tile.getCols() / perRun;
    int64_t runs = tile.getRows() * runsPerRow;
    int64_t rounds = llvm::divideCeil(runs, threads.getInt());
    TileSource source(b, loc, op, adaptor.getSrc(),
                      cast<GlobalType>(op.getSrc().getType()),
                      adaptor.getCoords(), tile.getRows(), tile.getCols());
    bool transposed = op->hasAttr(kLdsTransposed);

    ROCDL::BarrierOp::create(b, loc);
    Value tid = threadIndex(b, loc);
    for (int64_t round = 0; round < rounds; ++round) {
      Value i = add(b, loc, tid, index(b, loc, round * threads.getInt()));
      std::optional<scf::IfOp> guard;
      if ((round + 1) * threads.getInt() > runs) {
        guard = scf::IfOp::create(b, loc, ult(b, loc, i, index(b, loc, runs)),
                                  /*withElseRegion=*/false);
        b.setInsertionPoint(guard->thenBlock()->getTerminator());
      }
      Value r = arith::DivUIOp::create(b, loc, i, index(b, loc, runsPerRow));
      Value runInRow =
          arith::RemUIOp::create(b, loc, i, index(b, loc, runsPerRow));
      Value c = mul(b, loc, runInRow, index(b, loc, perRun));
      storeRun(b, loc, adaptor.getDst(), op.getDst(), r, c,
               source.load(b, loc, r, c), transposed);
      if (guard)
        b.setInsertionPointAfter(*guard);
    }
    ROCDL::BarrierOp::create(b, loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The (row, col) of each run of `perRun` consecutive registers a thread
/// holds (the 16-byte runs of a `#tile.chunks` tile, or an MFMA fragment's
/// column runs), in register order.
SmallVector<std::pair<Value, Value>>
chunkRuns(OpBuilder &b, Location loc, const FragmentMap &map, int64_t perRun) {
  Value zero = index(b, loc, 0);
  auto [row, col] = threadOrigin(b, loc, map, zero, zero);
  SmallVector<std::pair<Value, Value>> runs;
  for (int64_t reg = 0; reg < map.numRegs(); reg += perRun) {
    auto [dr, dc] = map.elementAt({reg, 0, 0});
    runs.push_back({add(b, loc, row, index(b, loc, dr)),
                    add(b, loc, col, index(b, loc, dc))});
  }
  return runs;
}

/// Global view → `#tile.chunks` registers: the first half of a split copy,
/// one 16-byte buffer load per run.
struct LoadChunksLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto view = dyn_cast<GlobalType>(op.getSrc().getType());
    auto tile = dyn_cast<RegTileType>(op.getType());
    if (!view || !tile || !isa_and_nonnull<ChunksLayoutAttr>(tile.getLayout()))
      return rewriter.notifyMatchFailure(op, "not a chunked load");
    FailureOr<FragmentMap> map = getScopeFragmentMap(tile);
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type element = tile.getElementType();
    int64_t perRun = 16 / elementBytes(element);
    TileSource source(b, loc, op, adaptor.getSrc(), view, adaptor.getCoords(),
                      tile.getShape()[0], tile.getShape()[1]);
    Type structType = getTypeConverter()->convertType(tile);
    Value result = LLVM::UndefOp::create(b, loc, structType);
    auto elems = VectorType::get({perRun}, element);
    for (auto [g, rc] : llvm::enumerate(chunkRuns(b, loc, *map, perRun))) {
      Value run = LLVM::BitcastOp::create(
          b, loc, elems, source.load(b, loc, rc.first, rc.second));
      result = unpackInto(b, loc, result, run, g * perRun);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `#tile.chunks` registers → shared tile: the second half of a split copy,
/// one 16-byte LDS store per run (per element for a transposed tile).
struct StoreChunksLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RegTileType>(op.getValue().getType());
    if (!tile || !isa<SharedTileType>(op.getDst().getType()) ||
        !isa_and_nonnull<ChunksLayoutAttr>(tile.getLayout()))
      return rewriter.notifyMatchFailure(op, "not a chunked store");
    FailureOr<FragmentMap> map = getScopeFragmentMap(tile);
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type element = tile.getElementType();
    int64_t perRun = 16 / elementBytes(element);
    auto elems = VectorType::get({perRun}, element);
    auto runType = VectorType::get({4}, b.getI32Type());
    bool transposed = op->hasAttr(kLdsTransposed);
    for (auto [g, rc] : llvm::enumerate(chunkRuns(b, loc, *map, perRun))) {
      Value run = packFields(b, loc, adaptor.getValue(), g * perRun, elems);
      storeRun(b, loc, adaptor.getDst(), op.getDst(), rc.first, rc.second,
               LLVM::BitcastOp::create(b, loc, runType, run), transposed);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Shared tile → register tile (an MMA operand kept in registers): each
/// thread reads its elements, as 8- or 16-byte runs where its first
/// register mode is a run of consecutive columns (the MFMA `a` fragment).
struct LoadSharedLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto shared = dyn_cast<SharedTileType>(op.getSrc().getType());
    auto tile = dyn_cast<RegTileType>(op.getType());
    if (!shared || !tile)
      return rewriter.notifyMatchFailure(op, "not shared to registers");
    FailureOr<FragmentMap> map = getScopeFragmentMap(tile);
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type element = tile.getElementType();
    int64_t eb = elementBytes(element), run = 1;
    ArrayRef<FragmentMode> regs = map->modes(FragmentMap::Index::reg);
    if (!regs.empty() && regs.front().rowStride == 0 &&
        regs.front().colStride == 1 && regs.front().size * eb <= 16 &&
        llvm::isPowerOf2_64(regs.front().size))
      run = regs.front().size;
    int64_t rows = allocationRows(op.getSrc());
    Type structType = getTypeConverter()->convertType(tile);
    Value result = LLVM::UndefOp::create(b, loc, structType);
    auto runType = VectorType::get({run}, element);
    for (auto [g, rc] : llvm::enumerate(chunkRuns(b, loc, *map, run))) {
      auto [r, c] = rc;
      Value v =
          run * eb == 16
              ? readChunk(b, loc, adaptor.getSrc(), shared, rows, r, c, runType)
              : LLVM::LoadOp::create(
                    b, loc, runType,
                    offsetPtr(b, loc, adaptor.getSrc(),
                              swizzledOffset(b, loc, shared, rows, r, c)),
                    run * eb)
                    .getResult();
      result = unpackInto(b, loc, result, v, g * run);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// `tile.fence async_proxy` orders generic writes to shared memory before
/// the async proxy's (TMA, wgmma) reads on NVIDIA. CDNA has no async proxy:
/// MFMA operands are read from LDS by the waves' own loads, which the
/// workgroup barrier that follows such a fence orders. Nothing to emit.
struct AsyncProxyFenceLowering : OpConversionPattern<FenceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FenceOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getKind() != FenceKind::async_proxy)
      return rewriter.notifyMatchFailure(op, "async_proxy only");
    rewriter.eraseOp(op);
    return success();
  }
};

struct BarrierLowering : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Warpgroup scope reaches here only where every warpgroup runs the
    // barrier alike (amdUnsupportedReason): the workgroup barrier serves.
    if (op.getScope() == Scope::warp)
      return rewriter.notifyMatchFailure(op, "block or warpgroup scope");
    blockBarrier(rewriter, op.getLoc(), op);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tk::lower::amd::populateMemoryPatterns(TypeConverter &converter,
                                            RewritePatternSet &patterns) {
  patterns.add<CopyLowering, LoadChunksLowering, StoreChunksLowering,
               LoadSharedLowering, BarrierLowering, AsyncProxyFenceLowering,
               StoreGlobalBuffered>(converter, patterns.getContext());
}
