//===- Memory.cpp - Shared buffers, TMA copies, register stores -----------===//
#include "Common.h"

#include <array>
#include <map>

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

/// The start of dynamic shared memory, rounded up to 1024 bytes (the
/// manifest asks for that much more), plus `offset`.
Value tk::lower::sharedAt(OpBuilder &b, Location loc, int64_t offset) {
  MLIRContext *ctx = b.getContext();
  auto ptr = LLVM::LLVMPointerType::get(ctx, 3);
  Value base = LLVM::AddressOfOp::create(b, loc, ptr, kSmemSymbol);
  // AMD's dynamic LDS symbol is placed aligned; no rounding needed.
  if (targetsAMD(b))
    return offsetPtr(b, loc, base, constI64(b, loc, offset));
  Value addr = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), base);
  Value padded = arith::AddIOp::create(b, loc, addr, constI64(b, loc, 1023));
  Value rounded =
      arith::AndIOp::create(b, loc, padded, constI64(b, loc, ~int64_t(1023)));
  Value delta = arith::SubIOp::create(b, loc, rounded, addr);
  return offsetPtr(
      b, loc, base,
      arith::AddIOp::create(b, loc, delta, constI64(b, loc, offset)));
}

/// The dimensions of the view `op` writes, from its kernel parameters.
SmallVector<Value> tk::lower::viewDims(OpBuilder &b, Location loc,
                                       Operation *op, size_t rank) {
  SmallVector<Value> dims;
  for (size_t d = 0; d < rank; ++d)
    dims.push_back(toIndex(b, loc, viewDimParam(op, d)));
  return dims;
}

/// Row-major element offset of the first `count` coordinates, scaled by the
/// extent of the next dimension: where (coords[0..count), 0, ...) starts,
/// in units of dimension `count`.
Value tk::lower::leadingOffset(OpBuilder &b, Location loc, ValueRange coords,
                               ArrayRef<Value> dims, size_t count) {
  Value base = constIndex(b, loc, 0);
  for (size_t d = 0; d < count; ++d)
    base = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, base, dims[d]), coords[d]);
  return arith::MulIOp::create(b, loc, base, dims[count]);
}

/// Element offset of (r, c) in fragment order with `cols` columns (see
/// GlobalType): 64-row slabs, each in the wgmma accumulator's order.
static int64_t fragmentOffset(int64_t r, int64_t c, int64_t cols) {
  int64_t rr = r % 64;
  return r / 64 * 64 * cols + 512 * (c / 8) +
         4 * (32 * (rr / 16) + 4 * (rr % 8) + c % 8 / 2) + 2 * (rr / 8 % 2) +
         c % 2;
}

/// The runtime form of fragmentOffset.
static Value fragmentOffset(OpBuilder &b, Location loc, Value r, Value c,
                            Value cols) {
  auto k = [&](int64_t v) { return constIndex(b, loc, v); };
  auto div = [&](Value x, int64_t d) {
    return arith::DivUIOp::create(b, loc, x, k(d)).getResult();
  };
  auto rem = [&](Value x, int64_t d) {
    return arith::RemUIOp::create(b, loc, x, k(d)).getResult();
  };
  auto mul = [&](Value x, int64_t f) {
    return arith::MulIOp::create(b, loc, x, k(f)).getResult();
  };
  auto add = [&](Value x, Value y) {
    return arith::AddIOp::create(b, loc, x, y).getResult();
  };
  Value rr = rem(r, 64);
  Value warpLanes = mul(div(rr, 16), 32);
  Value rowLanes = add(warpLanes, mul(rem(rr, 8), 4));
  Value thread = add(rowLanes, div(rem(c, 8), 2));
  Value slab = arith::MulIOp::create(b, loc, mul(div(r, 64), 64), cols);
  Value base = add(slab, mul(div(c, 8), 512));
  base = add(base, mul(thread, 4));
  Value rowHalf = mul(rem(div(rr, 8), 2), 2);
  return add(base, add(rowHalf, rem(c, 2)));
}

/// The columns of a view in fragment order, which scale its slabs: the
/// static count, or `runtime` (the launch's) when it is dynamic.
static Value fragmentColumns(OpBuilder &b, Location loc, GlobalType view,
                             Value runtime) {
  int64_t cols = view.getShape().back();
  return ShapedType::isDynamic(cols) ? runtime : constIndex(b, loc, cols);
}

/// Byte offset of element (row, col) of `tile` under its swizzle: the
/// runtime form of SwizzleAttr::getByteOffset.
Value tk::lower::swizzledOffset(OpBuilder &b, Location loc, SharedTileType tile,
                                int64_t blockRows, Value row, Value col) {
  int64_t eb = elementBytes(tile.getElementType());
  int64_t swizzle = tile.getSwizzle().getBytes();
  if (!swizzle) {
    Value element = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, row, constIndex(b, loc, tile.getCols())),
        col);
    return arith::MulIOp::create(b, loc, element, constIndex(b, loc, eb));
  }
  int64_t width = swizzle / eb;
  Value block = arith::DivUIOp::create(b, loc, col, constIndex(b, loc, width));
  Value inner = arith::RemUIOp::create(b, loc, col, constIndex(b, loc, width));
  Value blockStart = arith::MulIOp::create(
      b, loc, block, constIndex(b, loc, blockRows * swizzle));
  Value rowStart = arith::AddIOp::create(
      b, loc, blockStart,
      arith::MulIOp::create(b, loc, row, constIndex(b, loc, swizzle)));
  Value offset = arith::AddIOp::create(
      b, loc, rowStart,
      arith::MulIOp::create(b, loc, inner, constIndex(b, loc, eb)));
  Value lines = arith::ShRUIOp::create(b, loc, offset, constIndex(b, loc, 7));
  Value line = arith::AndIOp::create(b, loc, lines,
                                     constIndex(b, loc, swizzle / 16 - 1));
  Value swizzled = arith::XOrIOp::create(
      b, loc, offset,
      arith::ShLIOp::create(b, loc, line, constIndex(b, loc, 4)));
  if (swizzle != 128 || !targetsAMD(b))
    return swizzled;
  // AMD: LDS serves 8-byte reads 16 lanes at a time, and an MFMA fragment
  // read is 16 consecutive rows at one column; the 16-byte XOR alone puts
  // rows r and r + 8 on the same banks. Flipping the 8-byte half of lines
  // 8 .. 15 of every 16 makes those reads conflict-free (16-byte accesses
  // swap halves: readChunk / writeChunk).
  Value lineGroup =
      arith::ShRUIOp::create(b, loc, offset, constIndex(b, loc, 10));
  Value flip = arith::AndIOp::create(b, loc, lineGroup, constIndex(b, loc, 1));
  return arith::XOrIOp::create(
      b, loc, swizzled,
      arith::ShLIOp::create(b, loc, flip, constIndex(b, loc, 3)));
}

