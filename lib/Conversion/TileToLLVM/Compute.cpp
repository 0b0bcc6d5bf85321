//===- Compute.cpp - Fills, casts, elementwise ops, wgmma -----------------===//
//
// Register values are structs with one field per element a thread holds, in
// the order of the layout's FragmentMap registers. Elementwise ops therefore
// act field by field, whatever the layout; only the MMA needs to know that
// the #tile.mma_acc fragment is exactly wgmma's accumulator order.
//
//===----------------------------------------------------------------------===//
#include "Common.h"

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// Builds a struct of `type` whose field i is `field(i)`.
Value buildStruct(OpBuilder &b, Location loc, Type type,
                  llvm::function_ref<Value(int64_t)> field) {
  auto structType = cast<LLVM::LLVMStructType>(type);
  Value result = LLVM::UndefOp::create(b, loc, structType);
  for (int64_t i = 0, e = structType.getBody().size(); i < e; ++i)
    result = LLVM::InsertValueOp::create(b, loc, result, field(i), i);
  return result;
}

Value extract(OpBuilder &b, Location loc, Value s, int64_t i) {
  return LLVM::ExtractValueOp::create(b, loc, s, i);
}

struct FillLowering : OpConversionPattern<FillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FillOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = getTypeConverter()->convertType(op.getType());
    Type element = cast<RegisterType>(op.getType()).getElementType();
    APFloat value = op.getValueAttr().getValue();
    bool losesInfo;
    value.convert(cast<FloatType>(element).getFloatSemantics(),
                  APFloat::rmNearestTiesToEven, &losesInfo);
    Value constant = LLVM::ConstantOp::create(
        rewriter, loc, element, rewriter.getFloatAttr(element, value));
    rewriter.replaceOp(op, buildStruct(rewriter, loc, structType,
                                       [&](int64_t) { return constant; }));
    return success();
  }
};

struct CastLowering : OpConversionPattern<CastOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CastOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = getTypeConverter()->convertType(op.getType());
    Type to = cast<RegisterType>(op.getType()).getElementType();
    rewriter.replaceOp(
        op, buildStruct(rewriter, loc, structType, [&](int64_t i) {
          return convertFloat(rewriter, loc,
                              extract(rewriter, loc, adaptor.getX(), i), to);
        }));
    return success();
  }
};

/// A binary op's rhs: a struct of the tile's fields as it is, a scalar
/// converted to the element type.
Value binaryRhs(OpBuilder &b, Location loc, Value rhs, Type element) {
  if (isa<LLVM::LLVMStructType>(rhs.getType()))
    return rhs;
  return convertFloat(b, loc, rhs, element);
}

/// A struct of `structType` whose field i is `op` of field i of each of
/// `operands` (structs of the same fields, or scalars that every field
/// takes), 16-bit fields two at a time (pairwise).
Value elementwise(OpBuilder &b, Location loc, Type structType,
                  ValueRange operands,
                  llvm::function_ref<Value(ValueRange)> op) {
  int64_t count = cast<LLVM::LLVMStructType>(structType).getBody().size();
  SmallVector<SmallVector<Value>> fields(operands.size());
  for (int64_t i = 0; i < count; ++i)
    for (auto [v, list] : llvm::zip(operands, fields))
      list.push_back(
          isa<LLVM::LLVMStructType>(v.getType()) ? extract(b, loc, v, i) : v);
  return packStruct(b, loc, structType, pairwise(b, loc, fields, op));
}

/// Field i of `lhs` op `rhs` (a struct of the same fields, or a scalar).
template <typename LLVMOp>
Value binaryFields(OpBuilder &b, Location loc, Type structType, Value lhs,
                   Value rhs) {
  return elementwise(b, loc, structType, {lhs, rhs}, [&](ValueRange v) {
    return LLVMOp::create(b, loc, v[0], v[1]).getResult();
  });
}

/// Elementwise binary op: field by field, or with a broadcast f32 scalar.
template <typename TileOp, typename LLVMOp>
struct BinaryLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern<TileOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, typename TileOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = this->getTypeConverter()->convertType(op.getType());
    Type element = cast<RegisterType>(op.getType()).getElementType();
    Value rhs = binaryRhs(rewriter, loc, adaptor.getRhs(), element);
    rewriter.replaceOp(op, binaryFields<LLVMOp>(rewriter, loc, structType,
                                                adaptor.getLhs(), rhs));
    return success();
  }
};

