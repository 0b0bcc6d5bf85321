//===- WarpSpecialize.cpp - Producer and consumer warpgroups --------------===//
//
// Input: a kernel whose tile loop holds one loop pipelined by tile-pipeline
// (its prologue `scf.if` before it, its refill `scf.if` at the top of its
// body). Output: TK's load/compute/store template.
//
//   tile.warp_specialize producer(warpgroups = 1, registers = P) {
//     tile.foreach_tile ... group G {      // the loads of every k-step
//       scf.for %j = 0 to trips { <prologue body> }
//     }
//   } consumer(warpgroups = W, registers = R) {
//     tile.foreach_tile ... group G {      // the tile loop without loads,
//       ...                                 // split by rows over W
//     }
//   }
//
//===----------------------------------------------------------------------===//
#include "Utils.h"
#include "tk/Dialect/Tile/Transforms/Passes.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace tk::tile {
#define GEN_PASS_DEF_TILEWARPSPECIALIZE
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

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

bool isBlockScope(Type type) {
  auto reg = dyn_cast<RegisterType>(type);
  return reg && reg.getScope() == Scope::block;
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

/// Splits the block's work in `body` over `warpgroups` consumer warpgroups
/// by rows; `wg` is the warpgroup's index. An mma whose rows do not split is
/// split by columns, or, with `contraction` and when its result is only
/// scaled and add-reduced to global memory, along K (each warpgroup's part
/// is reduced on its own). "" or why not.
std::string splitByRows(Block &body, Value wg, int64_t warpgroups,
                        bool contraction) {
  std::string why;
  llvm::DenseSet<Value> columns = columnVectors(body);
  // The warpgroup's type of `v`: a row slice, or all of a column vector.
  auto slice = [&](Value v) -> Type {
    if (columns.contains(v)) {
      auto vec = cast<RegVecType>(v.getType());
      return RegVecType::get(vec.getShape(), vec.getElementType(),
                             Scope::warpgroup, vec.getLayout());
    }
    return rowSlice(v.getType(), warpgroups);
  };
  auto touches = [](Operation *op) {
    return llvm::any_of(op->getOperandTypes(), isBlockScope) ||
           llvm::any_of(op->getResultTypes(), isBlockScope);
  };
  // Row offset of this warpgroup's slice, in slices: r * W + wg.
  auto sliceRow = [&](OpBuilder &b, Location loc, Value row) -> Value {
    Value scaled =
        arith::MulIOp::create(b, loc, row, constIndex(b, loc, warpgroups));
    return arith::AddIOp::create(b, loc, scaled, wg);
  };
  // The warpgroup's rows (or columns) of a shared tile of the block's shape.
  auto sharedSlice = [&](OpBuilder &b, Location loc, Value tile,
                         bool byColumns = false) -> Value {
    auto type = cast<SharedTileType>(tile.getType());
    SmallVector<int64_t> shape{type.getRows(), type.getCols()};
    shape[byColumns] /= warpgroups;
    auto slice = SharedTileType::get(type.getContext(), shape,
                                     type.getElementType(), type.getSwizzle());
    Value zero = constIndex(b, loc, 0);
    return SubtileOp::create(b, loc, slice, tile, byColumns ? zero : wg,
                             byColumns ? wg : zero);
  };
  // Values split by columns instead: the results of an mma whose rows do not
  // split (every warpgroup reads all of A and its columns of B), and what
  // elementwise ops make of them. Only stores may consume them.
  llvm::DenseSet<Value> byColumns;
  // Per-warpgroup parts of an mma split along K (summed by reducing stores).
  llvm::DenseSet<Value> partial;
  auto columnSlice = [&](Type type) -> Type {
    auto tile = cast<RegTileType>(type);
    return RegTileType::get(
        {tile.getShape()[0], tile.getShape()[1] / warpgroups},
        tile.getElementType(), Scope::warpgroup, tile.getLayout());
  };

  // Decide which ops to rewrite before any type changes.
  SmallVector<Operation *> ops;
  body.walk<WalkOrder::PreOrder>([&](Operation *op) { ops.push_back(op); });
  llvm::SmallPtrSet<Operation *, 32> touching;
  for (Operation *op : ops)
    if (touches(op))
      touching.insert(op);
  for (Operation *op : ops) {
    if (!why.empty())
      break;
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        if (isBlockScope(arg.getType())) {
          if (!isa<scf::ForOp>(op)) {
            why = "'" + op->getName().getStringRef().str() +
                  "' has a block-scope region argument";
            break;
          }
        }
    if (!why.empty())
      break;
    if (!touching.contains(op))
      continue;
    for (Value v : llvm::concat<Value>(op->getOperands(), op->getResults()))
      if (Type type = v.getType(); isBlockScope(type) && !columns.contains(v)) {
        int64_t rows = cast<RegisterType>(type).getShape()[0];
        if (rows % (16 * warpgroups)) {
          why = "a block-scope " +
                std::string(isa<RegTileType>(type) ? "tile" : "vector") +
                " of " + std::to_string(rows) + " rows does not split into " +
                std::to_string(warpgroups) +
                " warpgroup slices of whole 16-row blocks";
          break;
        }
      }
    if (!why.empty())
      break;
    OpBuilder b(op);
    Location loc = op->getLoc();
    if (llvm::any_of(op->getOperands(),
                     [&](Value v) { return partial.contains(v); })) {
      // onlyReducedAway admitted only scalings and reducing stores.
      for (Value result : op->getResults()) {
        auto tile = cast<RegTileType>(result.getType());
        result.setType(RegTileType::get(tile.getShape(), tile.getElementType(),
                                        Scope::warpgroup, tile.getLayout()));
        partial.insert(result);
      }
      continue;
    }
    bool columnOperand = llvm::any_of(
        op->getOperands(), [&](Value v) { return byColumns.contains(v); });
    if (columnOperand) {
      // Elementwise ops on column slices (their other tile operands too),
      // then a store of the warpgroup's columns.
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
        break;
      }
      if (store && isa<GlobalType>(store.getDst().getType())) {
        OpOperand &col = store.getCoordsMutable()[store.getCoords().size() - 1];
        col.set(sliceRow(b, loc, col.get()));
      } else if (store) {
        store.getDstMutable().assign(
            sharedSlice(b, loc, store.getDst(), /*byColumns=*/true));
      }
      for (Value result : op->getResults()) {
        result.setType(columnSlice(result.getType()));
        byColumns.insert(result);
      }
      continue;
    }
    // tile.mma and tile.mma_async split alike: 0 row split, 1 why is set,
    // 2 split by columns (result typed).
    auto splitMma = [&](auto mma) -> int {
      int64_t rows = mma.getType().getShape()[0];
      bool blockScope = mma.getType().getScope() == Scope::block;
      if (blockScope && rows % (64 * warpgroups)) {
        // Split by columns: each warpgroup multiplies all of A by its
        // columns of B (the rows of a transposed B).
        bool aT =
            mma.getForm() == MmaForm::AtB || mma.getForm() == MmaForm::AtBt;
        bool bT =
            mma.getForm() == MmaForm::ABt || mma.getForm() == MmaForm::AtBt;
        int64_t cols = mma.getType().getShape()[1];
        bool shared = isa<SharedTileType>(mma.getA().getType()) &&
                      isa<SharedTileType>(mma.getB().getType());
        if (contraction && shared && aT && !bT && !mma.getAcc() &&
            onlyReducedAway(mma.getResult())) {
          // Along K: K runs down the rows of both operands.
          mma.getAMutable().assign(sharedSlice(b, loc, mma.getA()));
          mma.getBMutable().assign(sharedSlice(b, loc, mma.getB()));
          Value product = mma.getResult();
          auto tile = cast<RegTileType>(product.getType());
          product.setType(RegTileType::get(tile.getShape(),
                                           tile.getElementType(),
                                           Scope::warpgroup, tile.getLayout()));
          partial.insert(product);
          return 2;
        }
        if (!shared || mma.getAcc() || cols % (8 * warpgroups)) {
          why = "an mma of " + std::to_string(rows) +
                " rows does not split into " + std::to_string(warpgroups) +
                " warpgroup mmas of whole 64-row blocks, and only one with "
                "both operands in shared memory, no accumulator and columns "
                "in whole 8-column blocks per warpgroup splits by columns";
          return 1;
        }
        mma.getBMutable().assign(
            sharedSlice(b, loc, mma.getB(), /*byColumns=*/!bT));
        Value product = mma.getResult();
        product.setType(columnSlice(product.getType()));
        byColumns.insert(product);
        return 2;
      }
      if (mma.getForm() != MmaForm::AB && mma.getForm() != MmaForm::ABt) {
        why = "an mma with a transposed A is not split by rows yet";
        return 1;
      }
      if (isa<SharedTileType>(mma.getA().getType()))
        mma.getAMutable().assign(sharedSlice(b, loc, mma.getA()));
      return 0;
    };
    if (isa<MmaOp, MmaAsyncOp>(op)) {
      int split = isa<MmaOp>(op) ? splitMma(cast<MmaOp>(op))
                                 : splitMma(cast<MmaAsyncOp>(op));
      if (split == 1)
        break;
      if (split == 2)
        continue;
    } else if (isa<StoreOp, LoadOp>(op)) {
      // The memory side: a global view at coordinates (rows are the second
      // to last for a tile, the last for a vector), or a shared tile.
      auto store = dyn_cast<StoreOp>(op);
      OpOperand &memory =
          store ? store.getDstMutable() : cast<LoadOp>(op).getSrcMutable();
      MutableOperandRange coords = store ? store.getCoordsMutable()
                                         : cast<LoadOp>(op).getCoordsMutable();
      Value value = store ? store.getValue() : op->getResult(0);
      bool vector = isa<RegVecType>(value.getType());
      if (columns.contains(value)) {
        // Every warpgroup holds (and reads or writes) the whole vector.
      } else if (isa<GlobalType>(memory.get().getType())) {
        OpOperand &row = coords[coords.size() - (vector ? 1 : 2)];
        row.set(sliceRow(b, loc, row.get()));
      } else if (isa<SharedTileType>(memory.get().getType())) {
        memory.set(sharedSlice(b, loc, memory.get()));
      } else {
        why = "block-scope vectors in shared memory are not split yet";
        break;
      }
    } else if (isa<CausalMaskOp, BoundMaskOp>(op)) {
      // Masks take the element row of the tile's first row. (The result
      // still has the block's type; the operand may be split already.)
      OpOperand &row = op->getOpOperand(1);
      int64_t rows =
          cast<RegTileType>(op->getResult(0).getType()).getShape()[0] /
          warpgroups;
      Value offset =
          arith::MulIOp::create(b, loc, wg, constIndex(b, loc, rows));
      row.set(arith::AddIOp::create(b, loc, row.get(), offset));
    } else if (isa<ColMaxOp, ColSumOp>(op)) {
      why = "column reductions of block-scope tiles are not split by rows "
            "yet (they would sum over the warpgroups)";
      break;
    } else if (!isa<FillOp, CastOp, AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp,
                    NegOp, AbsOp, ExpOp, Exp2Op, LogOp, FmaOp, ConvertLayoutOp,
                    RowMaxOp, RowSumOp, BroadcastOp, scf::ForOp, scf::IfOp,
                    scf::YieldOp>(op)) {
      why = "'" + op->getName().getStringRef().str() +
            "' on block-scope values is not split by rows yet";
      break;
    }
    for (Value result : op->getResults())
      if (Type type = slice(result))
        result.setType(type);
    for (Region &region : op->getRegions())
      for (BlockArgument arg : region.getArguments())
        if (Type type = slice(arg))
          arg.setType(type);
  }
  return why;
}