// (Declared in Common.h.)
bool tk::lower::fitsStmatrix(const FragmentMap &map, Type element) {
  ArrayRef<FragmentMode> regs = map.modes(FragmentMap::Index::reg);
  ArrayRef<FragmentMode> lanes = map.modes(FragmentMap::Index::lane);
  auto is = [](const FragmentMode &m, int64_t size, int64_t r, int64_t c) {
    return m.size == size && m.rowStride == r && m.colStride == c;
  };
  return elementBytes(element) == 2 && regs.size() >= 3 &&
         is(regs[0], 2, 0, 1) && is(regs[1], 2, 8, 0) &&
         regs[2].rowStride == 0 && regs[2].colStride == 8 &&
         regs[2].size % 2 == 0 && lanes.size() == 2 && is(lanes[0], 4, 0, 2) &&
         is(lanes[1], 8, 1, 0);
}

namespace {
/// Where a register tile's elements go in fragment order: each register's
/// offset from register 0's, the same in every thread, and whether every
/// thread's register 0 is 16-byte aligned.
struct FragmentDeltas {
  SmallVector<int64_t> delta;
  bool aligned = true;
};
} // namespace

/// The offsets of `map` in fragment order with `cols` columns, or failure
/// when a register's offset from the thread's origin differs between
/// threads (twelve warps of #tile.chunks: a thread's rows run 48 apart,
/// across the 64-row slabs).
static FailureOr<FragmentDeltas> fragmentDeltas(const FragmentMap &map,
                                                int64_t cols) {
  FragmentDeltas result;
  result.delta.resize(map.numRegs());
  for (int64_t warp = 0; warp < map.numWarps(); ++warp)
    for (int64_t lane = 0; lane < map.numLanes(); ++lane) {
      auto [r0, c0] = map.elementAt({0, lane, warp});
      int64_t origin = fragmentOffset(r0, c0, cols);
      result.aligned &= origin % 4 == 0;
      for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
        auto [r, c] = map.elementAt({reg, lane, warp});
        int64_t d = fragmentOffset(r, c, cols) - origin;
        if (lane == 0 && warp == 0)
          result.delta[reg] = d;
        else if (result.delta[reg] != d)
          return failure();
      }
    }
  return result;
}

std::string tk::lower::fragmentStoreUnsupportedReason(RegTileType tile) {
  FailureOr<FragmentMap> map = getScopeFragmentMap(tile);
  if (failed(map) || succeeded(fragmentDeltas(*map, tile.getShape()[1])))
    return "";
  return "cannot write this register layout in fragment order: its offsets "
         "are not the thread's origin plus a constant";
}

namespace {

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
  if (auto vec = dyn_cast<SharedVecType>(ring))
    return vec.getSlotBytes();
  if (isa<SharedTileType>(ring))
    return getSharedTileBytes(ring);
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
                           int64_t blockRows, Value row, Value col) {
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
      b, loc, block, constIndex(b, loc, blockRows * swizzle));
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
        alignedElementOffset(rewriter, loc, op.getSource().getType(),
                             allocationRows(op.getSource()), row, col);
    rewriter.replaceOp(op,
                       offsetPtr(rewriter, loc, adaptor.getSource(), offset));
    return success();
  }
};

/// TMA coordinates (innermost first, in elements) of the box at
/// `coords`, which count boxes of `extent` elements along each dimension,
/// shifted by `shift` elements (both outermost first).
SmallVector<Value> tmaCoordinates(OpBuilder &b, Location loc,
                                  ArrayRef<int64_t> extent, ValueRange coords,
                                  ArrayRef<int64_t> shift) {
  SmallVector<Value> result;
  for (int64_t i = coords.size() - 1; i >= 0; --i) {
    Value c =
        arith::MulIOp::create(b, loc, coords[i], constIndex(b, loc, extent[i]));
    if (shift[i])
      c = arith::AddIOp::create(b, loc, c, constIndex(b, loc, shift[i]));
    result.push_back(toI32(b, loc, c));
  }
  return result;
}

/// The same for the box at tile coordinates `coords` moving `buffer`,
/// shifted `colShift` elements right.
SmallVector<Value> tmaCoordinates(OpBuilder &b, Location loc, Type buffer,
                                  ValueRange coords, int64_t colShift) {
  SmallVector<int64_t> extent(coords.size(), 1), shift(coords.size(), 0);
  if (auto tile = dyn_cast<SharedTileType>(buffer)) {
    extent[coords.size() - 2] = tile.getRows();
    extent[coords.size() - 1] = tile.getCols();
  } else {
    extent.back() = cast<SharedVecType>(buffer).getLength();
  }
  shift.back() = colShift;
  return tmaCoordinates(b, loc, extent, coords, shift);
}