/// tile.fma: a·b + c rounded once, field by field (`llvm.intr.fma`; bf16 and
/// f16 fields in pairs, fma.rn.bf16x2 on NVIDIA).
struct FmaLowering : OpConversionPattern<FmaOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FmaOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(op,
                       elementwise(rewriter, loc, structType,
                                   adaptor.getOperands(), [&](ValueRange v) {
                                     return LLVM::FMAOp::create(
                                                rewriter, loc, v[0], v[1], v[2])
                                         .getResult();
                                   }));
    return success();
  }
};

/// tile.mul ... skip_ones: the product field by field inside an scf.if that
/// only threads with an rhs element other than 1.0 enter. A broadcast rhs
/// is tested on its vector's few registers, anything else field by field.
struct MulSkipOnesLowering : OpConversionPattern<MulOp> {
  MulSkipOnesLowering(const TypeConverter &converter, MLIRContext *ctx)
      : OpConversionPattern(converter, ctx, /*benefit=*/2) {}
  LogicalResult
  matchAndRewrite(MulOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getSkipOnes())
      return failure();
    Location loc = op.getLoc();
    Type structType = getTypeConverter()->convertType(op.getType());
    Type element = cast<RegisterType>(op.getType()).getElementType();
    Value rhs = binaryRhs(rewriter, loc, adaptor.getRhs(), element);
    SmallVector<Value> factors;
    if (!isa<LLVM::LLVMStructType>(rhs.getType())) {
      factors.push_back(rhs);
    } else {
      Value source = rhs;
      if (auto broadcast = op.getRhs().getDefiningOp<BroadcastOp>())
        source = rewriter.getRemappedValue(broadcast.getX());
      auto fields = cast<LLVM::LLVMStructType>(source.getType());
      for (int64_t i = 0, e = fields.getBody().size(); i < e; ++i)
        factors.push_back(extract(rewriter, loc, source, i));
    }
    Value one = LLVM::ConstantOp::create(rewriter, loc, element,
                                         rewriter.getFloatAttr(element, 1.0));
    Value differs;
    for (Value factor : factors) {
      Value ne = LLVM::FCmpOp::create(rewriter, loc, LLVM::FCmpPredicate::une,
                                      factor, one);
      differs = differs ? LLVM::OrOp::create(rewriter, loc, differs, ne) : ne;
    }
    Value lhs = adaptor.getLhs();
    auto branch = scf::IfOp::create(
        rewriter, loc, differs,
        [&](OpBuilder &b, Location l) {
          scf::YieldOp::create(
              b, l, binaryFields<LLVM::FMulOp>(b, l, structType, lhs, rhs));
        },
        [&](OpBuilder &b, Location l) { scf::YieldOp::create(b, l, lhs); });
    rewriter.replaceOp(op, branch.getResults());
    return success();
  }
};

template <typename TileOp, typename LLVMOp>
struct UnaryLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern<TileOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, typename TileOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = this->getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(
        op, buildStruct(rewriter, loc, structType, [&](int64_t i) {
          return LLVMOp::create(rewriter, loc,
                                extract(rewriter, loc, adaptor.getX(), i))
              .getResult();
        }));
    return success();
  }
};

/// 2^x, e^x = 2^(x log2 e) and ln x = log2(x) ln 2 on the special-function
/// unit: `ex2.approx.ftz.f32` and `lg2.approx.f32`. The flush-to-zero form
/// is one MUFU.EX2; the plain one adds range fix-ups for subnormal results
/// around it (measured: a third of attention's softmax instructions).
enum class Transcendental { exp2, exp, log };

