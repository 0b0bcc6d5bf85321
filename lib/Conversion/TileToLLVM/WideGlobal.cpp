//===- WideGlobal.cpp - 16-byte global accesses of fragment tiles ---------===//
//
// A register tile of 16-bit elements in the m8n8 fragment layout (the MMA
// operand and accumulator layouts, fitsStmatrix) holds, in each quad of
// lanes, four consecutive 8-column groups of a row as one 32-bit word per
// lane and group. A 4 x 4 word transpose inside the quad (three
// shfl.sync.idx) turns that into lane t holding the 8 contiguous elements
// of group t, and back: one 16-byte global access per lane and group
// instead of eight 2-byte ones. Stores use it (an epilogue written from
// registers), and loads (a tile copied through registers, the
// reduce-scatter's copy-out: element by element its 128 guarded loads per
// thread ran one after another).
//
//===----------------------------------------------------------------------===//
#include "Common.h"

#include <map>

using namespace mlir;
using namespace tk::tile;
using namespace tk::lower;

namespace {

/// Per row offset and 32-column block of lane 0's elements, the first
/// register of each of the four 8-column groups' word (its pair of
/// registers); empty unless the tile fits these accesses: NVIDIA (quads of
/// 4 lanes, shfl.sync), the m8n8 fragment of 16-bit elements
/// (fitsStmatrix), and every block has each group exactly once.
std::map<std::pair<int64_t, int64_t>, std::array<int64_t, 4>>
quadBlocks(OpBuilder &b, const FragmentMap &map, Type element) {
  if (targetsAMD(b) || !fitsStmatrix(map, element))
    return {};
  std::map<std::pair<int64_t, int64_t>, std::array<int64_t, 4>> blocks;
  std::map<std::pair<int64_t, int64_t>, unsigned> groups;
  for (int64_t reg = 0; reg < map.numRegs(); reg += 2) {
    auto [dr, dc] = map.elementAt({reg, 0, 0});
    std::pair<int64_t, int64_t> key{dr, dc / 32};
    unsigned bit = 1u << ((dc % 32) / 8);
    if (groups[key] & bit)
      return {};
    groups[key] |= bit;
    blocks[key][(dc % 32) / 8] = reg;
  }
  for (auto &[key, seen] : groups)
    if (seen != 0xf)
      return {};
  return blocks;
}

/// What every block of a tile shares: the lane's place in its quad and
/// whether the view's rows and pointer allow 16-byte accesses.
struct Quad {
  Value t, quad, aligned;

  Quad(OpBuilder &b, Location loc, Value ptr, Value cols) {
    Value tid = threadIndex(b, loc);
    Value lane = arith::RemUIOp::create(b, loc, tid, constIndex(b, loc, 32));
    t = arith::RemUIOp::create(b, loc, lane, constIndex(b, loc, 4));
    quad = arith::SubIOp::create(b, loc, lane, t);
    // Rows are 16-byte aligned: a multiple of 8 elements long, from a
    // 16-byte-aligned pointer.
    Value ptrInt = LLVM::PtrToIntOp::create(b, loc, b.getI64Type(), ptr);
    Value colsRest =
        arith::RemUIOp::create(b, loc, cols, constIndex(b, loc, 8));
    Value rowsAligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              colsRest, constIndex(b, loc, 0));
    Value ptrRest = arith::AndIOp::create(b, loc, ptrInt, constI64(b, loc, 15));
    Value ptrAligned = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                             ptrRest, constI64(b, loc, 0));
    aligned = arith::AndIOp::create(b, loc, rowsAligned, ptrAligned);
  }

  /// (t + offset) % 4: a lane of this lane's quad.
  Value lane(OpBuilder &b, Location loc, int64_t offset) const {
    Value sum = arith::AddIOp::create(b, loc, t, constIndex(b, loc, offset));
    return arith::RemUIOp::create(b, loc, sum, constIndex(b, loc, 4));
  }

  /// Word k of lane t becomes word t of lane k, in every quad. Round r:
  /// lane t receives, from quad lane (t + r) % 4, that lane's word t and
  /// keeps it as its word (t + r) % 4; it sends its word (t - r) % 4.
  SmallVector<Value, 4> transpose(OpBuilder &b, Location loc,
                                  ArrayRef<Value> words) const {
    auto pick = [&](Value index) {
      Value v = words[0];
      for (int64_t k = 1; k < 4; ++k)
        v = arith::SelectOp::create(
            b, loc,
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, index,
                                  constIndex(b, loc, k)),
            words[k], v);
      return v;
    };
    Type i32 = b.getI32Type();
    SmallVector<Value, 4> out(4);
    for (int64_t r = 0; r < 4; ++r) {
      Value from = lane(b, loc, r);
      Value send = pick(lane(b, loc, 4 - r));
      Value got = send;
      if (r != 0) {
        Value members = constI32(b, loc, -1);
        Value source = toI32(b, loc, arith::AddIOp::create(b, loc, quad, from));
        Value clamp = constI32(b, loc, 0x1f);
        got = NVVM::ShflOp::create(b, loc, i32, members, send, source, clamp,
                                   NVVM::ShflKind::idx, UnitAttr{});
      }
      for (int64_t k = 0; k < 4; ++k) {
        Value here = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                           from, constIndex(b, loc, k));
        out[k] =
            out[k]
                ? arith::SelectOp::create(b, loc, here, got, out[k]).getResult()
                : got;
      }
    }
    return out;
  }
};