/// tile.prefetch: one thread of each executing warpgroup asks TMA to bring
/// the box into L2 (`cp.async.bulk.prefetch.tensor`), one prefetch per
/// kMaxTmaBox-sized chunk of it. Coordinates count boxes, as a copy's count
/// tiles; TMA drops what lies past the view.
struct PrefetchLowering : OpConversionPattern<PrefetchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PrefetchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value map = tensorMap(rewriter, loc, op, Value{});
    ValueRange coords = adaptor.getCoords();
    ArrayRef<int64_t> box = op.getBox();
    SmallVector<int64_t> chunk = prefetchBox(op);
    int64_t rank = coords.size(), lead = rank - box.size();
    // Chunks along each box dimension, and their product.
    SmallVector<int64_t> counts;
    int64_t total = 1;
    for (auto [i, dim] : llvm::enumerate(box)) {
      counts.push_back(llvm::divideCeil(dim, chunk[lead + i]));
      total *= counts.back();
    }
    // Coordinates count boxes along the box's dimensions, elements along
    // the leading ones.
    SmallVector<int64_t> extent(rank, 1);
    llvm::copy(box, extent.begin() + lead);
    emitOncePerWarpgroup(rewriter, loc, [&](OpBuilder &b) {
      for (int64_t n = 0; n < total; ++n) {
        // The chunk's offset in the box.
        SmallVector<int64_t> at(rank, 0);
        for (int64_t i = box.size() - 1, rest = n; i >= 0; --i) {
          at[lead + i] = (rest % counts[i]) * chunk[lead + i];
          rest /= counts[i];
        }
        SmallVector<Value> tma = tmaCoordinates(b, loc, extent, coords, at);
        NVVM::CpAsyncBulkTensorPrefetchOp::create(
            b, loc, map, tma, /*im2colOffsets=*/ValueRange{},
            NVVM::TMALoadMode::TILE, /*l2CacheHint=*/Value{});
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// AMD: tile.prefetch is a hint CDNA has no instruction for (no prefetch
/// of a box into L2); dropped.
struct DropPrefetch : OpConversionPattern<PrefetchOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(PrefetchOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

/// One thread of the warpgroup issues a TMA copy per swizzle-width column
/// block of the destination.
struct LoadAsyncLowering : OpConversionPattern<LoadAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Type buffer = op.getDst().getType();
    Value map = tensorMap(rewriter, loc, op, adaptor.getDevice());
    int64_t blocks = 1, blockBytes = 0, width = 0;
    if (auto tile = dyn_cast<SharedTileType>(buffer)) {
      int64_t swizzle = tile.getSwizzle().getBytes();
      if (swizzle) {
        width = swizzle / elementBytes(tile.getElementType());
        blocks = std::max<int64_t>(1, tile.getCols() / width);
        blockBytes = allocationRows(op.getDst()) * swizzle;
      }
    }
    // Multicast: this block copies rows [rank R/C, (rank + 1) R/C) of each
    // column block into the same place in every block of the cluster.
    int64_t cluster = 1;
    if (auto blocks = op->getAttrOfType<IntegerAttr>(kClusterBlocks))
      cluster = blocks.getInt();
    int64_t sliceRows = 0, sliceBytes = 0;
    if (cluster > 1) {
      auto tile = cast<SharedTileType>(buffer);
      sliceRows = tile.getRows() / cluster;
      sliceBytes = sliceRows * tile.getSwizzle().getBytes();
    }
    emitOncePerWarpgroup(rewriter, loc, [&](OpBuilder &b) {
      Value rank, rowShift, byteShift, mask;
      if (cluster > 1) {
        rank = NVVM::ClusterId::create(b, loc, b.getI32Type());
        rowShift =
            arith::MulIOp::create(b, loc, rank, constI32(b, loc, sliceRows));
        byteShift = arith::ExtUIOp::create(
            b, loc, b.getI64Type(),
            arith::MulIOp::create(b, loc, rank, constI32(b, loc, sliceBytes)));
        mask = arith::ConstantOp::create(
            b, loc, b.getIntegerAttr(b.getI16Type(), (1 << cluster) - 1));
      }
      for (int64_t j = 0; j < blocks; ++j) {
        Value dst = adaptor.getDst();
        if (j)
          dst = offsetPtr(b, loc, dst, constI64(b, loc, j * blockBytes));
        if (byteShift)
          dst = offsetPtr(b, loc, dst, byteShift);
        // The sm_90 form writes a shared::cluster address; this block's own
        // shared memory is part of its cluster window.
        dst = LLVM::AddrSpaceCastOp::create(
            b, loc, LLVM::LLVMPointerType::get(b.getContext(), 7), dst);
        SmallVector<Value> coords =
            tmaCoordinates(b, loc, buffer, adaptor.getCoords(), j * width);
        if (rowShift)
          coords[1] = arith::AddIOp::create(b, loc, coords[1], rowShift);
        NVVM::CpAsyncBulkTensorGlobalToSharedClusterOp::create(
            b, loc, dst, map, coords, adaptor.getSem(),
            /*im2colOffsets=*/ValueRange{}, /*multicastMask=*/mask,
            /*l2CacheHint=*/Value{}, NVVM::TMALoadMode::TILE,
            /*isCTAOnly=*/false, /*group=*/NVVM::CTAGroupKindAttr{},
            /*predicate=*/Value{});
      }
    });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Where a register vector sits in a global view it is loaded from or
/// stored to (along the view's last dimension).
struct VectorPlacement {
  FragmentMap map;
  SmallVector<Value> dims; // the view's dimensions
  Value pos;               // vector index of this thread's register 0
  Value base;              // element offset of the vector's row of the view
};

FailureOr<VectorPlacement> placeVector(OpBuilder &b, Location loc,
                                       Operation *op, RegVecType vec,
                                       GlobalType view, ValueRange coords) {
  FailureOr<FragmentMap> fragments = getScopeFragmentMap(vec);
  if (failed(fragments))
    return failure();
  VectorPlacement place{*fragments, {}, {}, {}};
  size_t rank = view.getShape().size();
  place.dims = viewDims(b, loc, op, rank);
  Value start = arith::MulIOp::create(b, loc, coords[rank - 1],
                                      constIndex(b, loc, vec.getShape()[0]));
  place.pos =
      threadOrigin(b, loc, place.map, start, constIndex(b, loc, 0)).first;
  place.base = leadingOffset(b, loc, coords, place.dims, rank - 1);
  return place;
}

/// Global view → register vector (along the last dimension): every thread
/// loads the elements its registers hold; past the view's end they read 0.
struct LoadGlobalVectorLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto view = dyn_cast<GlobalType>(op.getSrc().getType());
    auto vec = dyn_cast<RegVecType>(op.getType());
    if (!view || !vec)
      return rewriter.notifyMatchFailure(op, "only global to register vector");
    Location loc = op.getLoc();
    FailureOr<VectorPlacement> place =
        placeVector(rewriter, loc, op, vec, view, adaptor.getCoords());
    if (failed(place))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    const FragmentMap &map = place->map;
    size_t rank = view.getShape().size();
    ArrayRef<Value> dims = place->dims;
    Value pos = place->pos, base = place->base;
    Type element = vec.getElementType();
    Type structType = getTypeConverter()->convertType(vec);
    Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                           rewriter.getZeroAttr(element));
    Value end = dims[rank - 1];
    int64_t last = 0;
    for (int64_t reg = 0; reg < map.numRegs(); ++reg)
      last = std::max(last, map.elementAt({reg, 0, 0}).first);
    // The thread's elements, each loaded when `guarded` finds it inside.
    auto loadAll = [&](OpBuilder &b, bool guarded) -> Value {
      Value result = LLVM::UndefOp::create(b, loc, structType);
      for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
        Value p = arith::AddIOp::create(
            b, loc, pos, constIndex(b, loc, map.elementAt({reg, 0, 0}).first));
        auto load = [&](OpBuilder &b) -> Value {
          Value index = arith::AddIOp::create(b, loc, base, p);
          Value address = LLVM::GEPOp::create(
              b, loc, adaptor.getSrc().getType(), element, adaptor.getSrc(),
              ValueRange{toI64(b, loc, index)});
          return LLVM::LoadOp::create(b, loc, element, address);
        };
        Value value;
        if (guarded) {
          Value inside =
              arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, p, end);
          auto guard = scf::IfOp::create(
              b, loc, inside,
              [&](OpBuilder &b, Location) {
                scf::YieldOp::create(b, loc, load(b));
              },
              [&](OpBuilder &b, Location) {
                scf::YieldOp::create(b, loc, zero);
              });
          value = guard.getResult(0);
        } else {
          value = load(b);
        }
        result = LLVM::InsertValueOp::create(b, loc, result, value, reg);
      }
      return result;
    };
    // All of the thread's elements inside the view (every tile but the
    // last): straight-line loads, which issue back to back.
    Value allInside = arith::CmpIOp::create(
        rewriter, loc, arith::CmpIPredicate::ult,
        arith::AddIOp::create(rewriter, loc, pos,
                              constIndex(rewriter, loc, last)),
        end);
    auto paths = scf::IfOp::create(
        rewriter, loc, allInside,
        [&](OpBuilder &b, Location) {
          scf::YieldOp::create(b, loc, loadAll(b, /*guarded=*/false));
        },
        [&](OpBuilder &b, Location) {
          scf::YieldOp::create(b, loc, loadAll(b, /*guarded=*/true));
        });
    rewriter.replaceOp(op, paths.getResult(0));
    return success();
  }
};