/// `Kind` of an f32 `x` on the special-function unit.
Value transcendental(OpBuilder &b, Location loc, Transcendental kind, Value x) {
  Type f32 = b.getF32Type();
  auto constant = [&](double value) {
    return LLVM::ConstantOp::create(b, loc, f32, b.getF32FloatAttr(value));
  };
  switch (kind) {
  case Transcendental::exp2:
    return fastExp2(b, loc, x);
  case Transcendental::exp:
    return fastExp2(
        b, loc, LLVM::FMulOp::create(b, loc, x, constant(1.4426950408889634)));
  case Transcendental::log: {
    Value log2 = fastLog2(b, loc, x);
    return LLVM::FMulOp::create(b, loc, log2, constant(0.6931471805599453));
  }
  }
  llvm_unreachable("unknown transcendental");
}

template <typename TileOp, Transcendental Kind>
struct ExpLogLowering : OpConversionPattern<TileOp> {
  using OpConversionPattern<TileOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TileOp op, typename TileOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type structType = this->getTypeConverter()->convertType(op.getType());
    Type element = cast<RegisterType>(op.getType()).getElementType();
    rewriter.replaceOp(
        op, buildStruct(rewriter, loc, structType, [&](int64_t i) {
          Value x = convertFloat(rewriter, loc,
                                 extract(rewriter, loc, adaptor.getX(), i),
                                 rewriter.getF32Type());
          return convertFloat(rewriter, loc,
                              transcendental(rewriter, loc, Kind, x), element);
        }));
    return success();
  }
};

/// The same for f32 scalars of the math dialect in a kernel (a chunk's
/// decay from its summed log decays), which the NVPTX and AMDGPU backends
/// would otherwise have to turn into library calls.
template <typename MathOp, Transcendental Kind>
struct ScalarExpLogLowering : OpConversionPattern<MathOp> {
  using OpConversionPattern<MathOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MathOp op, typename MathOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "f32 only");
    rewriter.replaceOp(
        op, transcendental(rewriter, op.getLoc(), Kind, adaptor.getOperand()));
    return success();
  }
};

/// Masks: every thread knows the (row, col) of each element it holds, so
/// each element is kept or replaced with one comparison and a select.
template <typename MaskOp> struct MaskLowering : OpConversionPattern<MaskOp> {
  using OpConversionPattern<MaskOp>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MaskOp op, typename MaskOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    FailureOr<FragmentMap> map = getScopeFragmentMap(op.getType());
    if (failed(map))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    Type element = op.getType().getElementType();
    APFloat fillValue =
        op.getFill() == MaskFill::neg_inf
            ? APFloat::getInf(cast<FloatType>(element).getFloatSemantics(),
                              /*Negative=*/true)
            : APFloat::getZero(cast<FloatType>(element).getFloatSemantics());
    Value fill = LLVM::ConstantOp::create(
        rewriter, loc, element, rewriter.getFloatAttr(element, fillValue));
    // Named values, not structured bindings: the lambda below captures them.
    std::pair<Value, Value> origin =
        threadOrigin(rewriter, loc, *map, adaptor.getRow(), adaptor.getCol());
    Value row = origin.first, col = origin.second;
    Type structType = this->getTypeConverter()->convertType(op.getType());
    rewriter.replaceOp(
        op, buildStruct(rewriter, loc, structType, [&](int64_t i) {
          auto [dr, dc] = map->elementAt({i, 0, 0});
          Value r = arith::AddIOp::create(rewriter, loc, row,
                                          constIndex(rewriter, loc, dr));
          Value c = arith::AddIOp::create(rewriter, loc, col,
                                          constIndex(rewriter, loc, dc));
          Value keep = keepElement(rewriter, loc, op, adaptor, r, c);
          return LLVM::SelectOp::create(
                     rewriter, loc, keep,
                     extract(rewriter, loc, adaptor.getX(), i), fill)
              .getResult();
        }));
    return success();
  }

  static Value keepElement(OpBuilder &b, Location loc, CausalMaskOp op,
                           typename CausalMaskOp::Adaptor, Value r, Value c) {
    if (op.getTransposed())
      std::swap(r, c);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, c, r);
  }
  static Value keepElement(OpBuilder &b, Location loc, BoundMaskOp,
                           typename BoundMaskOp::Adaptor adaptor, Value r,
                           Value c) {
    Value rowInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            r, adaptor.getRows());
    Value colInside = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                            c, adaptor.getCols());
    return arith::AndIOp::create(b, loc, rowInside, colInside);
  }
};