/// Where this lane's 16 bytes of block (`dr`, `block`) sit: element row and
/// first column, whether the row and all 8 columns are inside the view, and
/// the first element's address.
struct Segment {
  Value row, col, rowInside, allInside, address;

  Segment(OpBuilder &b, Location loc, const Quad &q, Type element, Value ptr,
          Value base, Value row0, Value col0, Value rows, Value cols,
          int64_t dr, int64_t block) {
    row = arith::AddIOp::create(b, loc, row0, constIndex(b, loc, dr));
    // The thread's origin column is 2 t: lane t's group starts at 8 t.
    Value colInBlock = arith::AddIOp::create(
        b, loc, col0,
        arith::MulIOp::create(b, loc, q.t, constIndex(b, loc, 6)));
    col = arith::AddIOp::create(b, loc, colInBlock,
                                constIndex(b, loc, 32 * block));
    rowInside =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, row, rows);
    allInside = arith::AndIOp::create(
        b, loc, rowInside,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ule,
            arith::AddIOp::create(b, loc, col, constIndex(b, loc, 8)), cols));
    Value index = arith::AddIOp::create(
        b, loc,
        arith::MulIOp::create(b, loc, arith::AddIOp::create(b, loc, base, row),
                              cols),
        col);
    address = LLVM::GEPOp::create(b, loc, ptr.getType(), element, ptr,
                                  ValueRange{toI64(b, loc, index)});
  }

  /// Whether element `e` of the 8 is inside the view.
  Value inside(OpBuilder &b, Location loc, Value cols, int64_t e) const {
    return arith::AndIOp::create(
        b, loc, rowInside,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult,
            arith::AddIOp::create(b, loc, col, constIndex(b, loc, e)), cols));
  }
};

} // namespace

bool tk::lower::storeGlobalWide(OpBuilder &b, Location loc,
                                const FragmentMap &map, Type element,
                                Value tile, Value ptr, Value base, Value row,
                                Value col, Value rows, Value cols) {
  auto blocks = quadBlocks(b, map, element);
  if (blocks.empty())
    return false;
  Type i32 = b.getI32Type();
  auto pair = VectorType::get({2}, element);
  Quad q(b, loc, ptr, cols);
  for (auto &[key, regs] : blocks) {
    SmallVector<Value, 4> words;
    for (int64_t reg : regs)
      words.push_back(LLVM::BitcastOp::create(
          b, loc, i32, packFields(b, loc, tile, reg, pair)));
    SmallVector<Value, 4> out = q.transpose(b, loc, words);
    Segment at(b, loc, q, element, ptr, base, row, col, rows, cols, key.first,
               key.second);
    auto wide = scf::IfOp::create(
        b, loc, arith::AndIOp::create(b, loc, at.allInside, q.aligned),
        /*withElseRegion=*/true);
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPoint(wide.thenBlock()->getTerminator());
    auto v4 = VectorType::get({4}, i32);
    Value v = LLVM::UndefOp::create(b, loc, v4);
    for (int64_t k = 0; k < 4; ++k)
      v = LLVM::InsertElementOp::create(b, loc, v, out[k], constI32(b, loc, k));
    LLVM::StoreOp::create(b, loc, v, at.address, /*alignment=*/16);
    b.setInsertionPoint(wide.elseBlock()->getTerminator());
    for (int64_t e = 0; e < 8; ++e) {
      auto guard = scf::IfOp::create(b, loc, at.inside(b, loc, cols, e), false);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPoint(guard.thenBlock()->getTerminator());
      Value elements =
          LLVM::BitcastOp::create(b, loc, pair, out[e / 2]).getResult();
      Value value = LLVM::ExtractElementOp::create(b, loc, elements,
                                                   constI32(b, loc, e % 2));
      Value address =
          LLVM::GEPOp::create(b, loc, ptr.getType(), element, at.address,
                              ValueRange{constI64(b, loc, e)});
      LLVM::StoreOp::create(b, loc, value, address);
    }
  }
  return true;
}