/// Shared vector → register vector: every thread reads the elements its
/// registers hold (a shared vector is unswizzled and contiguous).
struct LoadSharedVectorLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto shared = dyn_cast<SharedVecType>(op.getSrc().getType());
    auto vec = dyn_cast<RegVecType>(op.getType());
    if (!shared || !vec)
      return rewriter.notifyMatchFailure(op, "only shared to register vector");
    FailureOr<FragmentMap> fragments = getScopeFragmentMap(vec);
    if (failed(fragments))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    Location loc = op.getLoc();
    const FragmentMap &map = *fragments;
    Type element = vec.getElementType();
    int64_t eb = elementBytes(element);
    Value zero = constIndex(rewriter, loc, 0);
    Value origin = threadOrigin(rewriter, loc, map, zero, zero).first;
    Value base = arith::MulIOp::create(rewriter, loc, origin,
                                       constIndex(rewriter, loc, eb));
    Value result = LLVM::UndefOp::create(rewriter, loc,
                                         getTypeConverter()->convertType(vec));
    for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
      Value offset = arith::AddIOp::create(
          rewriter, loc, base,
          constIndex(rewriter, loc, map.elementAt({reg, 0, 0}).first * eb));
      Value v = LLVM::LoadOp::create(
          rewriter, loc, element,
          offsetPtr(rewriter, loc, adaptor.getSrc(), offset), eb);
      result = LLVM::InsertValueOp::create(rewriter, loc, result, v, reg);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// Register vector → global view (along the last dimension): each element
/// is stored once, by the thread whose replicated lane and warp digits are
/// all zero, skipping elements past the view's end.
struct StoreGlobalVectorLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto view = dyn_cast<GlobalType>(op.getDst().getType());
    auto vec = dyn_cast<RegVecType>(op.getValue().getType());
    if (!view || !vec)
      return rewriter.notifyMatchFailure(op, "only register vector to global");
    Location loc = op.getLoc();
    FailureOr<VectorPlacement> place =
        placeVector(rewriter, loc, op, vec, view, adaptor.getCoords());
    if (failed(place))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    const FragmentMap &map = place->map;
    size_t rank = view.getShape().size();
    ArrayRef<Value> dims = place->dims;
    Value pos = place->pos;
    // The owner of each element: every replicated digit is zero.
    Value tid = threadIndex(rewriter, loc);
    Value lane = arith::RemUIOp::create(rewriter, loc, tid,
                                        constIndex(rewriter, loc, 32));
    Value warpInBlock = arith::DivUIOp::create(rewriter, loc, tid,
                                               constIndex(rewriter, loc, 32));
    Value warp = arith::RemUIOp::create(
        rewriter, loc, warpInBlock, constIndex(rewriter, loc, map.numWarps()));
    Value owner = arith::ConstantIntOp::create(rewriter, loc, 1, 1);
    auto requireZero = [&](FragmentMap::Index index, Value id) {
      int64_t stride = 1;
      for (const FragmentMode &mode : map.modes(index)) {
        if (mode.rowStride == 0) {
          Value shifted = arith::DivUIOp::create(
              rewriter, loc, id, constIndex(rewriter, loc, stride));
          Value digit = arith::RemUIOp::create(
              rewriter, loc, shifted, constIndex(rewriter, loc, mode.size));
          owner = arith::AndIOp::create(
              rewriter, loc, owner,
              arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::eq,
                                    digit, constIndex(rewriter, loc, 0)));
        }
        stride *= mode.size;
      }
    };
    requireZero(FragmentMap::Index::lane, lane);
    requireZero(FragmentMap::Index::warp, warp);
    Value base = place->base;
    Type element = vec.getElementType();
    for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
      Value p = arith::AddIOp::create(
          rewriter, loc, pos,
          constIndex(rewriter, loc, map.elementAt({reg, 0, 0}).first));
      Value store = arith::AndIOp::create(
          rewriter, loc, owner,
          arith::CmpIOp::create(rewriter, loc, arith::CmpIPredicate::ult, p,
                                dims[rank - 1]));
      Value value =
          LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(), reg);
      auto guard = scf::IfOp::create(rewriter, loc, store, false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
      Value index = arith::AddIOp::create(rewriter, loc, base, p);
      Value address = LLVM::GEPOp::create(
          rewriter, loc, adaptor.getDst().getType(), element, adaptor.getDst(),
          ValueRange{toI64(rewriter, loc, index)});
      LLVM::StoreOp::create(rewriter, loc, value, address);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Where the elements a thread holds of a register tile sit in a global view
/// at tile coordinates `coords`: the thread's origin (row, col), the
/// row-major offset of the leading coordinates and the view's rows and
/// columns.
struct GlobalTilePlace {
  Value row, col, base, rows, cols;

  GlobalTilePlace(OpBuilder &b, Location loc, Operation *op,
                  const FragmentMap &map, RegTileType tile, GlobalType view,
                  ValueRange coords) {
    size_t rank = view.getShape().size();
    SmallVector<Value> dims = viewDims(b, loc, op, rank);
    Value row0 = arith::MulIOp::create(b, loc, coords[rank - 2],
                                       constIndex(b, loc, tile.getShape()[0]));
    Value col0 = arith::MulIOp::create(b, loc, coords[rank - 1],
                                       constIndex(b, loc, tile.getShape()[1]));
    std::tie(row, col) = threadOrigin(b, loc, map, row0, col0);
    base = leadingOffset(b, loc, coords, dims, rank - 2);
    rows = dims[rank - 2];
    cols = dims[rank - 1];
  }

  /// Row and column of register `reg`'s element, and whether it is inside.
  std::tuple<Value, Value, Value> element(OpBuilder &b, Location loc,
                                          const FragmentMap &map,
                                          int64_t reg) const {
    auto [dr, dc] = map.elementAt({reg, 0, 0});
    Value r = arith::AddIOp::create(b, loc, row, constIndex(b, loc, dr));
    Value c = arith::AddIOp::create(b, loc, col, constIndex(b, loc, dc));
    Value rowInside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, r, rows);
    Value colInside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, c, cols);
    Value inside = arith::AndIOp::create(b, loc, rowInside, colInside);
    return {r, c, inside};
  }

  /// The address of element (r, c) in the view's memory `ptr`.
  Value address(OpBuilder &b, Location loc, Value ptr, Type element, Value r,
                Value c) const {
    Value index = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, arith::AddIOp::create(b, loc, base, r),
                              cols),
        c);
    return LLVM::GEPOp::create(b, loc, ptr.getType(), element, ptr,
                               ValueRange{toI64(b, loc, index)});
  }

  /// The same in `view`, a view in fragment order.
  Value fragmentAddress(OpBuilder &b, Location loc, Value ptr, Type element,
                        Value r, Value c, GlobalType view) const {
    Value leading = arith::MulIOp::create(b, loc, base, cols);
    Value index = arith::AddIOp::create(
        b, loc, leading,
        fragmentOffset(b, loc, r, c, fragmentColumns(b, loc, view, cols)));
    return LLVM::GEPOp::create(b, loc, ptr.getType(), element, ptr,
                               ValueRange{toI64(b, loc, index)});
  }
};

