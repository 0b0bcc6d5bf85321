//===- AMDCompute.cpp - MFMA ----------------------------------------------===//
//
// The AMD compute patterns:
//
// - `tile.mma`: per wave, for each MFMA atom of its part of the accumulator
//   (the result's FragmentMap), A and B fragments are read from LDS (or
//   taken from registers holding the `a` / `b` fragments) and multiplied
//   with one `v_mfma_f32_MxNxK` per k-step.
//
// The rest of the AMD lowering is shared with NVIDIA (FragmentMap patterns;
// layout conversions and exchanges between lanes and waves in Exchange.cpp)
// or in AMDMemory.cpp.
//
//===----------------------------------------------------------------------===//
#include "AMD.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;
using namespace tk::lower::amd;

namespace {

/// Instruction classes of AMDGPU scheduling groups.
constexpr uint32_t kGroupMfma = 0x008, kGroupVmemRead = 0x020,
                   kGroupDsRead = 0x100;

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
  /// `transposed`: the operand is given transposed (B as Bᵀ in forms ABt
  /// and AtBt, A as Aᵀ in AtB and AtBt); `storedTransposed`: B of form AB
  /// whose LDS copy the pass stored as Bᵀ.
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
      Value kBase = index(b, loc, k0);
      Value atomSize = index(b, loc, size);
      Value kGroup = arith::DivUIOp::create(b, loc, lane, atomSize);
      Value kPerLane = index(b, loc, perLane);
      Value k = add(b, loc, kBase, mul(b, loc, kGroup, kPerLane));
      int64_t rows = allocationRows(tile);
      if (storedTransposed) {
        shared = transposedStorage(shared);
        rows = shared.getRows();
      }
      // A (M x K) and Bᵀ (N x K) hold a lane's k run contiguously; Aᵀ
      // (K x M) and B (K x N) one element per k.
      if (isA != (transposed || storedTransposed)) {
        int64_t bytes = perLane * elementBytes(shared.getElementType());
        ++ldsReads;
        if (bytes == 16)
          return readChunk(b, loc, lowered, shared, rows, o, k, vectorType);
        Value at = offsetPtr(b, loc, lowered,
                             swizzledOffset(b, loc, shared, rows, o, k));
        return LLVM::LoadOp::create(b, loc, vectorType, at, bytes).getResult();
      }
      // Aᵀ (K x M), B (K x N): one element per k.
      Value v = LLVM::UndefOp::create(b, loc, vectorType);
      for (int64_t j = 0; j < perLane; ++j) {
        Value at =
            offsetPtr(b, loc, lowered,
                      swizzledOffset(b, loc, shared, rows,
                                     add(b, loc, k, index(b, loc, j)), o));
        Value e = LLVM::LoadOp::create(b, loc, vectorType.getElementType(), at,
                                       elementBytes(shared.getElementType()));
        ++ldsReads;
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
    return packFields(b, loc, lowered, *first, vectorType);
  }

private:
  OpBuilder &b;
  Location loc;
  Value tile, lowered;
  MfmaLayoutAttr frag;
  bool isA, transposed, storedTransposed;

public:
  /// LDS reads issued so far.
  int64_t ldsReads = 0;

private:
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
    MmaForm form = op.getForm();
    bool aTransposed = form == MmaForm::AtB || form == MmaForm::AtBt;
    bool transposed = form == MmaForm::ABt || form == MmaForm::AtBt;
    Type input = OperandReader::elementOf(op.getA());
    ArrayRef<int64_t> aShape =
        isa<SharedTileType>(op.getA().getType())
            ? cast<SharedTileType>(op.getA().getType()).getShape().take_back(2)
            : cast<RegTileType>(op.getA().getType()).getShape();
    int64_t kTotal = aTransposed ? aShape[0] : aShape[1];
    int64_t m = frag.getM(), n = frag.getN(), k = frag.getK();
    int64_t perAtom = m * n / 64;

    Value tid = threadIndex(b, loc);
    Value lane = arith::RemUIOp::create(b, loc, tid, index(b, loc, 64));
    Value waveInBlock = arith::DivUIOp::create(b, loc, tid, index(b, loc, 64));
    Value waves = index(b, loc, map->numWarps());
    Value wave = arith::RemUIOp::create(b, loc, waveInBlock, waves);
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
                        frag2(MfmaOperand::a), /*isA=*/true, aTransposed);
    OperandReader readB(b, loc, op.getB(), adaptor.getB(),
                        frag2(MfmaOperand::b), /*isA=*/false, transposed,
                        op->hasAttr(kLdsTransposed));

    // Accumulators per atom, from the input accumulator or zeros.
    auto accType = VectorType::get({perAtom}, b.getF32Type());
    SmallVector<Value> acc;
    Value zero =
        LLVM::ConstantOp::create(b, loc, b.getF32Type(), b.getF32FloatAttr(0));
    for (size_t a = 0; a < atoms.size(); ++a) {
      if (adaptor.getAcc()) {
        acc.push_back(
            packFields(b, loc, adaptor.getAcc(), a * perAtom, accType));
        continue;
      }
      Value v = LLVM::UndefOp::create(b, loc, accType);
      for (int64_t j = 0; j < perAtom; ++j)
        v = LLVM::InsertElementOp::create(b, loc, v, zero, constI32(b, loc, j));
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
      }
    }

    // HipKittens' 4-wave interleave (tile-pipeline marked the loop): one
    // wave per SIMD has no partner to hide its latencies, so its LDS
    // fragment reads and the loop's prefetch loads are spread between its
    // MFMAs, one of each after each MFMA (scheduling groups, in order).
    if (auto loads = op->getAttrOfType<IntegerAttr>(kInterleaveLoads)) {
      int64_t mfmas = int64_t(atoms.size()) * (kTotal / k);
      int64_t reads = readA.ldsReads + readB.ldsReads;
      for (int64_t i = 0; i < mfmas; ++i) {
        ROCDL::SchedGroupBarrier::create(b, loc, kGroupMfma, 1, 0);
        if (i < reads)
          ROCDL::SchedGroupBarrier::create(b, loc, kGroupDsRead, 1, 0);
        if (i < loads.getInt())
          ROCDL::SchedGroupBarrier::create(b, loc, kGroupVmemRead, 1, 0);
      }
    }

    Type structType = getTypeConverter()->convertType(d);
    Value result = LLVM::UndefOp::create(b, loc, structType);
    for (auto [a, v] : llvm::enumerate(acc))
      result = unpackInto(b, loc, result, v, a * perAtom);
    rewriter.replaceOp(op, result);
    return success();
  }
};

} // namespace

void tk::lower::amd::populateComputePatterns(TypeConverter &converter,
                                             RewritePatternSet &patterns) {
  patterns.add<MfmaLowering>(converter, patterns.getContext());
}

void tk::lower::populateAMDPatterns(TypeConverter &converter,
                                    RewritePatternSet &patterns) {
  amd::populateMemoryPatterns(converter, patterns);
  amd::populateComputePatterns(converter, patterns);
}