/// A conversion between layouts whose fragment maps are identical (e.g.
/// #tile.mma_acc and #tile.row for a 64-row warpgroup tile) moves nothing.
struct ConvertLayoutLowering : OpConversionPattern<ConvertLayoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ConvertLayoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!sameFragments(op))
      return rewriter.notifyMatchFailure(op, "data movement needed");
    rewriter.replaceOp(op, adaptor.getX());
    return success();
  }
};

//===----------------------------------------------------------------------===//
// wgmma
//===----------------------------------------------------------------------===//

/// The shared address of `ptr` as an i64 that loops cannot hoist: an
/// operand's descriptors are computed from it at each use. Hoisted, the
/// descriptors of loop-invariant operands (attention's K and V, one per K
/// step) hold dozens of registers for the whole loop, and the accumulators
/// spill.
Value opaqueAddress(OpBuilder &b, Location loc, Value ptr) {
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
  return LLVM::InlineAsmOp::create(
             b, loc, b.getI64Type(), ValueRange{addr}, "mov.b64 $0, $1;",
             "=l,l", /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::TailCallKind::None, /*asm_dialect=*/nullptr,
             /*operand_attrs=*/nullptr)
      .getResult(0);
}

/// A wgmma matrix descriptor's fields for `tile` (K-major: rows are M or N,
/// K runs along columns; MN-major: rows are K): the low word holds the
/// start address (bits 0-13, in 16-byte units) and the leading byte offset
/// (16-29), the high word the stride byte offset and the swizzle mode.
struct DescriptorFields {
  int64_t swizzle, eb, rows;
  bool kMajor;
  DescriptorFields(Value tileValue, bool kMajor) : kMajor(kMajor) {
    auto tile = cast<SharedTileType>(tileValue.getType());
    swizzle = tile.getSwizzle().getBytes();
    eb = elementBytes(tile.getElementType());
    rows = allocationRows(tileValue);
  }
  /// Byte offset of the 16-wide K slice at `k0` from the tile's start.
  int64_t start(int64_t k0) const {
    int64_t width = swizzle / eb;
    return kMajor ? (k0 / width) * rows * swizzle + (k0 % width) * eb
                  : k0 * swizzle;
  }
  /// The leading byte offset in the low word (unused for swizzled K-major
  /// layouts, where 16 encodes as 1).
  int64_t lowBits() const {
    return ((kMajor ? 16 : rows * swizzle) >> 4) << 16;
  }
  /// The stride byte offset (8 rows of the swizzle) and the swizzle mode.
  int64_t high() const {
    int64_t mode = swizzle == 128 ? 1 : swizzle == 64 ? 2 : 3;
    return (8 * swizzle >> 4) | (mode << 30);
  }
};

/// The descriptor's low word at K offset 0, from the shared address `addr`
/// (an i64): computed once per operand; each K step adds its offset to it.
Value descriptorLow(OpBuilder &b, Location loc, Value addr,
                    const DescriptorFields &f) {
  Value addressBits =
      arith::AndIOp::create(b, loc, addr, constI64(b, loc, 0x3FFFF));
  Value field =
      arith::ShRUIOp::create(b, loc, addressBits, constI64(b, loc, 4));
  Value low = arith::TruncIOp::create(b, loc, b.getI32Type(), field);
  return arith::OrIOp::create(b, loc, low, constI32(b, loc, f.lowBits()));
}

/// The 64-bit descriptor at K offset `k0`: the low word plus the slice's
/// offset in 16-byte units (one 32-bit add: the tile lies below 256 KB of
/// shared memory, so the 14-bit address field cannot carry into the leading
/// byte offset), the constant high word above it. Computing each K step's
/// descriptor from the address instead (mask, shift, or, 64-bit) cost
/// about 14 SASS instructions per wgmma.
Value matrixDescriptor(OpBuilder &b, Location loc, Value low,
                       const DescriptorFields &f, int64_t k0) {
  int64_t offset = f.start(k0) >> 4;
  if (offset)
    low = arith::AddIOp::create(b, loc, low, constI32(b, loc, offset));
  Value wide = arith::ExtUIOp::create(b, loc, b.getI64Type(), low);
  return arith::OrIOp::create(b, loc, wide, constI64(b, loc, f.high() << 32));
}