/// NVIDIA: a relaxed add of `value` (f32, f16 or bf16) at `address` at
/// system scope, for adds into a multi-device view that several devices
/// make: LLVM's NVPTX backend emits `atomicrmw` without a scope (GPU scope,
/// whatever its syncscope), which PTX's memory model does not make atomic
/// against other devices' adds.
void systemReduceAdd(OpBuilder &b, Location loc, Value address, Value value) {
  Type type = value.getType();
  if (type.isF32()) {
    inlinePtx(b, loc, {address, value},
              "red.relaxed.sys.global.add.f32 [$0], $1;", "l,f");
    return;
  }
  Value bits = LLVM::BitcastOp::create(b, loc, b.getI16Type(), value);
  inlinePtx(b, loc, {address, bits},
            type.isBF16() ? "red.relaxed.sys.global.add.noftz.bf16 [$0], $1;"
                          : "red.relaxed.sys.global.add.noftz.f16 [$0], $1;",
            "l,h");
}

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
    FailureOr<FragmentMap> fragments = getScopeFragmentMap(tile);
    if (failed(fragments))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    const FragmentMap &map = *fragments;
    GlobalTilePlace place(rewriter, loc, op, map, tile, view,
                          adaptor.getCoords());
    Type element = tile.getElementType();
    Value ptr =
        viewCopy(rewriter, loc, op, adaptor.getDst(), adaptor.getDevice());
    bool reduce = op.getReduce().has_value();
    bool fragmentOrder = view.getFragments();
    if (!reduce && !fragmentOrder &&
        storeGlobalWide(rewriter, loc, map, element, adaptor.getValue(), ptr,
                        place.base, place.row, place.col, place.rows,
                        place.cols)) {
      rewriter.eraseOp(op);
      return success();
    }
    for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
      auto [r, c, inside] = place.element(rewriter, loc, map, reg);
      Value value =
          LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(), reg);
      auto guard = scf::IfOp::create(rewriter, loc, inside, false);
      OpBuilder::InsertionGuard g(rewriter);
      rewriter.setInsertionPoint(guard.thenBlock()->getTerminator());
      Value address =
          fragmentOrder
              ? place.fragmentAddress(rewriter, loc, ptr, element, r, c, view)
              : place.address(rewriter, loc, ptr, element, r, c);
      if (reduce && view.getDevices() > 0 && !targetsAMD(rewriter))
        systemReduceAdd(rewriter, loc, address, value);
      else if (reduce)
        LLVM::AtomicRMWOp::create(rewriter, loc, LLVM::AtomicBinOp::fadd,
                                  address, value,
                                  LLVM::AtomicOrdering::monotonic);
      else
        LLVM::StoreOp::create(rewriter, loc, value, address);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// For each register of `map`, how many registers from it (4, 2 or 1) are
/// adjacent in fragment order in every thread, starting at an offset that
/// many elements align (0 for registers inside an earlier run). The tile's
/// origin sits on a 64-row slab and an 8-column group, so these local
/// offsets are the view's up to a multiple of 4.
static SmallVector<int64_t> fragmentRuns(const FragmentMap &map, int64_t cols) {
  int64_t regs = map.numRegs();
  auto offset = [&](int64_t reg, int64_t lane, int64_t warp) {
    auto [r, c] = map.elementAt({reg, lane, warp});
    return fragmentOffset(r, c, cols);
  };
  auto isRun = [&](int64_t reg, int64_t n) {
    if (reg % n || reg + n > regs)
      return false;
    for (int64_t warp = 0; warp < map.numWarps(); ++warp)
      for (int64_t lane = 0; lane < map.numLanes(); ++lane) {
        int64_t first = offset(reg, lane, warp);
        if (first % n)
          return false;
        for (int64_t i = 1; i < n; ++i)
          if (offset(reg + i, lane, warp) != first + i)
            return false;
      }
    return true;
  };
  SmallVector<int64_t> runs(regs, 0);
  for (int64_t reg = 0; reg < regs;) {
    int64_t n = isRun(reg, 4) ? 4 : isRun(reg, 2) ? 2 : 1;
    runs[reg] = n;
    reg += n;
  }
  return runs;
}

/// Global view in fragment order → register tile: each run of registers
/// adjacent in memory (`fragmentRuns`; the accumulator layout's four
/// elements of an 8-column group) is one vector load, zero where any of its
/// elements is past the view's edges.
static Value loadGlobalFragments(OpBuilder &b, Location loc,
                                 const FragmentMap &map, RegTileType tile,
                                 GlobalType view, const GlobalTilePlace &place,
                                 Value ptr, Type resultType) {
  Type element = tile.getElementType();
  int64_t eb = elementBytes(element);
  Value result = LLVM::UndefOp::create(b, loc, resultType);
  SmallVector<int64_t> runs = fragmentRuns(map, tile.getShape()[1]);
  for (int64_t reg = 0; reg < map.numRegs(); reg += runs[reg]) {
    int64_t n = runs[reg];
    auto [r, c, inside] = place.element(b, loc, map, reg);
    for (int64_t i = 1; i < n; ++i)
      inside = arith::AndIOp::create(
          b, loc, inside, std::get<2>(place.element(b, loc, map, reg + i)));
    Type type = n == 1 ? element : Type(VectorType::get({n}, element));
    auto guard = scf::IfOp::create(b, loc, type, inside,
                                   /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(b);
      b.setInsertionPointToStart(guard.thenBlock());
      Value address = place.fragmentAddress(b, loc, ptr, element, r, c, view);
      scf::YieldOp::create(
          b, loc,
          LLVM::LoadOp::create(b, loc, type, address, /*alignment=*/n * eb)
              .getResult());
      b.setInsertionPointToStart(guard.elseBlock());
      scf::YieldOp::create(
          b, loc,
          arith::ConstantOp::create(b, loc, type, b.getZeroAttr(type))
              .getResult());
    }
    for (int64_t i = 0; i < n; ++i) {
      Value value = guard.getResult(0);
      if (n > 1)
        value =
            LLVM::ExtractElementOp::create(b, loc, value, constI32(b, loc, i));
      result = LLVM::InsertValueOp::create(b, loc, result, value, reg + i);
    }
  }
  return result;
}

/// Global view → register tile: every thread loads the elements it holds;
/// those past the view's edges read as zero.
struct LoadGlobalLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto view = dyn_cast<GlobalType>(op.getSrc().getType());
    auto tile = dyn_cast<RegTileType>(op.getResult().getType());
    if (!view || !tile || isa_and_nonnull<ChunksLayoutAttr>(tile.getLayout()))
      return rewriter.notifyMatchFailure(
          op, "only global to register tile (AMD's chunks have their own)");
    Location loc = op.getLoc();
    FailureOr<FragmentMap> fragments = getScopeFragmentMap(tile);
    if (failed(fragments))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    const FragmentMap &map = *fragments;
    GlobalTilePlace place(rewriter, loc, op, map, tile, view,
                          adaptor.getCoords());
    if (view.getFragments()) {
      rewriter.replaceOp(
          op, loadGlobalFragments(rewriter, loc, map, tile, view, place,
                                  adaptor.getSrc(),
                                  getTypeConverter()->convertType(tile)));
      return success();
    }
    Type element = tile.getElementType();
    Type resultType = getTypeConverter()->convertType(tile);
    if (Value wide = loadGlobalWide(rewriter, loc, map, element, resultType,
                                    adaptor.getSrc(), place.base, place.row,
                                    place.col, place.rows, place.cols)) {
      rewriter.replaceOp(op, wide);
      return success();
    }
    Value result = LLVM::UndefOp::create(rewriter, loc, resultType);
    Value zero = arith::ConstantOp::create(rewriter, loc, element,
                                           rewriter.getZeroAttr(element));
    for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
      auto [r, c, inside] = place.element(rewriter, loc, map, reg);
      auto guard = scf::IfOp::create(rewriter, loc, element, inside,
                                     /*withElseRegion=*/true);
      {
        OpBuilder::InsertionGuard g(rewriter);
        rewriter.setInsertionPointToStart(guard.thenBlock());
        Value address =
            place.address(rewriter, loc, adaptor.getSrc(), element, r, c);
        scf::YieldOp::create(
            rewriter, loc,
            LLVM::LoadOp::create(rewriter, loc, element, address).getResult());
        rewriter.setInsertionPointToStart(guard.elseBlock());
        scf::YieldOp::create(rewriter, loc, zero);
      }
      result = LLVM::InsertValueOp::create(rewriter, loc, result,
                                           guard.getResult(0), reg);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// For the m8n8 matrix instructions (stmatrix / ldmatrix .x4): calls
