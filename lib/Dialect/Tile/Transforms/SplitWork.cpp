//===- SplitWork.cpp - A block's work split over consumer warpgroups ------===//
//
// tile-warp-specialize's consumers each run the tile loop on their share of
// the block's work. Block-scope register tiles of R rows become warpgroup
// tiles of R / W rows (row vectors likewise; column vectors stay whole), and
// the ops that address memory, masks and MMA operands follow. An MMA whose
// rows do not split (fewer than 64 W) is split by columns, or along K when
// its result is only scaled and add-reduced to global memory
// (docs/passes/warp-specialize.md).
//
//===----------------------------------------------------------------------===//
#include "Utils.h"

using namespace mlir;
using namespace tk::tile;

namespace {

bool isBlockScope(Type type) {
  auto reg = dyn_cast<RegisterType>(type);
  return reg && reg.getScope() == Scope::block;
}

/// The block-scope register tile `type` as one of `warpgroups` row slices,
/// or null when it has none. Block-scope vectors are row vectors (one
/// element per row of a block tile): column ops on them are refused.
Type rowSlice(Type type, int64_t warpgroups) {
  auto reg = dyn_cast<RegisterType>(type);
  if (!reg || reg.getScope() != Scope::block)
    return {};
  SmallVector<int64_t> shape(reg.getShape());
  shape[0] /= warpgroups;
  if (isa<RegTileType>(type))
    return RegTileType::get(shape, reg.getElementType(), Scope::warpgroup,
                            reg.getLayout());
  return RegVecType::get(shape, reg.getElementType(), Scope::warpgroup,
                         reg.getLayout());
}

/// `type` (a register tile) at warpgroup scope, shape unchanged.
Type wholeAtWarpgroup(Type type) {
  auto tile = cast<RegTileType>(type);
  return RegTileType::get(tile.getShape(), tile.getElementType(),
                          Scope::warpgroup, tile.getLayout());
}

/// Block-scope vectors in `body` that hold one element per column (they are
/// broadcast along columns, or share a value with one that is): every
/// warpgroup keeps all of them.
llvm::DenseSet<Value> columnVectors(Block &body) {
  llvm::DenseSet<Value> columns;
  auto isBlockVec = [](Value v) {
    auto vec = dyn_cast<RegVecType>(v.getType());
    return vec && vec.getScope() == Scope::block;
  };
  body.walk([&](BroadcastOp op) {
    if (op.getAxis() == Axis::col && isBlockVec(op.getX()))
      columns.insert(op.getX());
  });
  // Values that must have the same orientation: an op's vector operands and
  // results (elementwise ops), a loop's init, argument, yield and result.
  SmallVector<std::pair<Value, Value>> same;
  body.walk([&](Operation *op) {
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
        same.push_back({loop.getInitArgs()[i], arg});
        same.push_back({arg, loop.getResult(i)});
        same.push_back({loop.getBody()->getTerminator()->getOperand(i), arg});
      }
      return;
    }
    if (isa<scf::YieldOp>(op) && isa<scf::IfOp>(op->getParentOp())) {
      for (auto [v, r] :
           llvm::zip(op->getOperands(), op->getParentOp()->getResults()))
        same.push_back({v, r});
      return;
    }
    if (isa<RowMaxOp, RowSumOp, ColMaxOp, ColSumOp, BroadcastOp>(op))
      return;
    SmallVector<Value> vecs;
    for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (isBlockVec(v))
        vecs.push_back(v);
    for (size_t i = 1; i < vecs.size(); ++i)
      same.push_back({vecs[0], vecs[i]});
  });
  for (bool changed = true; changed;) {
    changed = false;
    for (auto [a, b] : same)
      if (isBlockVec(a) && isBlockVec(b) &&
          columns.contains(a) != columns.contains(b)) {
        columns.insert(a);
        columns.insert(b);
        changed = true;
      }
  }
  return columns;
}

/// Whether `v` (an mma's result) reaches memory only through scalings and
/// add-reducing stores to global memory: a sum of per-warpgroup parts of it
/// is then as good as the whole.
bool onlyReducedAway(Value v) {
  return llvm::all_of(v.getUsers(), [&](Operation *user) {
    if (auto mul = dyn_cast<MulOp>(user))
      return !isa<RegisterType>(mul.getRhs().getType()) && mul.getLhs() == v &&
             onlyReducedAway(mul.getResult());
    auto store = dyn_cast<StoreOp>(user);
    return store && store.getReduce() && store.getValue() == v &&
           isa<GlobalType>(store.getDst().getType());
  });
}