NVVM::WGMMATypes wgmmaType(Type type) {
  if (type.isBF16())
    return NVVM::WGMMATypes::bf16;
  if (type.isF16())
    return NVVM::WGMMATypes::f16;
  if (type.isF32())
    return NVVM::WGMMATypes::f32;
  if (isa<Float8E4M3FNType>(type))
    return NVVM::WGMMATypes::e4m3;
  return NVVM::WGMMATypes::e5m2;
}

/// wgmma with A from registers (four b32 of packed pairs, the #tile.row
/// fragment of 16 columns) and B from a descriptor. MLIR 22's NVVM op takes
/// A only from shared memory, so this one is inline PTX; the accumulator
/// registers are tied in and out.
Value wgmmaRegisterA(OpBuilder &b, Location loc, Value acc, ValueRange aWords,
                     Value descB, bool accumulate, int64_t n, Type elem,
                     bool transB) {
  auto structType = cast<LLVM::LLVMStructType>(acc.getType());
  int64_t outs = structType.getBody().size();
  std::string d;
  for (int64_t i = 0; i < outs; ++i)
    d += (i ? ", $" : "$") + std::to_string(i);
  int64_t aBase = 2 * outs;
  std::string type = elem.isBF16() ? "bf16" : "f16";
  std::string ptx =
      "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(aBase + 5) +
      ", 0;\n" + "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) +
      "k16.f32." + type + "." + type + " {" + d + "}, {$" +
      std::to_string(aBase) + ", $" + std::to_string(aBase + 1) + ", $" +
      std::to_string(aBase + 2) + ", $" + std::to_string(aBase + 3) + "}, $" +
      std::to_string(aBase + 4) + ", p, 1, 1, " + (transB ? "1" : "0") + ";\n}";
  std::string constraints;
  for (int64_t i = 0; i < outs; ++i)
    constraints += "=f,";
  for (int64_t i = 0; i < outs; ++i)
    constraints += std::to_string(i) + ",";
  constraints += "r,r,r,r,l,r";
  SmallVector<Value> operands;
  for (int64_t i = 0; i < outs; ++i)
    operands.push_back(LLVM::ExtractValueOp::create(b, loc, acc, i));
  operands.append(aWords.begin(), aWords.end());
  operands.push_back(descB);
  operands.push_back(constI32(b, loc, accumulate ? 1 : 0));
  return LLVM::InlineAsmOp::create(
             b, loc, structType, operands, ptx, constraints,
             /*has_side_effects=*/true, /*is_align_stack=*/false,
             LLVM::tailcallkind::TailCallKind::None,
             LLVM::AsmDialectAttr::get(b.getContext(),
                                       LLVM::AsmDialect::AD_ATT),
             ArrayAttr{})
      .getResult(0);
}

/// The four b32 A words of K step `k0` of a register tile in #tile.row
/// layout: registers 8 (k0 / 16) .. + 7, packed in pairs.
SmallVector<Value, 4> registerAWords(OpBuilder &b, Location loc, Value a,
                                     Type elem, int64_t k0) {
  auto pair = VectorType::get({2}, elem);
  SmallVector<Value, 4> words;
  int64_t base = 8 * (k0 / 16);
  for (int64_t i = 0; i < 8; i += 2) {
    Value v = packFields(b, loc, a, base + i, pair);
    words.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v));
  }
  return words;
}