/// `each(reg, address)` for every 8 registers of `map`, where `address` is
/// the shared address this lane gives -- row l%8 of 8x8 matrix l/8, the
/// matrices being (+0, +8 rows) x (+0, +8 columns) from register `reg`.
void forEachMatrixQuad(OpBuilder &b, Location loc, const FragmentMap &map,
                       SharedTileType shared, int64_t blockRows, Value base,
                       llvm::function_ref<void(int64_t, Value)> each) {
  Value tid = threadIndex(b, loc);
  Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(b, loc, 32));
  // The warp's own origin: only the warp modes.
  Value warpInBlock =
      arith::DivUIOp::create(b, loc, tid, constIndex(b, loc, 32));
  Value warp = arith::RemUIOp::create(b, loc, warpInBlock,
                                      constIndex(b, loc, map.numWarps()));
  Value row = constIndex(b, loc, 0), col = constIndex(b, loc, 0);
  addModeOffsets(b, loc, map.modes(FragmentMap::Index::warp), warp, row, col);
  Value matrix = arith::DivUIOp::create(b, loc, lane, constIndex(b, loc, 8));
  Value rowInMatrix =
      arith::RemUIOp::create(b, loc, lane, constIndex(b, loc, 8));
  Value lowerMatrix =
      arith::RemUIOp::create(b, loc, matrix, constIndex(b, loc, 2));
  Value laneRow = arith::AddIOp::create(
      b, loc, rowInMatrix,
      arith::MulIOp::create(b, loc, lowerMatrix, constIndex(b, loc, 8)));
  row = arith::AddIOp::create(b, loc, row, laneRow);
  Value rightMatrix =
      arith::DivUIOp::create(b, loc, matrix, constIndex(b, loc, 2));
  col = arith::AddIOp::create(
      b, loc, col,
      arith::MulIOp::create(b, loc, rightMatrix, constIndex(b, loc, 8)));
  for (int64_t reg = 0; reg < map.numRegs(); reg += 8) {
    auto [dr, dc] = map.elementAt({reg, 0, 0});
    Value r = arith::AddIOp::create(b, loc, row, constIndex(b, loc, dr));
    Value c = arith::AddIOp::create(b, loc, col, constIndex(b, loc, dc));
    each(reg, offsetPtr(b, loc, base,
                        swizzledOffset(b, loc, shared, blockRows, r, c)));
  }
}

NVVM::MMALayoutAttr rowLayout(MLIRContext *ctx) {
  return NVVM::MMALayoutAttr::get(ctx, NVVM::MMALayout::row);
}
NVVM::LdStMatrixShapeAttr m8n8(MLIRContext *ctx) {
  return NVVM::LdStMatrixShapeAttr::get(ctx, 8, 8);
}
NVVM::LdStMatrixEltTypeAttr b16(MLIRContext *ctx) {
  return NVVM::LdStMatrixEltTypeAttr::get(ctx, NVVM::LdStMatrixEltType::B16);
}

/// Register tile → shared tile with stmatrix.x4: each thread passes its four
/// element pairs of every 8 registers.
void storeWithStmatrix(OpBuilder &b, Location loc, const FragmentMap &map,
                       SharedTileType shared, int64_t blockRows, Value base,
                       Value tile, Type element) {
  MLIRContext *ctx = b.getContext();
  auto pair = VectorType::get({2}, element);
  forEachMatrixQuad(
      b, loc, map, shared, blockRows, base, [&](int64_t reg, Value address) {
        SmallVector<Value, 4> sources;
        for (int64_t i = 0; i < 8; i += 2) {
          Value v = packFields(b, loc, tile, reg + i, pair);
          sources.push_back(LLVM::BitcastOp::create(b, loc, b.getI32Type(), v));
        }
        NVVM::StMatrixOp::create(b, loc, address, sources, rowLayout(ctx),
                                 m8n8(ctx), b16(ctx));
      });
}

/// Shared tile → register tile with ldmatrix.x4, the inverse of the above.
Value loadWithLdmatrix(OpBuilder &b, Location loc, const FragmentMap &map,
                       SharedTileType shared, int64_t blockRows, Value base,
                       Type structType, Type element) {
  MLIRContext *ctx = b.getContext();
  auto pair = VectorType::get({2}, element);
  auto words = LLVM::LLVMStructType::getLiteral(
      ctx, SmallVector<Type>(4, b.getI32Type()));
  Value result = LLVM::UndefOp::create(b, loc, structType);
  forEachMatrixQuad(
      b, loc, map, shared, blockRows, base, [&](int64_t reg, Value address) {
        Value loaded = NVVM::LdMatrixOp::create(
            b, loc, words, address, b.getI32IntegerAttr(4), rowLayout(ctx),
            m8n8(ctx), b16(ctx));
        for (int64_t i = 0; i < 4; ++i) {
          Value v = LLVM::BitcastOp::create(
              b, loc, pair, LLVM::ExtractValueOp::create(b, loc, loaded, i));
          for (int64_t j = 0; j < 2; ++j)
            result = LLVM::InsertValueOp::create(
                b, loc, result,
                LLVM::ExtractElementOp::create(b, loc, v, constI32(b, loc, j)),
                reg + 2 * i + j);
        }
      });
  return result;
}

/// Shared-memory offsets of a thread's fragment elements, (dr, dc) from the
/// thread's origin (row, col). Elements whose swizzle pattern is the same
/// (rows a multiple of the pattern's period apart, columns whole swizzle
/// blocks apart) share one computed offset plus a constant: the few offsets
/// a thread needs are what stays live when a loop hoists them.
class FragmentOffsets {
public:
  FragmentOffsets(OpBuilder &b, Location loc, SharedTileType tile,
                  int64_t allocRows, Value row, Value col)
      : b(b), loc(loc), tile(tile), allocRows(allocRows), row(row), col(col),
        swizzle(tile.getSwizzle().getBytes()),
        eb(elementBytes(tile.getElementType())), period(!swizzle        ? 1
                                                        : targetsAMD(b) ? 16
                                                                        : 8),
        width(swizzle ? swizzle / eb : 1) {}

  Value at(int64_t dr, int64_t dc) {
    std::pair<int64_t, int64_t> key{dr % period, dc % width};
    Value &base = bases[key];
    if (!base) {
      Value r =
          arith::AddIOp::create(b, loc, row, constIndex(b, loc, key.first));
      Value c =
          arith::AddIOp::create(b, loc, col, constIndex(b, loc, key.second));
      base = swizzledOffset(b, loc, tile, allocRows, r, c);
    }
    int64_t rows = dr - key.first, cols = dc - key.second;
    int64_t extra = swizzle
                        ? rows * swizzle + cols / width * allocRows * swizzle
                        : (rows * tile.getCols() + cols) * eb;
    return arith::AddIOp::create(b, loc, base, constIndex(b, loc, extra));
  }

private:
  OpBuilder &b;
  Location loc;
  SharedTileType tile;
  int64_t allocRows;
  Value row, col;
  int64_t swizzle, eb, period, width;
  std::map<std::pair<int64_t, int64_t>, Value> bases;
};

