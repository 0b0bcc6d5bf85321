//===- AMD.cpp - Copies into LDS, MFMA and barriers for CDNA --------------===//
//
// The AMD-only patterns of the lowering (everything written against
// FragmentMap -- fills, casts, elementwise ops, reductions, masks, register
// stores -- is shared with NVIDIA):
//
// - `tile.copy` (global → LDS, the whole block): each thread moves 16-byte
//   chunks with buffer loads, whose hardware range check returns zeros past
//   the view's last row; a chunk past the last column gets an out-of-range
//   offset (rows are whole chunks: the manifest asks the launcher for row
//   lengths of a multiple of 16 bytes, as TMA does on NVIDIA). Chunks land
//   in LDS at their swizzled offsets -- transposed (N x K) for a tile that
//   only feeds `AB` MFMAs as B, so its fragments are contiguous 8- or 16-byte
//   reads like A's instead of one read per element. A block
//   barrier before (earlier readers are done) and after (the data is
//   visible) makes the copy synchronous, as the op promises.
// - `tile.mma`: per wave, for each MFMA atom of its part of the
//   accumulator (the result's FragmentMap), A and B fragments are read from
//   LDS (or taken from registers holding the `a` / `b` fragments) and
//   multiplied with one `v_mfma_f32_MxNxK` per k-step.
// - `tile.barrier block`: `s_barrier` with workgroup-scope fences.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// gfx9 buffer resource flags (word 3): 32-bit data format, no swizzle.
constexpr int64_t kBufferFlags = 0x27000;
/// A byte offset past any range we describe: loads there return zeros.
constexpr int64_t kOutOfRange = 0x7ffffff0;

Value index(OpBuilder &b, Location loc, int64_t v) {
  return constIndex(b, loc, v);
}
Value add(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}
Value mul(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}
Value ult(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, x, y);
}

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
  return ROCDL::MakeBufferRsrcOp::create(
      b, loc, LLVM::LLVMPointerType::get(ctx, 8), base,
      arith::ConstantIntOp::create(b, loc, 0, 16), toI64(b, loc, clamped),
      constI32(b, loc, kBufferFlags));
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