/// D (+)= op(A) op(B) with A and B in shared memory: one wgmma per K step of
/// 16 (32 for f8), issued between a fence and a commit. tile.mma then waits,
/// so the result is complete when used (the dialect's value semantics);
/// tile.mma_async leaves the group in flight for a later tile.mma_wait.
template <typename OpTy, bool Wait>
struct MmaLowering : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    MLIRContext *ctx = rewriter.getContext();
    auto a = dyn_cast<SharedTileType>(op.getA().getType());
    auto aReg = dyn_cast<RegTileType>(op.getA().getType());
    auto b = dyn_cast<SharedTileType>(op.getB().getType());
    RegTileType d = op.getType();
    int64_t n = d.getShape()[1];
    // The pre-step rejected other forms with a diagnostic.
    if ((!a && !aReg) || !b || d.getShape()[0] != 64 || n > 256)
      return rewriter.notifyMatchFailure(op, "unsupported mma form");
    bool aT = op.getForm() == MmaForm::AtB || op.getForm() == MmaForm::AtBt;
    bool bT = op.getForm() == MmaForm::ABt || op.getForm() == MmaForm::AtBt;
    int64_t k = aReg ? aReg.getShape()[1] : aT ? a.getRows() : a.getCols();
    Type elem = aReg ? aReg.getElementType() : a.getElementType();
    int64_t kStep = elementBytes(elem) == 1 ? 32 : 16;
    Type structType = this->getTypeConverter()->convertType(d);
    Value acc =
        op.getAcc()
            ? adaptor.getAcc()
            : LLVM::UndefOp::create(rewriter, loc, structType).getResult();
    auto layout = [&](bool row) {
      return NVVM::MMALayoutAttr::get(ctx, row ? NVVM::MMALayout::row
                                               : NVVM::MMALayout::col);
    };
    // A register operand is packed for every K step before the fence: a
    // register written between two wgmmas makes ptxas insert a
    // warpgroup.arrive there (C7519), which serializes them.
    SmallVector<SmallVector<Value, 4>> aWords;
    if (aReg)
      for (int64_t k0 = 0; k0 < k; k0 += kStep)
        aWords.push_back(
            registerAWords(rewriter, loc, adaptor.getA(), elem, k0));
    DescriptorFields fieldsB(op.getB(), /*kMajor=*/bT);
    Value lowB = descriptorLow(
        rewriter, loc, opaqueAddress(rewriter, loc, adaptor.getB()), fieldsB);
    std::optional<DescriptorFields> fieldsA;
    Value lowA;
    if (!aReg) {
      fieldsA.emplace(op.getA(), /*kMajor=*/!aT);
      lowA =
          descriptorLow(rewriter, loc,
                        opaqueAddress(rewriter, loc, adaptor.getA()), *fieldsA);
    }
    NVVM::WgmmaFenceAlignedOp::create(rewriter, loc);
    for (int64_t k0 = 0; k0 < k; k0 += kStep) {
      Value descB = matrixDescriptor(rewriter, loc, lowB, fieldsB, k0);
      bool accumulate = op.getAcc() || k0 > 0;
      if (aReg) {
        acc = wgmmaRegisterA(rewriter, loc, acc, aWords[k0 / kStep], descB,
                             accumulate, n, elem, /*transB=*/!bT);
        continue;
      }
      Value descA = matrixDescriptor(rewriter, loc, lowA, *fieldsA, k0);
      acc = NVVM::WgmmaMmaAsyncOp::create(
          rewriter, loc, structType, acc, descA, descB,
          NVVM::MMAShapeAttr::get(ctx, 64, n, kStep),
          NVVM::WGMMATypesAttr::get(ctx, wgmmaType(elem)),
          NVVM::WGMMATypesAttr::get(ctx, wgmmaType(b.getElementType())),
          NVVM::WGMMATypesAttr::get(ctx, wgmmaType(d.getElementType())),
          NVVM::WGMMAScaleOutAttr::get(ctx, accumulate
                                                ? NVVM::WGMMAScaleOut::one
                                                : NVVM::WGMMAScaleOut::zero),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          NVVM::WGMMAScaleInAttr::get(ctx, NVVM::WGMMAScaleIn::one),
          // A K-major is "row", B K-major is "col".
          layout(!aT), layout(!bT), NVVM::MMAIntOverflowAttr{});
    }
    NVVM::WgmmaGroupSyncAlignedOp::create(rewriter, loc);
    if (Wait)
      NVVM::WgmmaWaitGroupSyncOp::create(rewriter, loc, 0);
    rewriter.replaceOp(op, acc);
    return success();
  }
};