/// Top-level ops of `body` that `roots` need, in order, and the roots.
SmallVector<Operation *> neededBy(Block &body, ArrayRef<Operation *> roots) {
  llvm::SetVector<Operation *> needed;
  SmallVector<Operation *> work(roots);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!needed.insert(op))
      continue;
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        if (Operation *def = v.getDefiningOp())
          if (Operation *top = body.findAncestorOpInBlock(*def))
            if (!op->isAncestor(top))
              work.push_back(top);
    });
  }
  SmallVector<Operation *> ordered = needed.takeVector();
  llvm::sort(ordered,
             [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return ordered;
}

/// When every shared tile the consumers write in `tiles` is accessed there
/// only as the warpgroup's own row slice (subtile [wg, 0]), no shared data
/// passes between consumer warpgroups: their block barriers (which order
/// shared-memory traffic) become warpgroup barriers, and the warpgroups no
/// longer run in step.
void privatizeBarriers(ForeachTileOp tiles, Value wg) {
  auto root = [](Value tile) {
    while (true) {
      if (auto sub = tile.getDefiningOp<SubtileOp>())
        tile = sub.getSource();
      else if (auto slot = tile.getDefiningOp<SlotOp>())
        tile = slot.getRing();
      else
        return tile;
    }
  };
  llvm::DenseSet<Value> written;
  tiles.walk([&](StoreOp store) {
    if (isa<SharedTileType>(store.getDst().getType()))
      written.insert(root(store.getDst()));
  });
  if (written.empty())
    return;
  auto own = [&](Value tile) {
    auto sub = tile.getDefiningOp<SubtileOp>();
    return sub && sub.getRow() == wg && matchPattern(sub.getCol(), m_Zero());
  };
  bool shared = false;
  tiles.walk([&](Operation *op) {
    if (isa<SubtileOp, SlotOp>(op))
      return;
    for (Value operand : op->getOperands())
      if (isa<SharedTileType>(operand.getType()) &&
          written.contains(root(operand)) && !own(operand))
        shared = true;
  });
  if (shared)
    return;
  tiles.walk([&](BarrierOp barrier) {
    if (barrier.getScope() == Scope::block)
      barrier.setScope(Scope::warpgroup);
  });
}

/// Routes the consumers' stores of whole tiles to global memory through a
/// shared buffer and an async (TMA) store, as TK's epilogue does, when the
/// buffer fits in shared memory: the consumers write the buffer and move on
/// while the copy drains. `wg` is the consumer's warpgroup index.
void storeThroughShared(KernelOp kernel, ForeachTileOp tiles, Value wg,
                        int64_t warpgroups) {
  const tk::TargetInfo &target = getTargetInfo(kernel);
  if (!target.hasAsyncCopyEngine)
    return;
  bool any = false;
  // Add-reducing stores anywhere in the tile (attention's dQ, per k-step)
  // come first: without a buffer each element is an atomic add. Then the
  // tile's plain stores.
  SmallVector<StoreOp> stores;
  tiles.walk([&](StoreOp store) {
    if (store.getReduce())
      stores.push_back(store);
  });
  for (auto store : tiles.getBody().front().getOps<StoreOp>())
    if (!store.getReduce())
      stores.push_back(store);
  for (StoreOp store : stores) {
    auto value = dyn_cast<RegTileType>(store.getValue().getType());
    if (!value || value.getScope() != Scope::warpgroup ||
        !isa<GlobalType>(store.getDst().getType()) ||
        llvm::any_of(value.getShape(), [](int64_t d) { return d > 256; }))
      continue;
    // After the last shared tile, before any semaphores: no alignment gap.
    AllocOp last;
    for (auto alloc : kernel.getBody().getOps<AllocOp>())
      if (!last || isa<SharedTileType>(alloc.getType()))
        last = alloc;
    OpBuilder b(last->getBlock(), std::next(last->getIterator()));
    Location loc = store.getLoc();
    SmallVector<int64_t> shape{value.getShape()[0] * warpgroups,
                               value.getShape()[1]};
    auto bufferType = SharedTileType::get(kernel.getContext(), shape,
                                          value.getElementType(), {});
    auto buffer = AllocOp::create(b, loc, bufferType);
    if (kernel.getSharedMemoryBytes() > target.sharedMemoryBytes) {
      buffer.erase();
      break;
    }
    b.setInsertionPoint(store);
    auto sliceType = SharedTileType::get(kernel.getContext(), value.getShape(),
                                         value.getElementType(), {});
    Value slice =
        SubtileOp::create(b, loc, sliceType, buffer, wg, constIndex(b, loc, 0));
    // The buffer's previous copy out must have read it.
    StoreAsyncWaitOp::create(b, loc);
    StoreOp::create(b, loc, store.getValue(), slice, ValueRange{}, nullptr);
    StoreAsyncOp::create(b, loc, slice, store.getDst(), store.getCoords(),
                         store.getReduceAttr());
    store.erase();
    any = true;
  }
  // Shared memory must outlive the last copies out.
  if (any) {
    OpBuilder b(tiles->getBlock(), std::next(tiles->getIterator()));
    StoreAsyncWaitOp::create(b, tiles.getLoc());
  }
}

struct WarpSpecializePass
    : public tk::tile::impl::TileWarpSpecializeBase<WarpSpecializePass> {
  using TileWarpSpecializeBase::TileWarpSpecializeBase;

  void runOnOperation() override {
    KernelOp kernel = getOperation();
    if (!kernel.getBody().getOps<WarpSpecializeOp>().empty() ||
        kernel->walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return;
    SmallVector<scf::ForOp> pipelined;
    bool copies = false;
    kernel.walk([&](Operation *op) {
      if (auto loop = dyn_cast<scf::ForOp>(op);
          loop && loop->hasAttr(kPipelinedAttr))
        pipelined.push_back(loop);
      copies |= isa<CopyOp>(op);
    });
    if (pipelined.empty() && !copies)
      return;
    if (std::string why = split(kernel, pipelined); !why.empty())
      kernel.emitRemark("not warp-specialized: ") << why;
  }

  /// Rewrites `kernel`; "" or why it was left alone (unchanged).
  std::string split(KernelOp kernel, ArrayRef<scf::ForOp> pipelined) {
    const tk::TargetInfo &target = getTargetInfo(kernel);
    if (!target.hasRegisterBudgets)
      return "target " + target.name.str() +
             " has no per-role register "
             "budgets";
    if (pipelined.size() != 1)
      return pipelined.empty() ? "no loop pipelined by tile-pipeline"
                               : "it has " + std::to_string(pipelined.size()) +
                                     " pipelined loops; one is supported";
    scf::ForOp loop = pipelined.front();
    auto foreach = dyn_cast<ForeachTileOp>(loop->getParentOp());
    if (!foreach || foreach->getParentOp() != kernel.getOperation())
      return "the pipelined loop is not directly in a 'tile.foreach_tile' "
             "of the kernel body";
    if (kernel.getClusterBlocks() > 1)
      return "cluster kernels are not split yet";
    for (Operation &op : kernel.getBody().getOps())
      if (&op != foreach.getOperation() && !isMemoryEffectFree(&op) &&
          !isa<AllocOp, SemInitOp, FenceOp, BarrierOp, ReturnOp>(op))
        return "'" + op.getName().getStringRef().str() +
               "' does work outside the tile loop";
    Operation *prologue = nullptr;
    for (Operation &op : foreach.getBody().getOps())
      if (op.hasAttr(kPrologueAttr))
        prologue = &op;
    if (!prologue)
      return "the pipelined loop's prologue is missing";
    int64_t consumers = *kernel.getWarpgroups();
    if (consumers + 1 > int64_t(target.maxWarpgroups()))
      return "a producer warpgroup would exceed the target's " +
             std::to_string(target.maxWarpgroups()) + " warpgroups";
    if (mmaSplit != "columns" && mmaSplit != "contraction") {
      kernel.emitError("'mma-split' must be 'columns' or 'contraction', got '")
          << mmaSplit << "'";
      signalPassFailure();
      return "";
    }
    if (producerRegisters < 24 || producerRegisters > 256 ||
        producerRegisters % 8) {
      kernel.emitError("'producer-registers' must be a multiple of 8 in "
                       "[24, 256], got ")
          << int64_t(producerRegisters);
      signalPassFailure();
      return "";
    }
    // The block owns what its threads start with (a multiple of 8 each, at
    // most 248, of the 64K register file); the consumers get the most that
    // leaves after the producer's budget (setmaxnreg waits forever for
    // registers the block does not own).
    int64_t threads = 128 * (consumers + 1);
    int64_t start = std::min<int64_t>(248, 65536 / threads / 8 * 8);
    int64_t consumerRegisters =
        std::min<int64_t>(256, (start * threads - 128 * producerRegisters) /
                                   (128 * consumers) / 8 * 8);
    if (consumerRegisters < start)
      return "the register file leaves the consumers fewer registers than "
             "each thread starts with";

    MLIRContext *ctx = kernel.getContext();
    OpBuilder b(foreach);
    Location loc = foreach.getLoc();
    auto roles = WarpSpecializeOp::create(
        b, loc, b.getI32IntegerAttr(1), b.getI32IntegerAttr(consumers),
        b.getI32IntegerAttr(producerRegisters),
        b.getI32IntegerAttr(consumerRegisters));
    for (Region *region : {&roles.getProducer(), &roles.getConsumer()}) {
      Block *block = b.createBlock(region);
      b.setInsertionPointToEnd(block);
      YieldOp::create(b, loc);
    }

    // Consumers: the tile loop without its loads, split by rows.
    b.setInsertionPointToStart(&roles.getConsumer().front());
    Value wg = WarpgroupIdOp::create(b, loc);
    auto consumerLoop = cast<ForeachTileOp>(b.clone(*foreach));
    SmallVector<Operation *> loads;
    consumerLoop.walk([&](Operation *op) {
      if (op->hasAttr(kPrologueAttr) || op->hasAttr(kRefillAttr) ||
          op->hasAttr(kTileCopyAttr))
        loads.push_back(op);
    });
    for (Operation *op : loads)
      op->erase();
    if (std::string why = splitByRows(consumerLoop.getBody().front(), wg,
                                      consumers, mmaSplit == "contraction");
        !why.empty()) {
      roles.erase();
      return why;
    }

    privatizeBarriers(consumerLoop, wg);
    storeThroughShared(kernel, consumerLoop, wg, consumers);

    // Producer: the prologue's loop body run for every k-step.
    b.setInsertionPointToStart(&roles.getProducer().front());
    auto producerLoop = cast<ForeachTileOp>(b.clone(*foreach));
    Block &body = producerLoop.getBody().front();
    Operation *prologueCopy = nullptr, *loopCopy = nullptr;
    // The loads of per-tile buffers stay as they are (the producer is
    // warpgroup 0 of its role).
    SmallVector<Operation *> roots;
    for (Operation &op : body.getOperations()) {
      if (op.hasAttr(kPrologueAttr))
        prologueCopy = &op;
      if (op.hasAttr(kPipelinedAttr))
        loopCopy = &op;
      if (op.hasAttr(kTileCopyAttr))
        roots.push_back(&op);
    }
    auto pipelinedCopy = cast<scf::ForOp>(loopCopy);
    scf::ForOp prologueLoop;
    prologueCopy->walk([&](scf::ForOp f) { prologueLoop = f; });
    b.setInsertionPoint(pipelinedCopy);
    Value trips =
        tripCount(b, loc, pipelinedCopy.getLowerBound(),
                  pipelinedCopy.getUpperBound(), pipelinedCopy.getStep());
    auto loads2 = scf::ForOp::create(b, loc, constIndex(b, loc, 0), trips,
                                     constIndex(b, loc, 1));
    IRMapping map;
    map.map(prologueLoop.getInductionVar(), loads2.getInductionVar());
    b.setInsertionPoint(loads2.getBody()->getTerminator());
    for (Operation &op : prologueLoop.getBody()->without_terminator())
      b.clone(op, map);
    // Keep only what the loads need.
    roots.push_back(loads2);
    SmallVector<Operation *> keep = neededBy(body, roots);
    llvm::SmallPtrSet<Operation *, 32> kept(keep.begin(), keep.end());
    SmallVector<Operation *> drop;
    for (Operation &op : body.without_terminator())
      if (!kept.contains(&op))
        drop.push_back(&op);
    for (Operation *op : llvm::reverse(drop)) {
      op->dropAllUses();
      op->erase();
    }

    // A persistent grid keeps the ring's phases across tiles only when every
    // tile runs the same number of k-steps (bounds from outside the tile
    // loop); otherwise each block keeps its one tile.
    bool sameTrips = sameTripsPerTile(loop, foreach);
    foreach
      .erase();
    kernel.setWarpgroupsAttr(b.getI32IntegerAttr(consumers + 1));
    // Persistent when every tile runs the same number of steps (the ring
    // position follows from the tile iteration), or when the program asks
    // for it (`grid = persistent`; tile-pipeline's running sum of the trip
    // counts keeps the position). Otherwise one tile per block: a static
    // order balances tiles of different work worse than the hardware's
    // block scheduler (measured on causal attention).
    bool persistent = sameTrips || kernel.getGrid() == GridPolicy::persistent;
    if (sameTrips)
      for (ForeachTileOp tiles : {producerLoop, consumerLoop})
        if (group > 0 && tiles.getBounds().size() == 2 && !tiles.getGroup())
          tiles.setGroupAttr(b.getI64IntegerAttr(group));
    if (persistent)
      kernel.setGridAttr(GridPolicyAttr::get(ctx, GridPolicy::persistent));
    return "";
  }
};
} // namespace