/// How a shared tile read as the B operand of `AB` MFMAs is stored when the
/// pass stores it transposed (N x K): the transposed shape, with the
/// tile's swizzle where it fits that shape (else unswizzled).
SharedTileType transposedStorage(SharedTileType tile) {
  int64_t eb = elementBytes(tile.getElementType());
  SwizzleAttr swizzle = tile.getSwizzle();
  if (!swizzle.checkShape(tile.getCols(), tile.getRows(), eb).empty())
    swizzle = SwizzleAttr::get(tile.getContext(), 0);
  return SharedTileType::get(tile.getContext(),
                             {tile.getCols(), tile.getRows()},
                             tile.getElementType(), swizzle);
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

  /// The 16 bytes at tile row `r`, columns `c` .. (zeros past the view;
  /// rows are whole runs, which the launcher checks).
  Value load(OpBuilder &b, Location loc, Value r, Value c) const {
    Value byte =
        mul(b, loc, add(b, loc, mul(b, loc, r, cols), c), index(b, loc, eb));
    Value inside = ult(b, loc, add(b, loc, c0, c), cols);
    Value offset = arith::SelectOp::create(b, loc, inside, byte,
                                           index(b, loc, kOutOfRange));
    return bufferLoad(b, loc, VectorType::get({4}, b.getI32Type()), rsrc,
                      offset);
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
    Value at = offsetPtr(
        b, loc, dst,
        swizzledOffset(b, loc, tile, allocationRows(tileValue), r, c));
    LLVM::StoreOp::create(b, loc, run, at, /*alignment=*/16);
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
/// barrier.
struct CopyLowering : OpConversionPattern<CopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    auto tile = cast<SharedTileType>(op.getDst().getType());
    auto threads = op->getAttrOfType<IntegerAttr>(kThreads);
    if (!threads)
      return rewriter.notifyMatchFailure(op, "block size not recorded");
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
      Value c = mul(
          b, loc, arith::RemUIOp::create(b, loc, i, index(b, loc, runsPerRow)),
          index(b, loc, perRun));
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

/// The (row, col) of each 16-byte run a thread holds in a `#tile.chunks`
/// tile, in register order.
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
      for (int64_t i = 0; i < perRun; ++i)
        result = LLVM::InsertValueOp::create(
            b, loc, result,
            LLVM::ExtractElementOp::create(b, loc, run, constI32(b, loc, i)),
            g * perRun + i);
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
      Value run = LLVM::UndefOp::create(b, loc, elems);
      for (int64_t i = 0; i < perRun; ++i)
        run = LLVM::InsertElementOp::create(
            b, loc, run,
            LLVM::ExtractValueOp::create(b, loc, adaptor.getValue(),
                                         g * perRun + i),
            constI32(b, loc, i));
      storeRun(b, loc, adaptor.getDst(), op.getDst(), rc.first, rc.second,
               LLVM::BitcastOp::create(b, loc, runType, run), transposed);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// The MFMA instruction for an atom shape and input type.
FailureOr<Operation *> createMfma(OpBuilder &b, Location loc, MfmaLayoutAttr f,
                                  Type input, Value a, Value bv, Value c) {
  Type res = c.getType();
  Value zero = constI32(b, loc, 0);
  SmallVector<Value> args = {a, bv, c, zero, zero, zero};
  unsigned m = f.getM(), k = f.getK();
  bool bf16 = input.isBF16();
#define TK_MFMA(OP) OP::create(b, loc, res, args).getOperation()
  if (m == 32 && k == 8)
    return bf16 ? TK_MFMA(ROCDL::mfma_f32_32x32x8bf16_1k)
                : TK_MFMA(ROCDL::mfma_f32_32x32x8f16);
  if (m == 16 && k == 16)
    return bf16 ? TK_MFMA(ROCDL::mfma_f32_16x16x16bf16_1k)
                : TK_MFMA(ROCDL::mfma_f32_16x16x16f16);
  if (m == 32 && k == 16)
    return bf16 ? TK_MFMA(ROCDL::mfma_f32_32x32x16_bf16)
                : TK_MFMA(ROCDL::mfma_f32_32x32x16_f16);
  if (m == 16 && k == 32)
    return bf16 ? TK_MFMA(ROCDL::mfma_f32_16x16x32_bf16)
                : TK_MFMA(ROCDL::mfma_f32_16x16x32_f16);
#undef TK_MFMA
  return failure();
}

/// Operand fragments of one wave, as MFMA input vectors.
class OperandReader {
public:
  /// `transposed`: B is given as Bᵀ (form ABt); `storedTransposed`: B of
  /// form AB whose LDS copy the pass stored as Bᵀ.
  OperandReader(OpBuilder &b, Location loc, Value tile, Value lowered,
                MfmaLayoutAttr frag, bool isA, bool transposed,
                bool storedTransposed = false)
      : b(b), loc(loc), tile(tile), lowered(lowered), frag(frag), isA(isA),
        transposed(transposed), storedTransposed(storedTransposed) {
    int64_t m = isA ? frag.getM() : frag.getN();
    perLane = m * frag.getK() / 64;
    Type element = elementOf(tile);
    // gfx942's k = 8 / 16 forms take i16 (bf16) or f16 lanes; gfx950's
    // doubled k forms take bf16 / f16 vectors.
    bool wide = perLane == 8;
    Type lane = element.isBF16() && !wide ? Type(b.getI16Type()) : element;
    vectorType = VectorType::get({perLane}, lane);
    if (auto reg = dyn_cast<RegTileType>(tile.getType())) {
      FailureOr<FragmentMap> map = getScopeFragmentMap(reg);
      if (succeeded(map))
        regMap = *map;
    }
  }

  static Type elementOf(Value tile) {
    if (auto s = dyn_cast<SharedTileType>(tile.getType()))
      return s.getElementType();
    return cast<RegTileType>(tile.getType()).getElementType();
  }

  /// The fragment of the atom at (`outer` = row of A / column of B, `k0`):
  /// `outer` is the wave's origin plus the atom's offset, `lane` the lane.
  FailureOr<Value> read(Value outer, int64_t outerInWave, int64_t k0,
                        Value lane) {
    int64_t size = isA ? frag.getM() : frag.getN();
    if (auto shared = dyn_cast<SharedTileType>(tile.getType())) {
      Value o = add(b, loc, outer,
                    arith::RemUIOp::create(b, loc, lane, index(b, loc, size)));
      Value k = add(
          b, loc, index(b, loc, k0),
          mul(b, loc, arith::DivUIOp::create(b, loc, lane, index(b, loc, size)),
              index(b, loc, perLane)));
      int64_t rows = allocationRows(tile);
      if (storedTransposed) {
        shared = transposedStorage(shared);
        rows = shared.getRows();
      }
      // A (M x K) and Bᵀ (N x K) hold a lane's k run contiguously.
      if (isA || transposed || storedTransposed) {
        Value at = offsetPtr(b, loc, lowered,
                             swizzledOffset(b, loc, shared, rows, o, k));
        Value v = LLVM::LoadOp::create(
            b, loc, vectorType, at,
            perLane * elementBytes(shared.getElementType()));
        return v;
      }
      // B (K x N): one element per k.
      Value v = LLVM::UndefOp::create(b, loc, vectorType);
      for (int64_t j = 0; j < perLane; ++j) {
        Value at =
            offsetPtr(b, loc, lowered,
                      swizzledOffset(b, loc, shared, rows,
                                     add(b, loc, k, index(b, loc, j)), o));
        Value e = LLVM::LoadOp::create(b, loc, vectorType.getElementType(), at,
                                       elementBytes(shared.getElementType()));
        v = LLVM::InsertElementOp::create(b, loc, v, e, constI32(b, loc, j));
      }
      return v;
    }
    // Registers holding the fragment: find the atom's first register.
    int64_t row = isA ? outerInWave : k0, col = isA ? k0 : outerInWave;
    std::optional<int64_t> first;
    for (int64_t r = 0; r < regMap.numRegs() && !first; ++r)
      if (regMap.elementAt({r, 0, 0}) == std::pair<int64_t, int64_t>(row, col))
        first = r;
    if (!first)
      return failure();
    Value v = LLVM::UndefOp::create(b, loc, vectorType);
    for (int64_t j = 0; j < perLane; ++j) {
      Value e = LLVM::ExtractValueOp::create(b, loc, lowered, *first + j);
      if (e.getType() != vectorType.getElementType())
        e = LLVM::BitcastOp::create(b, loc, vectorType.getElementType(), e);
      v = LLVM::InsertElementOp::create(b, loc, v, e, constI32(b, loc, j));
    }
    return v;
  }

private:
  OpBuilder &b;
  Location loc;
  Value tile, lowered;
  MfmaLayoutAttr frag;
  bool isA, transposed, storedTransposed;
  int64_t perLane;
  VectorType vectorType;
  FragmentMap regMap;
};

struct MfmaLowering : OpConversionPattern<MmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    RegTileType d = op.getType();
    auto frag = dyn_cast_or_null<MfmaLayoutAttr>(d.getLayout());
    FailureOr<FragmentMap> map = getScopeFragmentMap(d);
    if (!frag || failed(map))
      return rewriter.notifyMatchFailure(op, "no MFMA accumulator");
    bool transposed = op.getForm() == MmaForm::ABt;
    Type input = OperandReader::elementOf(op.getA());
    int64_t kTotal = isa<SharedTileType>(op.getA().getType())
                         ? cast<SharedTileType>(op.getA().getType()).getCols()
                         : cast<RegTileType>(op.getA().getType()).getShape()[1];
    int64_t m = frag.getM(), n = frag.getN(), k = frag.getK();
    int64_t perAtom = m * n / 64;

    Value tid = threadIndex(b, loc);
    Value lane = arith::RemUIOp::create(b, loc, tid, index(b, loc, 64));
    Value wave = arith::RemUIOp::create(
        b, loc, arith::DivUIOp::create(b, loc, tid, index(b, loc, 64)),
        index(b, loc, map->numWarps()));
    Value row0 = index(b, loc, 0), col0 = index(b, loc, 0);
    addModeOffsets(b, loc, map->modes(FragmentMap::Index::warp), wave, row0,
                   col0);

    // The wave's atoms, in register order: (row offset, col offset).
    SmallVector<std::pair<int64_t, int64_t>> atoms;
    for (int64_t r = 0; r < map->numRegs(); r += perAtom)
      atoms.push_back(map->elementAt({r, 0, 0}));
    SmallVector<int64_t> atomRows, atomCols;
    for (auto [r, c] : atoms) {
      if (!llvm::is_contained(atomRows, r))
        atomRows.push_back(r);
      if (!llvm::is_contained(atomCols, c))
        atomCols.push_back(c);
    }

    auto frag2 = [&](MfmaOperand which) {
      return MfmaLayoutAttr::get(frag.getContext(), m, n, k, which,
                                 frag.getWaveRows(), frag.getWaveCols());
    };
    OperandReader readA(b, loc, op.getA(), adaptor.getA(),
                        frag2(MfmaOperand::a), /*isA=*/true, false);
    OperandReader readB(b, loc, op.getB(), adaptor.getB(),
                        frag2(MfmaOperand::b), /*isA=*/false, transposed,
                        op->hasAttr(kLdsTransposed));

    // Accumulators per atom, from the input accumulator or zeros.
    auto accType = VectorType::get({perAtom}, b.getF32Type());
    SmallVector<Value> acc;
    Value zero =
        LLVM::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(0));
    for (size_t a = 0; a < atoms.size(); ++a) {
      Value v = LLVM::UndefOp::create(b, loc, accType);
      for (int64_t j = 0; j < perAtom; ++j) {
        Value e = adaptor.getAcc()
                      ? LLVM::ExtractValueOp::create(b, loc, adaptor.getAcc(),
                                                     a * perAtom + j)
                            .getResult()
                      : zero;
        v = LLVM::InsertElementOp::create(b, loc, v, e, constI32(b, loc, j));
      }
      acc.push_back(v);
    }

    // Per k-step: the A fragments of the wave's atom rows, then per atom
    // column its B fragment and the MFMAs that use it (a B fragment is dead
    // after its column, which keeps register pressure to one at a time).
    for (int64_t k0 = 0; k0 < kTotal; k0 += k) {
      DenseMap<int64_t, Value> aFrags;
      for (int64_t r : atomRows) {
        FailureOr<Value> v =
            readA.read(add(b, loc, row0, index(b, loc, r)), r, k0, lane);
        if (failed(v))
          return rewriter.notifyMatchFailure(op, "A fragment not in registers");
        aFrags[r] = *v;
      }
      for (int64_t c : atomCols) {
        FailureOr<Value> bFrag =
            readB.read(add(b, loc, col0, index(b, loc, c)), c, k0, lane);
        if (failed(bFrag))
          return rewriter.notifyMatchFailure(op, "B fragment not in registers");
        for (auto [a, atom] : llvm::enumerate(atoms)) {
          if (atom.second != c)
            continue;
          FailureOr<Operation *> mfma = createMfma(
              b, loc, frag, input, aFrags[atom.first], *bFrag, acc[a]);
          if (failed(mfma))
            return rewriter.notifyMatchFailure(op, "no MFMA for this shape");
          acc[a] = (*mfma)->getResult(0);
        }
        // Keep the scheduler from hoisting every fragment read of the mma
        // above the first MFMA (the register pressure spills on attention).
        ROCDL::SchedBarrier::create(b, loc, /*mask=*/0);
      }
    }

    Type structType = getTypeConverter()->convertType(d);
    Value result = LLVM::UndefOp::create(b, loc, structType);
    for (auto [a, v] : llvm::enumerate(acc))
      for (int64_t j = 0; j < perAtom; ++j)
        result = LLVM::InsertValueOp::create(
            b, loc, result,
            LLVM::ExtractElementOp::create(b, loc, v, constI32(b, loc, j)),
            a * perAtom + j);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A function of the 6 lane bits that is linear over GF(2): f(l) = c XOR
/// (XOR of cols[i] for each set bit i of l). MFMA fragments place elements
/// by bit fields of the lane, so where one element comes from is such a
/// function of where it goes.
struct LaneLinear {
  int64_t c = 0;
  SmallVector<int64_t, 6> cols;

  int64_t at(int64_t lane) const {
    int64_t v = c;
    for (auto [i, col] : llvm::enumerate(cols))
      if (lane >> i & 1)
        v ^= col;
    return v;
  }

  static std::optional<LaneLinear> fit(ArrayRef<int64_t> values) {
    LaneLinear f;
    f.c = values[0];
    for (int64_t bit = 1; bit < int64_t(values.size()); bit *= 2)
      f.cols.push_back(values[bit] ^ f.c);
    for (auto [lane, v] : llvm::enumerate(values))
      if (f.at(lane) != v)
        return std::nullopt;
    return f;
  }

  Value emit(OpBuilder &b, Location loc, Value lane) const {
    Value v = index(b, loc, c);
    for (auto [i, col] : llvm::enumerate(cols)) {
      if (!col)
        continue;
      Value bit = arith::AndIOp::create(
          b, loc, arith::ShRUIOp::create(b, loc, lane, index(b, loc, i)),
          index(b, loc, 1));
      v = arith::XOrIOp::create(b, loc, v,
                                mul(b, loc, bit, index(b, loc, col)));
    }
    return v;
  }
};

/// For each destination register of a wave-local conversion: where its
/// element comes from, as linear functions of the lane (source lane and
/// source register).
struct InWavePlan {
  SmallVector<LaneLinear> srcLane, srcReg;
  SmallVector<SmallVector<int64_t, 4>> regs; // the source registers used
};

/// The plan when every element stays in its wave and the movement is
/// lane-linear (every warp the same), else nullopt.
std::optional<InWavePlan> planInWave(const FragmentMap &src,
                                     const FragmentMap &dst) {
  int64_t lanes = dst.numLanes(), warps = dst.numWarps();
  if (lanes != 64 || src.numLanes() != 64 || src.numWarps() != warps)
    return std::nullopt;
  // Per warp: element → (register, lane) of a source slot holding it.
  SmallVector<
      DenseMap<std::pair<int64_t, int64_t>, std::pair<int64_t, int64_t>>>
      held(warps);
  for (int64_t w = 0; w < warps; ++w)
    for (int64_t l = 0; l < lanes; ++l)
      for (int64_t r = 0; r < src.numRegs(); ++r)
        held[w].try_emplace(src.elementAt({r, l, w}), std::pair{r, l});
  InWavePlan plan;
  for (int64_t r = 0; r < dst.numRegs(); ++r) {
    SmallVector<int64_t> fromLane(lanes), fromReg(lanes);
    for (int64_t w = 0; w < warps; ++w)
      for (int64_t l = 0; l < lanes; ++l) {
        auto it = held[w].find(dst.elementAt({r, l, w}));
        if (it == held[w].end())
          return std::nullopt;
        if (w == 0) {
          fromReg[l] = it->second.first;
          fromLane[l] = it->second.second;
        } else if (fromReg[l] != it->second.first ||
                   fromLane[l] != it->second.second) {
          return std::nullopt;
        }
      }
    auto lane = LaneLinear::fit(fromLane), reg = LaneLinear::fit(fromReg);
    if (!lane || !reg)
      return std::nullopt;
    plan.srcLane.push_back(*lane);
    plan.srcReg.push_back(*reg);
    SmallVector<int64_t, 4> used;
    for (int64_t v : fromReg)
      if (!llvm::is_contained(used, v))
        used.push_back(v);
    plan.regs.push_back(used);
  }
  return plan;
}

/// A layout conversion that keeps every element in its wave, done with lane
/// exchanges: each destination register is gathered by one `ds_bpermute`
/// per source register it draws from, and a select by lane.
struct ConvertInWave : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto from = dyn_cast<RegTileType>(op.getX().getType());
    auto to = dyn_cast<RegTileType>(op.getType());
    if (!from || !to || sameFragments(op))
      return rewriter.notifyMatchFailure(op, "nothing to move");
    FailureOr<FragmentMap> src = getScopeFragmentMap(from);
    FailureOr<FragmentMap> dst = getScopeFragmentMap(to);
    if (failed(src) || failed(dst))
      return rewriter.notifyMatchFailure(op, "no fragment maps");
    std::optional<InWavePlan> plan = planInWave(*src, *dst);
    if (!plan)
      return rewriter.notifyMatchFailure(op, "not wave-local");
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type element = from.getElementType();
    unsigned bits = element.getIntOrFloatBitWidth();
    Type i32 = b.getI32Type(), narrow = b.getIntegerType(bits);
    auto toI32Bits = [&](Value v) -> Value {
      Value asInt = LLVM::BitcastOp::create(b, loc, narrow, v);
      return bits == 32 ? asInt : LLVM::ZExtOp::create(b, loc, i32, asInt);
    };
    auto fromI32Bits = [&](Value v) -> Value {
      Value asInt = bits == 32 ? v : LLVM::TruncOp::create(b, loc, narrow, v);
      return LLVM::BitcastOp::create(b, loc, element, asInt);
    };
    Value lane =
        arith::RemUIOp::create(b, loc, threadIndex(b, loc), index(b, loc, 64));
    Type structType = getTypeConverter()->convertType(to);
    Value result = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t r = 0; r < dst->numRegs(); ++r) {
      Value address = toI32(
          b, loc,
          arith::ShLIOp::create(b, loc, plan->srcLane[r].emit(b, loc, lane),
                                index(b, loc, 2)));
      Value which = plan->regs[r].size() > 1
                        ? plan->srcReg[r].emit(b, loc, lane)
                        : Value();
      Value gathered;
      for (int64_t s : plan->regs[r]) {
        Value v = ROCDL::DsBpermuteOp::create(
            b, loc, i32, address,
            toI32Bits(LLVM::ExtractValueOp::create(b, loc, adaptor.getX(), s)));
        gathered =
            gathered
                ? arith::SelectOp::create(
                      b, loc,
                      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                            which, index(b, loc, s)),
                      v, gathered)
                      .getResult()
                : v;
      }
      result =
          LLVM::InsertValueOp::create(b, loc, result, fromI32Bits(gathered), r);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// A layout conversion that moves data, through an LDS scratch tile (the