/// `tile.mma_wait N`: wgmma.wait_group N. ptxas's scheduler moves a
/// wait_group to the top of its basic block, so work written between an
/// mma_async and the wait (the softmax under P V, dQ's store under dK) runs
/// after the wait, with the MMAs done. `anchored` puts the wait in a basic
/// block of its own: a branch on a warp-uniform value ptxas cannot fold
/// (ctaid.x = ~0, never true) to one of two copies of the wait, so what is
/// written before the op stays before it; both paths wait, so the branch
/// does not change what runs. Off by default: on H100 the anchored forward
/// and head-dim-64 backward were 2-6% slower (docs/performance.md).
struct MmaWaitLowering : OpConversionPattern<MmaWaitOp> {
  MmaWaitLowering(const TypeConverter &converter, MLIRContext *ctx,
                  bool anchored)
      : OpConversionPattern(converter, ctx), anchored(anchored) {}
  LogicalResult
  matchAndRewrite(MmaWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!anchored) {
      rewriter.replaceOpWithNewOp<NVVM::WgmmaWaitGroupSyncOp>(op,
                                                              op.getPending());
      return success();
    }
    std::string wait = "wgmma.wait_group.sync.aligned " +
                       std::to_string(op.getPending()) + ";\n";
    inlinePtx(rewriter, op.getLoc(), {},
              "{\n.reg .pred p;\n.reg .b32 r;\nmov.u32 r, %ctaid.x;\n"
              "setp.eq.u32 p, r, -1;\n@p bra.uni TK_MMA_WAIT_B;\n" +
                  wait + "bra.uni TK_MMA_WAIT_END;\nTK_MMA_WAIT_B:\n" + wait +
                  "TK_MMA_WAIT_END:\n}",
              "");
    rewriter.eraseOp(op);
    return success();
  }

private:
  bool anchored;
};
} // namespace

bool tk::lower::sameFragments(ConvertLayoutOp op) {
  FailureOr<FragmentMap> a =
      getScopeFragmentMap(cast<RegisterType>(op.getX().getType()));
  FailureOr<FragmentMap> b =
      getScopeFragmentMap(cast<RegisterType>(op.getType()));
  return succeeded(a) && succeeded(b) && a->samePlacement(*b);
}

Value tk::lower::convertFloat(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  unsigned fromBits = from.getIntOrFloatBitWidth();
  unsigned toBits = to.getIntOrFloatBitWidth();
  if (fromBits == toBits) // bf16 <-> f16 go through f32
    return convertFloat(b, loc, convertFloat(b, loc, v, b.getF32Type()), to);
  if (fromBits > toBits)
    return LLVM::FPTruncOp::create(b, loc, to, v);
  return LLVM::FPExtOp::create(b, loc, to, v);
}

void tk::lower::populateComputePatterns(TypeConverter &converter,
                                        RewritePatternSet &patterns,
                                        bool nvidia, bool anchorMmaWaits) {
  MLIRContext *ctx = patterns.getContext();
  patterns.add<
      FillLowering, CastLowering, BinaryLowering<AddOp, LLVM::FAddOp>,
      BinaryLowering<SubOp, LLVM::FSubOp>, BinaryLowering<MulOp, LLVM::FMulOp>,
      BinaryLowering<DivOp, LLVM::FDivOp>,
      BinaryLowering<MaxOp, LLVM::MaxNumOp>,
      BinaryLowering<MinOp, LLVM::MinNumOp>, UnaryLowering<NegOp, LLVM::FNegOp>,
      UnaryLowering<AbsOp, LLVM::FAbsOp>,
      ExpLogLowering<Exp2Op, Transcendental::exp2>,
      ExpLogLowering<ExpOp, Transcendental::exp>,
      ExpLogLowering<LogOp, Transcendental::log>,
      ScalarExpLogLowering<math::ExpOp, Transcendental::exp>,
      ScalarExpLogLowering<math::Exp2Op, Transcendental::exp2>,
      ScalarExpLogLowering<math::LogOp, Transcendental::log>,
      MaskLowering<CausalMaskOp>, MaskLowering<BoundMaskOp>,
      ConvertLayoutLowering, MulSkipOnesLowering, FmaLowering>(converter, ctx);
  if (nvidia) {
    patterns.add<MmaLowering<MmaOp, true>, MmaLowering<MmaAsyncOp, false>>(
        converter, ctx);
    patterns.add<MmaWaitLowering>(converter, ctx, anchorMmaWaits);
  }
}