/// Register tile → shared tile: stmatrix where the layout is the m8n8
/// fragment (NVIDIA); otherwise (and on AMD, where the swizzle also flips
/// 8-byte halves: FragmentOffsets) each thread writes its elements at their
/// swizzled addresses, two at a time where a layout keeps two consecutive
/// columns in consecutive registers (conflict-free for 2-byte elements under
/// the 128-byte swizzle; 4-byte pairs of the accumulator fragment take twice
/// the wavefronts, which a rotated order would avoid at the cost of selects
/// that measured slower: docs/performance.md, "The dQ product first").
struct StoreSharedLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto shared = dyn_cast<SharedTileType>(op.getDst().getType());
    auto tile = dyn_cast<RegTileType>(op.getValue().getType());
    if (!shared || !tile)
      return rewriter.notifyMatchFailure(op, "only register tile to shared");
    // AMD's copy staging runs have their own pattern (AMDMemory.cpp).
    if (isa_and_nonnull<ChunksLayoutAttr>(tile.getLayout()))
      return rewriter.notifyMatchFailure(op, "chunks");
    Location loc = op.getLoc();
    FailureOr<FragmentMap> fragments = getScopeFragmentMap(tile);
    if (failed(fragments))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    const FragmentMap &map = *fragments;
    if (!targetsAMD(rewriter) && fitsStmatrix(map, tile.getElementType())) {
      storeWithStmatrix(rewriter, loc, map, shared, allocationRows(op.getDst()),
                        adaptor.getDst(), adaptor.getValue(),
                        tile.getElementType());
      rewriter.eraseOp(op);
      return success();
    }
    Value row0 = constIndex(rewriter, loc, 0);
    Value col0 = constIndex(rewriter, loc, 0);
    auto [row, col] = threadOrigin(rewriter, loc, map, row0, col0);
    ArrayRef<FragmentMode> regs = map.modes(FragmentMap::Index::reg);
    Type element = tile.getElementType();
    int64_t eb = elementBytes(element);
    bool pairs = !regs.empty() && regs[0].size == 2 && regs[0].rowStride == 0 &&
                 regs[0].colStride == 1 && (eb == 2 || eb == 4);
    int64_t step = pairs ? 2 : 1;
    FragmentOffsets offsets(rewriter, loc, shared, allocationRows(op.getDst()),
                            row, col);
    for (int64_t reg = 0; reg < map.numRegs(); reg += step) {
      auto [dr, dc] = map.elementAt({reg, 0, 0});
      Value address =
          offsetPtr(rewriter, loc, adaptor.getDst(), offsets.at(dr, dc));
      Value value =
          LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(), reg);
      if (pairs) {
        auto vec = VectorType::get({2}, element);
        Value v = LLVM::UndefOp::create(rewriter, loc, vec);
        v = LLVM::InsertElementOp::create(rewriter, loc, v, value,
                                          constI32(rewriter, loc, 0));
        Value next = LLVM::ExtractValueOp::create(rewriter, loc,
                                                  adaptor.getValue(), reg + 1);
        v = LLVM::InsertElementOp::create(rewriter, loc, v, next,
                                          constI32(rewriter, loc, 1));
        value = v;
      }
      LLVM::StoreOp::create(rewriter, loc, value, address,
                            /*alignment=*/step * eb);
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Register tile → shared vector, in fragment order (a staging buffer for a
/// global view in fragment order). Every register layout of the dialect
/// places a thread's elements at its origin's offset plus a constant per
/// register (the offset is linear in the row and column bits, which the
/// origin and the registers do not share); the thread computes one offset
/// and stores 16 (or 8) bytes where consecutive registers are consecutive:
/// the wgmma accumulator's four registers of an 8-column group at 4 t .. 4 t
/// + 3, conflict-free.
struct StoreSharedFragmentsLowering : OpConversionPattern<StoreOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto tile = dyn_cast<RegTileType>(op.getValue().getType());
    if (!tile || !isa<SharedVecType>(op.getDst().getType()))
      return rewriter.notifyMatchFailure(op, "only register tile to vector");
    Location loc = op.getLoc();
    FailureOr<FragmentMap> fragments = getScopeFragmentMap(tile);
    if (failed(fragments))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    const FragmentMap &map = *fragments;
    int64_t cols = tile.getShape()[1], regs = map.numRegs();
    Type element = tile.getElementType();
    int64_t eb = elementBytes(element);
    FailureOr<FragmentDeltas> deltas = fragmentDeltas(map, cols);
    if (failed(deltas)) // Refused with a message before conversion.
      return rewriter.notifyMatchFailure(op, "offsets not per register");
    ArrayRef<int64_t> delta = deltas->delta;
    bool aligned = deltas->aligned;
    Value row0 = constIndex(rewriter, loc, 0);
    Value col0 = constIndex(rewriter, loc, 0);
    auto [row, col] = threadOrigin(rewriter, loc, map, row0, col0);
    Value origin = fragmentOffset(rewriter, loc, row, col,
                                  constIndex(rewriter, loc, cols));
    auto run = [&](int64_t reg, int64_t n) {
      if (reg % n || reg + n > regs || (n == 4 && !aligned) || delta[reg] % n)
        return false;
      for (int64_t i = 1; i < n; ++i)
        if (delta[reg + i] != delta[reg] + i)
          return false;
      return true;
    };
    for (int64_t reg = 0; reg < regs;) {
      int64_t n = run(reg, 4) ? 4 : run(reg, 2) ? 2 : 1;
      Value offset = arith::AddIOp::create(
          rewriter, loc, origin, constIndex(rewriter, loc, delta[reg]));
      Value address =
          offsetPtr(rewriter, loc, adaptor.getDst(),
                    arith::MulIOp::create(rewriter, loc, offset,
                                          constIndex(rewriter, loc, eb)));
      Value value;
      if (n == 1) {
        value = LLVM::ExtractValueOp::create(rewriter, loc, adaptor.getValue(),
                                             reg);
      } else {
        value = packFields(rewriter, loc, adaptor.getValue(), reg,
                           VectorType::get({n}, element));
      }
      LLVM::StoreOp::create(rewriter, loc, value, address,
                            /*alignment=*/n * eb);
      reg += n;
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Shared tile → register tile: ldmatrix where the layout is the m8n8
/// fragment, otherwise element by element at the swizzled addresses.
struct LoadSharedLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto shared = dyn_cast<SharedTileType>(op.getSrc().getType());
    auto tile = dyn_cast<RegTileType>(op.getType());
    if (!shared || !tile)
      return rewriter.notifyMatchFailure(op, "only shared tile to registers");
    Location loc = op.getLoc();
    FailureOr<FragmentMap> fragments = getScopeFragmentMap(tile);
    if (failed(fragments))
      return rewriter.notifyMatchFailure(op, "no fragment map");
    const FragmentMap &map = *fragments;
    Type element = tile.getElementType();
    Type structType = getTypeConverter()->convertType(tile);
    int64_t blockRows = allocationRows(op.getSrc());
    if (fitsStmatrix(map, element)) {
      rewriter.replaceOp(op, loadWithLdmatrix(rewriter, loc, map, shared,
                                              blockRows, adaptor.getSrc(),
                                              structType, element));
      return success();
    }
    Value row0 = constIndex(rewriter, loc, 0);
    Value col0 = constIndex(rewriter, loc, 0);
    auto [row, col] = threadOrigin(rewriter, loc, map, row0, col0);
    FragmentOffsets offsets(rewriter, loc, shared, blockRows, row, col);
    Value result = LLVM::UndefOp::create(rewriter, loc, structType);
    for (int64_t reg = 0; reg < map.numRegs(); ++reg) {
      auto [dr, dc] = map.elementAt({reg, 0, 0});
      Value address =
          offsetPtr(rewriter, loc, adaptor.getSrc(), offsets.at(dr, dc));
      Value v = LLVM::LoadOp::create(rewriter, loc, element, address,
                                     elementBytes(element));
      result = LLVM::InsertValueOp::create(rewriter, loc, result, v, reg);
    }
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// The warpgroup's earlier shared-memory writes are made visible to the
/// async proxy, then one thread issues the copies (a TMA store per column
/// block, or one bulk copy to a view in fragment order) and commits them as
/// one bulk group.
struct StoreAsyncLowering : OpConversionPattern<StoreAsyncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreAsyncOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    NVVM::FenceProxyOp::create(
        rewriter, loc, NVVM::ProxyKind::async_shared,
        NVVM::SharedSpaceAttr::get(rewriter.getContext(),
                                   NVVM::SharedSpace::shared_cta));
    warpgroupSync(rewriter, loc);
    emitOncePerWarpgroup(rewriter, loc, [&](OpBuilder &b) {
      if (op.getDst().getType().getFragments())
        issueBulk(b, op, adaptor);
      else
        issueTensor(b, op, adaptor);
      NVVM::CpAsyncBulkCommitGroupOp::create(b, loc);
    });
    rewriter.eraseOp(op);
    return success();
  }

  /// One TMA store per column block of the (swizzled) shared tile.
  static void issueTensor(OpBuilder &b, StoreAsyncOp op, OpAdaptor adaptor) {
    Location loc = op.getLoc();
    Type buffer = op.getSrc().getType();
    Value map = tensorMap(b, loc, op, adaptor.getDevice());
    int64_t blocks = 1, blockBytes = 0, width = 0;
    if (auto tile = dyn_cast<SharedTileType>(buffer)) {
      int64_t swizzle = tile.getSwizzle().getBytes();
      if (swizzle) {
        width = swizzle / elementBytes(tile.getElementType());
        blocks = std::max<int64_t>(1, tile.getCols() / width);
        blockBytes = allocationRows(op.getSrc()) * swizzle;
      }
    }
    for (int64_t j = 0; j < blocks; ++j) {
      Value src = adaptor.getSrc();
      if (j)
        src = offsetPtr(b, loc, src, constI64(b, loc, j * blockBytes));
      SmallVector<Value> coords =
          tmaCoordinates(b, loc, buffer, adaptor.getCoords(), j * width);
      if (op.getReduce())
        NVVM::CpAsyncBulkTensorReduceOp::create(
            b, loc, map, src, NVVM::TMAReduxKind::ADD, NVVM::TMAStoreMode::TILE,
            coords, /*l2CacheHint=*/Value{});
      else
        NVVM::CpAsyncBulkTensorSharedCTAToGlobalOp::create(
            b, loc, map, src, coords, /*l2CacheHint=*/Value{},
            NVVM::TMAStoreMode::TILE, /*predicate=*/Value{});
    }
  }

  /// A view in fragment order: the slab's columns the vector holds are one
  /// contiguous range, one bulk copy (cp.reduce.async.bulk for `reduce add`;
  /// the NVVM dialect has only the tensor form of the reduction), at
  /// (leading * rows + 64 * slab) * cols + 64 * width * column tile.
  static void issueBulk(OpBuilder &b, StoreAsyncOp op, OpAdaptor adaptor) {
    Location loc = op.getLoc();
    GlobalType view = op.getDst().getType();
    auto vec = cast<SharedVecType>(op.getSrc().getType());
    size_t rank = view.getShape().size();
    int64_t width = vec.getLength() / 64;
    SmallVector<Value> dims = viewDims(b, loc, op, rank);
    ValueRange coords = adaptor.getCoords();
    Value leading = leadingOffset(b, loc, coords, dims, rank - 2);
    Value rows =
        arith::AddIOp::create(b, loc, leading,
                              arith::MulIOp::create(b, loc, coords[rank - 2],
                                                    constIndex(b, loc, 64)));
    Value rowsStart = arith::MulIOp::create(
        b, loc, rows, fragmentColumns(b, loc, view, dims[rank - 1]));
    Value index = arith::AddIOp::create(
        b, loc, rowsStart,
        arith::MulIOp::create(b, loc, coords[rank - 1],
                              constIndex(b, loc, 64 * width)));
    Value dst = LLVM::GEPOp::create(b, loc, adaptor.getDst().getType(),
                                    vec.getElementType(), adaptor.getDst(),
                                    ValueRange{toI64(b, loc, index)});
    Value g = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), dst);
    Value s =
        LLVM::PtrToIntOp::create(b, loc, b.getI32Type(), adaptor.getSrc());
    std::string text =
        op.getReduce()
            ? "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 "
            : "cp.async.bulk.global.shared::cta.bulk_group ";
    text += "[$0], [$1], " + std::to_string(vec.getTileBytes()) + ";";
    inlinePtx(b, loc, ValueRange{g, s}, text, "l,r");
  }
};