/// One segment's 16 bytes where some may be outside the view or the rows
/// are not aligned: a 16-byte load where it can, else element by element
/// with zero outside.
static Value loadSegment(OpBuilder &b, Location loc, const Quad &q,
                         const Segment &at, Type element, Value ptr,
                         Value cols) {
  Type i32 = b.getI32Type();
  auto v4 = VectorType::get({4}, i32);
  auto pair = VectorType::get({2}, element);
  auto wide = scf::IfOp::create(
      b, loc, v4, arith::AndIOp::create(b, loc, at.allInside, q.aligned),
      /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b);
  b.setInsertionPointToStart(wide.thenBlock());
  Value v = LLVM::LoadOp::create(b, loc, v4, at.address, /*alignment=*/16);
  scf::YieldOp::create(b, loc, v);
  b.setInsertionPointToStart(wide.elseBlock());
  Value zero =
      arith::ConstantOp::create(b, loc, element, b.getZeroAttr(element));
  Value words = LLVM::UndefOp::create(b, loc, v4);
  for (int64_t k = 0; k < 4; ++k) {
    Value two = LLVM::UndefOp::create(b, loc, pair);
    for (int64_t e = 2 * k; e < 2 * k + 2; ++e) {
      auto guard =
          scf::IfOp::create(b, loc, element, at.inside(b, loc, cols, e),
                            /*withElseRegion=*/true);
      OpBuilder::InsertionGuard g2(b);
      b.setInsertionPointToStart(guard.thenBlock());
      Value address =
          LLVM::GEPOp::create(b, loc, ptr.getType(), element, at.address,
                              ValueRange{constI64(b, loc, e)});
      scf::YieldOp::create(
          b, loc, LLVM::LoadOp::create(b, loc, element, address).getResult());
      b.setInsertionPointToStart(guard.elseBlock());
      scf::YieldOp::create(b, loc, zero);
      b.setInsertionPointAfter(guard);
      two = LLVM::InsertElementOp::create(b, loc, two, guard.getResult(0),
                                          constI32(b, loc, e % 2));
    }
    Value word = LLVM::BitcastOp::create(b, loc, i32, two);
    words =
        LLVM::InsertElementOp::create(b, loc, words, word, constI32(b, loc, k));
  }
  scf::YieldOp::create(b, loc, words);
  return wide.getResult(0);
}

/// The inverse of storeGlobalWide: lane t reads the 8 elements of group t,
/// then the transpose hands every lane its fragment words. When all of a
/// thread's segments are inside and aligned (every tile but the view's
/// edge tiles) its 16-byte loads are one straight run, all in flight at
/// once; a branch per segment would issue them one after another (ptxas
/// does not hoist a load above its guard): in the reduce-scatter's
/// copy-out that made each 128 x 256 bf16 tile cost tens of microseconds.
/// Otherwise each segment loads as loadSegment does.
Value tk::lower::loadGlobalWide(OpBuilder &b, Location loc,
                                const FragmentMap &map, Type element,
                                Type resultType, Value ptr, Value base,
                                Value row, Value col, Value rows, Value cols) {
  auto blocks = quadBlocks(b, map, element);
  if (blocks.empty())
    return {};
  Type i32 = b.getI32Type();
  auto v4 = VectorType::get({4}, i32);
  auto pair = VectorType::get({2}, element);
  Quad q(b, loc, ptr, cols);
  SmallVector<Segment> segments;
  Value fast = q.aligned;
  for (auto &[key, regs] : blocks) {
    segments.emplace_back(b, loc, q, element, ptr, base, row, col, rows, cols,
                          key.first, key.second);
    fast = arith::AndIOp::create(b, loc, fast, segments.back().allInside);
  }
  SmallVector<Type> types(segments.size(), v4);
  auto branch = scf::IfOp::create(b, loc, types, fast, /*withElseRegion=*/true);
  {
    OpBuilder::InsertionGuard g(b);
    b.setInsertionPointToStart(branch.thenBlock());
    SmallVector<Value> wide;
    for (const Segment &at : segments)
      wide.push_back(
          LLVM::LoadOp::create(b, loc, v4, at.address, /*alignment=*/16));
    scf::YieldOp::create(b, loc, wide);
    b.setInsertionPointToStart(branch.elseBlock());
    SmallVector<Value> each;
    for (const Segment &at : segments)
      each.push_back(loadSegment(b, loc, q, at, element, ptr, cols));
    scf::YieldOp::create(b, loc, each);
  }
  Value result = LLVM::UndefOp::create(b, loc, resultType);
  for (auto [i, entry] : llvm::enumerate(blocks)) {
    SmallVector<Value, 4> loaded;
    for (int64_t k = 0; k < 4; ++k)
      loaded.push_back(LLVM::ExtractElementOp::create(
          b, loc, branch.getResult(i), constI32(b, loc, k)));
    SmallVector<Value, 4> out = q.transpose(b, loc, loaded);
    for (auto [k, reg] : llvm::enumerate(entry.second)) {
      Value elements = LLVM::BitcastOp::create(b, loc, pair, out[k]);
      for (int64_t j = 0; j < 2; ++j)
        result = LLVM::InsertValueOp::create(
            b, loc, result,
            LLVM::ExtractElementOp::create(b, loc, elements,
                                           constI32(b, loc, j)),
            reg + j);
    }
  }
  return result;
}