/// What splitting one op did.
enum class Split {
  retype, // operands adjusted; the results take the row-slice types
  done,   // rewritten completely
  failed, // `why` says why
};

class WorkSplitter {
public:
  WorkSplitter(Block &body, Value wg, int64_t warpgroups, bool contraction)
      : body(body), wg(wg), warpgroups(warpgroups), contraction(contraction),
        columns(columnVectors(body)) {}

  std::string run() {
    SmallVector<PartRowsOp> parts;
    body.walk([&](PartRowsOp part) { parts.push_back(part); });
    for (PartRowsOp part : parts)
      splitPartRows(part);
    // Decide which ops to rewrite before any type changes.
    SmallVector<Operation *> ops;
    body.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
    llvm::SmallPtrSet<Operation *, 32> touching;
    for (Operation *op : ops)
      if (llvm::any_of(op->getOperandTypes(), isBlockScope) ||
          llvm::any_of(op->getResultTypes(), isBlockScope))
        touching.insert(op);
    for (Operation *op : ops) {
      if (!checkRegionArguments(op))
        break;
      if (!touching.contains(op))
        continue;
      if (!checkRows(op))
        break;
      Split split = splitOp(op);
      if (split == Split::failed)
        break;
      if (split == Split::retype)
        retype(op);
    }
    return why;
  }

private:
  /// The warpgroup's rows of a tile that splits into 64-row multiples per
  /// warpgroup (as its mmas do); other tiles keep the whole range, which
  /// holds the part's rows however they split.
  void splitPartRows(PartRowsOp op) {
    int64_t rows = cast<RegTileType>(op.getTile()).getShape()[0];
    if (rows % (64 * warpgroups))
      return;
    OpBuilder b(op);
    Location loc = op.getLoc();
    Value share = constIndex(b, loc, rows / warpgroups);
    Value lo = sliceFirstRow(b, loc, op.getRow(), share);
    Value hi = arith::AddIOp::create(b, loc, lo, share);
    op->replaceAllUsesWith(ValueRange{lo, hi});
    op->erase();
  }

  bool checkRegionArguments(Operation *op) {
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        if (isBlockScope(arg.getType()) && !isa<scf::ForOp>(op)) {
          why = "'" + op->getName().getStringRef().str() +
                "' has a block-scope region argument";
          return false;
        }
    return true;
  }

  bool checkRows(Operation *op) {
    for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (Type type = v.getType(); isBlockScope(type) && !columns.contains(v)) {
        int64_t rows = cast<RegisterType>(type).getShape()[0];
        if (rows % (16 * warpgroups)) {
          why = "a block-scope " +
                std::string(isa<RegTileType>(type) ? "tile" : "vector") +
                " of " + std::to_string(rows) + " rows does not split into " +
                std::to_string(warpgroups) +
                " warpgroup slices of whole 16-row blocks";
          return false;
        }
      }
    return true;
  }