/// The issuing thread waits until its bulk stores have read their source
/// (`written`: are written, then a proxy fence orders them before ordinary
/// accesses); the warpgroup waits for it.
struct StoreAsyncWaitLowering : OpConversionPattern<StoreAsyncWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(StoreAsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    bool written = op.getWritten();
    emitOncePerWarpgroup(rewriter, loc, [&](OpBuilder &b) {
      NVVM::CpAsyncBulkWaitGroupOp::create(
          b, loc, op.getPending(), written ? UnitAttr{} : b.getUnitAttr());
      if (written)
        inlinePtx(b, loc, {}, "fence.proxy.async.global;", "");
    });
    warpgroupSync(rewriter, loc);
    rewriter.eraseOp(op);
    return success();
  }
};
} // namespace

void tk::lower::populateMemoryPatterns(TypeConverter &converter,
                                       RewritePatternSet &patterns,
                                       bool nvidia) {
  patterns
      .add<AllocLowering, SlotLowering, SubtileLowering, StoreGlobalLowering,
           StoreGlobalVectorLowering, LoadGlobalVectorLowering,
           LoadGlobalLowering, StoreSharedLowering, LoadSharedVectorLowering>(
          converter, patterns.getContext());
  if (nvidia)
    patterns.add<LoadAsyncLowering, StoreSharedFragmentsLowering,
                 LoadSharedLowering, StoreAsyncLowering, StoreAsyncWaitLowering,
                 PrefetchLowering>(converter, patterns.getContext());
  else
    patterns.add<DropPrefetch>(converter, patterns.getContext());
}