/// pass reserved it and recorded its offset): every thread writes the
/// elements it holds at their (row, col), the block synchronizes, every
/// thread reads the elements its new layout gives it. A barrier first keeps
/// the writes behind the previous conversion's reads of the same scratch.
struct ConvertThroughLDS : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto offset = op->getAttrOfType<IntegerAttr>(kScratchOffset);
    auto from = dyn_cast<RegTileType>(op.getX().getType());
    auto to = dyn_cast<RegTileType>(op.getType());
    if (!offset || !from || !to)
      return rewriter.notifyMatchFailure(op, "no scratch");
    FailureOr<FragmentMap> src = getScopeFragmentMap(from);
    FailureOr<FragmentMap> dst = getScopeFragmentMap(to);
    if (failed(src) || failed(dst))
      return rewriter.notifyMatchFailure(op, "no fragment maps");
    OpBuilder &b = rewriter;
    Location loc = op.getLoc();
    Type element = from.getElementType();
    int64_t eb = elementBytes(element), cols = from.getShape()[1];
    Value scratch = sharedAt(b, loc, offset.getInt());
    auto at = [&](Value row, Value col) {
      Value at = add(b, loc, mul(b, loc, row, index(b, loc, cols)), col);
      return offsetPtr(b, loc, scratch, mul(b, loc, at, index(b, loc, eb)));
    };
    ROCDL::BarrierOp::create(b, loc);
    Value zero = index(b, loc, 0);
    auto [srcRow, srcCol] = threadOrigin(b, loc, *src, zero, zero);
    for (int64_t reg = 0; reg < src->numRegs(); ++reg) {
      auto [dr, dc] = src->elementAt({reg, 0, 0});
      LLVM::StoreOp::create(
          b, loc, LLVM::ExtractValueOp::create(b, loc, adaptor.getX(), reg),
          at(add(b, loc, srcRow, index(b, loc, dr)),
             add(b, loc, srcCol, index(b, loc, dc))));
    }
    ROCDL::BarrierOp::create(b, loc);
    auto [dstRow, dstCol] = threadOrigin(b, loc, *dst, zero, zero);
    Type structType = getTypeConverter()->convertType(to);
    Value result = LLVM::UndefOp::create(b, loc, structType);
    for (int64_t reg = 0; reg < dst->numRegs(); ++reg) {
      auto [dr, dc] = dst->elementAt({reg, 0, 0});
      Value v =
          LLVM::LoadOp::create(b, loc, element,
                               at(add(b, loc, dstRow, index(b, loc, dr)),
                                  add(b, loc, dstCol, index(b, loc, dc))));
      result = LLVM::InsertValueOp::create(b, loc, result, v, reg);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

struct BarrierLowering : OpConversionPattern<BarrierOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getScope() != Scope::block)
      return rewriter.notifyMatchFailure(op, "block scope only");
    rewriter.replaceOpWithNewOp<ROCDL::BarrierOp>(op);
    return success();
  }
};
} // namespace

bool tk::lower::convertsInWave(ConvertLayoutOp op) {
  auto from = dyn_cast<RegTileType>(op.getX().getType());
  auto to = dyn_cast<RegTileType>(op.getType());
  if (!from || !to)
    return false;
  FailureOr<FragmentMap> src = getScopeFragmentMap(from);
  FailureOr<FragmentMap> dst = getScopeFragmentMap(to);
  return succeeded(src) && succeeded(dst) && planInWave(*src, *dst);
}

void tk::lower::populateAMDPatterns(TypeConverter &converter,
                                    RewritePatternSet &patterns) {
  // Above the shared same-placement conversion, which it never overlaps
  // (that one fails where data moves).
  patterns.add<CopyLowering, LoadChunksLowering, StoreChunksLowering,
               MfmaLowering, ConvertInWave, ConvertThroughLDS, BarrierLowering>(
      converter, patterns.getContext());
}