  Split splitOp(Operation *op) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    auto uses = [&](const llvm::DenseSet<Value> &set) {
      return llvm::any_of(op->getOperands(),
                          [&](Value v) { return set.contains(v); });
    };
    if (uses(partial)) {
      // onlyReducedAway admitted only scalings and reducing stores.
      for (Value result : op->getResults()) {
        result.setType(wholeAtWarpgroup(result.getType()));
        partial.insert(result);
      }
      return Split::done;
    }
    if (uses(byColumns))
      return splitColumnUser(op, b, loc);
    if (auto mma = dyn_cast<MmaOp>(op))
      return splitMma(mma, b, loc);
    if (auto mma = dyn_cast<MmaAsyncOp>(op))
      return splitMma(mma, b, loc);
    if (isa<StoreOp, LoadOp>(op))
      return splitMemory(op, b, loc);
    if (isa<CausalMaskOp, BoundMaskOp>(op)) {
      // Masks take the element row of the tile's first row. (The result
      // still has the block's type; the operand may be split already.)
      OpOperand &row = op->getOpOperand(1);
      int64_t rows =
          cast<RegTileType>(op->getResult(0).getType()).getShape()[0] /
          warpgroups;
      row.set(sliceFirstRow(b, loc, row.get(), constIndex(b, loc, rows)));
      return Split::retype;
    }
    if (isa<ColMaxOp, ColSumOp>(op)) {
      why = "column reductions of block-scope tiles are not split by rows "
            "yet (they would sum over the warpgroups)";
      return Split::failed;
    }
    if (!isa<FillOp, CastOp, AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, NegOp,
             AbsOp, ExpOp, Exp2Op, LogOp, FmaOp, ConvertLayoutOp, RowMaxOp,
             RowSumOp, BroadcastOp, scf::ForOp, scf::IfOp, scf::YieldOp>(op)) {
      why = "'" + op->getName().getStringRef().str() +
            "' on block-scope values is not split by rows yet";
      return Split::failed;
    }
    return Split::retype;
  }

  /// Elementwise ops on column slices (their other tile operands too), then
  /// a store of the warpgroup's columns.
  Split splitColumnUser(Operation *op, OpBuilder &b, Location loc) {
    bool elementwise = isa<CastOp, AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp,
                           NegOp, AbsOp, ExpOp, Exp2Op, LogOp, FmaOp>(op);
    auto store = dyn_cast<StoreOp>(op);
    if ((!elementwise && !store) ||
        llvm::any_of(op->getOperands(), [&](Value v) {
          return isBlockScope(v.getType()) && !byColumns.contains(v) &&
                 !(store && v == store.getDst());
        })) {
      why = "the column slices of an mma whose rows do not split feed '" +
            op->getName().getStringRef().str() +
            "'; only elementwise ops on them and stores are split yet";
      return Split::failed;
    }
    if (store && isa<GlobalType>(store.getDst().getType())) {
      OpOperand &col = store.getCoordsMutable()[store.getCoords().size() - 1];
      col.set(sliceIndex(b, loc, col.get()));
    } else if (store) {
      store.getDstMutable().assign(
          sharedSlice(b, loc, store.getDst(), /*byColumns=*/true));
    }
    for (Value result : op->getResults()) {
      result.setType(columnSlice(result.getType()));
      byColumns.insert(result);
    }
    return Split::done;
  }

  /// tile.mma and tile.mma_async alike.
  template <typename MmaTy>
  Split splitMma(MmaTy mma, OpBuilder &b, Location loc) {
    int64_t rows = mma.getType().getShape()[0];
    bool blockScope = mma.getType().getScope() == Scope::block;
    bool aT = mma.getForm() == MmaForm::AtB || mma.getForm() == MmaForm::AtBt;
    if (!blockScope || rows % (64 * warpgroups) == 0) {
      // The warpgroup's rows of A: rows of the tile, or its columns when A
      // is stored transposed (K x M). (A register A is never transposed:
      // the op's verifier.)
      if (isa<SharedTileType>(mma.getA().getType()))
        mma.getAMutable().assign(
            sharedSlice(b, loc, mma.getA(), /*byColumns=*/aT));
      return Split::retype;
    }
    bool bT = mma.getForm() == MmaForm::ABt || mma.getForm() == MmaForm::AtBt;
    int64_t cols = mma.getType().getShape()[1];
    bool shared = isa<SharedTileType>(mma.getA().getType()) &&
                  isa<SharedTileType>(mma.getB().getType());
    Value product = mma.getResult();
    bool alongK = contraction;
    if (auto how = mma->template getAttrOfType<StringAttr>(kSplitAttr))
      alongK = how.getValue() == "contraction";
    if (alongK && shared && aT && !bT && !mma.getAcc() &&
        onlyReducedAway(product)) {
      // Along K: K runs down the rows of both operands.
      mma.getAMutable().assign(sharedSlice(b, loc, mma.getA()));
      mma.getBMutable().assign(sharedSlice(b, loc, mma.getB()));
      product.setType(wholeAtWarpgroup(product.getType()));
      partial.insert(product);
      return Split::done;
    }
    if (!shared || mma.getAcc() || cols % (8 * warpgroups)) {
      why = "an mma of " + std::to_string(rows) + " rows does not split into " +
            std::to_string(warpgroups) +
            " warpgroup mmas of whole 64-row blocks, and only one with both "
            "operands in shared memory, no accumulator and columns in whole "
            "8-column blocks per warpgroup splits by columns";
      return Split::failed;
    }
    // By columns: each warpgroup multiplies all of A by its columns of B
    // (the rows of a transposed B).
    mma.getBMutable().assign(
        sharedSlice(b, loc, mma.getB(), /*byColumns=*/!bT));
    product.setType(columnSlice(product.getType()));
    byColumns.insert(product);
    return Split::done;
  }

  /// The memory side of a load or store: a global view at coordinates (rows
  /// are the second to last for a tile, the last for a vector), or a shared
  /// tile.
  Split splitMemory(Operation *op, OpBuilder &b, Location loc) {
    auto store = dyn_cast<StoreOp>(op);
    OpOperand &memory =
        store ? store.getDstMutable() : cast<LoadOp>(op).getSrcMutable();
    MutableOperandRange coords =
        store ? store.getCoordsMutable() : cast<LoadOp>(op).getCoordsMutable();
    Value value = store ? store.getValue() : op->getResult(0);
    bool vector = isa<RegVecType>(value.getType());
    if (columns.contains(value)) {
      // Every warpgroup holds (and reads or writes) the whole vector.
    } else if (isa<GlobalType>(memory.get().getType())) {
      OpOperand &row = coords[coords.size() - (vector ? 1 : 2)];
      row.set(sliceIndex(b, loc, row.get()));
    } else if (isa<SharedTileType>(memory.get().getType())) {
      memory.set(sharedSlice(b, loc, memory.get()));
    } else {
      why = "block-scope vectors in shared memory are not split yet";
      return Split::failed;
    }
    return Split::retype;
  }

  /// The results and region arguments of `op` as the warpgroup's slices.
  void retype(Operation *op) {
    for (Value result : op->getResults())
      if (Type type = slice(result))
        result.setType(type);
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        if (Type type = slice(arg))
          arg.setType(type);
  }

  /// The warpgroup's type of `v`: a row slice, or all of a column vector.
  Type slice(Value v) {
    if (columns.contains(v)) {
      auto vec = cast<RegVecType>(v.getType());
      return RegVecType::get(vec.getShape(), vec.getElementType(),
                             Scope::warpgroup, vec.getLayout());
    }
    return rowSlice(v.getType(), warpgroups);
  }

  /// A tile column's slice of `type` (a register tile).
  Type columnSlice(Type type) {
    auto tile = cast<RegTileType>(type);
    return RegTileType::get(
        {tile.getShape()[0], tile.getShape()[1] / warpgroups},
        tile.getElementType(), Scope::warpgroup, tile.getLayout());
  }

  /// Element row of this warpgroup's slice of `share` rows in a block tile
  /// whose first row is `row`: row + wg * share.
  Value sliceFirstRow(OpBuilder &b, Location loc, Value row, Value share) {
    return arith::AddIOp::create(b, loc, row,
                                 arith::MulIOp::create(b, loc, wg, share));
  }

  /// Tile index of this warpgroup's slice, in slices: i * W + wg.
  Value sliceIndex(OpBuilder &b, Location loc, Value index) {
    Value scaled =
        arith::MulIOp::create(b, loc, index, constIndex(b, loc, warpgroups));
    return arith::AddIOp::create(b, loc, scaled, wg);
  }

  /// The warpgroup's rows (or columns) of a shared tile of the block's shape.
  Value sharedSlice(OpBuilder &b, Location loc, Value tile,
                    bool byColumns = false) {
    auto type = cast<SharedTileType>(tile.getType());
    SmallVector<int64_t> shape{type.getRows(), type.getCols()};
    shape[byColumns] /= warpgroups;
    auto slice = SharedTileType::get(type.getContext(), shape,
                                     type.getElementType(), type.getSwizzle());
    Value zero = constIndex(b, loc, 0);
    return SubtileOp::create(b, loc, slice, tile, byColumns ? zero : wg,
                             byColumns ? wg : zero);
  }

  Block &body;
  Value wg;
  int64_t warpgroups;
  bool contraction;
  std::string why;
  // Block-scope vectors with one element per column (kept whole).
  llvm::DenseSet<Value> columns;
  // Results of an mma split by columns, and what elementwise ops make of
  // them (only stores may consume them).
  llvm::DenseSet<Value> byColumns;
  // Per-warpgroup parts of an mma split along K (summed by reducing stores).
  llvm::DenseSet<Value> partial;
};
} // namespace

std::string tk::tile::splitWork(Block &body, Value wg, int64_t warpgroups,
                                bool contraction) {
  return WorkSplitter(body, wg, warpgroups, contraction).run();
}
