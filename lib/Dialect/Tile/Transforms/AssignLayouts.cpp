//===- AssignLayouts.cpp - Open layouts and swizzles from their uses ------===//
//
// Register values that must share a layout (an elementwise op's operands
// and result, a loop's init / region argument / yield / result, an mma's
// accumulator and result) are joined into classes, in program order. A
// class is fixed by an explicit layout, an mma result (#tile.mma_acc), a
// load from a view in fragment order (#tile.mma_acc on NVIDIA) or,
// after the joins, a register mma operand's need; where two fixed classes
// would join, the operand is converted instead (tile.convert_layout, with a
// remark). Tiles are decided first, then vectors, which follow the tiles
// they are reduced from or broadcast onto.
//
//===----------------------------------------------------------------------===//
#include "tk/Dialect/Tile/Transforms/Passes.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/Dialect/SCF/IR/SCF.h"

#include <functional>

namespace tk::tile {
#define GEN_PASS_DEF_TILEASSIGNLAYOUTS
#include "tk/Dialect/Tile/Transforms/Passes.h.inc"
} // namespace tk::tile

using namespace mlir;
using namespace tk::tile;

namespace {

/// Union-find over register values, each class with an optional fixed
/// layout, plus the conversions needed where fixed classes meet.
class LayoutClasses {
public:
  struct Conversion {
    Operation *user;
    unsigned operand;
    Attribute layout;
  };

  explicit LayoutClasses(bool vectors) : vectors(vectors) {}

  bool participates(Value v) const {
    Type type = v.getType();
    return vectors ? isa<RegVecType>(type) : isa<RegTileType>(type);
  }

  Value find(Value v) {
    auto it = parent.find(v);
    if (it == parent.end()) {
      parent[v] = v;
      if (auto layout = cast<RegisterType>(v.getType()).getLayout())
        fixed[v] = layout;
      return v;
    }
    if (it->second == v)
      return v;
    Value root = find(it->second);
    parent[v] = root;
    return root;
  }

  Attribute layoutOf(Value v) { return fixed.lookup(find(v)); }

  /// Fixes `v`'s class to `layout` unless it already has one.
  void pin(Value v, Attribute layout) {
    Value root = find(v);
    if (!fixed.lookup(root))
      fixed[root] = layout;
  }

  /// `user`'s operand `operand` must share a layout with `other`.
  void join(Operation *user, unsigned operand, Value other) {
    Value v = user->getOperand(operand);
    if (!participates(v) || !participates(other))
      return;
    Value a = find(v), b = find(other);
    if (a == b)
      return;
    Attribute la = fixed.lookup(a), lb = fixed.lookup(b);
    if (la && lb && la != lb) {
      conversions.push_back({user, operand, lb});
      return;
    }
    parent[a] = b;
    if (!lb)
      fixed[b] = la;
  }

  /// `user`'s operand `operand` needs `layout`.
  void require(Operation *user, unsigned operand, Attribute layout) {
    Value v = user->getOperand(operand);
    Attribute current = layoutOf(v);
    if (!current)
      pin(v, layout);
    else if (current != layout)
      conversions.push_back({user, operand, layout});
  }

  /// Two values that must have equal types (no conversion point between).
  void unite(Value a, Value b) {
    if (!participates(a) || !participates(b))
      return;
    Value ra = find(a), rb = find(b);
    if (ra == rb)
      return;
    Attribute la = fixed.lookup(ra);
    parent[ra] = rb;
    if (!fixed.lookup(rb))
      fixed[rb] = la;
  }

  SmallVector<Conversion> conversions;

private:
  bool vectors;
  llvm::DenseMap<Value, Value> parent;
  llvm::DenseMap<Value, Attribute> fixed;
};

/// Ops whose register operands and result share one layout.
bool isElementwise(Operation *op) {
  return isa<AddOp, SubOp, MulOp, DivOp, MaxOp, MinOp, NegOp, AbsOp, ExpOp,
             Exp2Op, LogOp, FmaOp, CastOp, CausalMaskOp, BoundMaskOp, CumsumOp>(
             op) ||
         op->hasTrait<OpTrait::SameOperandsAndResultType>();
}

/// Joins the classes the structure of `kernel` dictates.
void joinStructure(KernelOp kernel, LayoutClasses &classes) {
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (isElementwise(op)) {
      for (unsigned i = 0; i < op->getNumOperands(); ++i)
        classes.join(op, i, op->getResult(0));
    } else if (auto mma = dyn_cast<MmaOp>(op)) {
      if (mma.getAcc())
        classes.join(op, op->getNumOperands() - 1, mma.getResult());
    } else if (auto mma = dyn_cast<MmaAsyncOp>(op)) {
      if (mma.getAcc())
        classes.join(op, op->getNumOperands() - 1, mma.getResult());
    } else if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (auto [i, arg] : llvm::enumerate(loop.getRegionIterArgs())) {
        classes.join(op, loop.getNumControlOperands() + i, arg);
        classes.unite(arg, loop.getResult(i));
      }
    } else if (auto loop = dyn_cast<scf::WhileOp>(op)) {
      // Init → before-region argument; condition → after-region argument
      // and result; yield → before-region argument (below).
      for (auto [i, arg] : llvm::enumerate(loop.getBeforeArguments()))
        classes.join(op, i, arg);
      for (auto [i, arg] : llvm::enumerate(loop.getAfterArguments())) {
        classes.join(loop.getConditionOp(), i + 1, arg);
        classes.unite(arg, loop.getResult(i));
      }
    } else if (auto tiles = dyn_cast<ForeachTileOp>(op)) {
      unsigned first = tiles.getODSOperandIndexAndLength(2).first;
      for (auto [i, arg] : llvm::enumerate(tiles.getRegionIterArgs())) {
        classes.join(op, first + i, arg);
        classes.unite(arg, tiles.getResult(i));
      }
    } else if (isa<YieldOp>(op)) {
      if (auto tiles = dyn_cast<ForeachTileOp>(op->getParentOp()))
        for (unsigned i = 0; i < op->getNumOperands(); ++i)
          classes.join(op, i, tiles.getRegionIterArgs()[i]);
    } else if (auto yield = dyn_cast<scf::YieldOp>(op)) {
      Operation *parent = op->getParentOp();
      for (unsigned i = 0; i < op->getNumOperands(); ++i) {
        if (auto loop = dyn_cast<scf::ForOp>(parent))
          classes.join(op, i, loop.getRegionIterArgs()[i]);
        else if (auto loop = dyn_cast<scf::WhileOp>(parent))
          classes.join(op, i, loop.getBeforeArguments()[i]);
        else if (isa<scf::IfOp>(parent))
          classes.join(op, i, parent->getResult(i));
      }
    } else if (isa<RowMaxOp, RowSumOp, ColMaxOp, ColSumOp>(op)) {
      // The init vector (operand 1; a max's slack is a scalar after it).
      if (op->getNumOperands() >= 2 &&
          isa<RegisterType>(op->getOperand(1).getType()))
        classes.join(op, 1, op->getResult(0));
    }
    return WalkResult::advance();
  });
}

/// The layouts a target's MMAs fix: an mma's accumulator, a register
/// operand's need (null: none), and the layout of tiles nothing fixes (null:
/// left open).
struct MmaLayouts {
  std::function<Attribute(Operation *)> acc;
  std::function<Attribute(Operation *, bool isA)> operand;
  Attribute fallback;
  /// The layout of tiles read from a global view in fragment order (null:
  /// left open): the one whose threads each hold 16 contiguous bytes.
  Attribute fragmentOrder;
};

MmaForm formOf(Operation *op) {
  if (auto mma = dyn_cast<MmaOp>(op))
    return mma.getForm();
  return cast<MmaAsyncOp>(op).getForm();
}

/// NVIDIA: the wgmma accumulator, `#tile.row` / `#tile.col` register
/// operands (as the mma verifier requires), `#tile.row` elsewhere.
MmaLayouts nvidiaLayouts(MLIRContext *ctx) {
  MmaLayouts layouts;
  layouts.acc = [ctx](Operation *) { return MmaAccLayoutAttr::get(ctx); };
  layouts.operand = [ctx](Operation *op, bool isA) -> Attribute {
    MmaForm form = formOf(op);
    bool transposed = isA ? (form == MmaForm::AtB || form == MmaForm::AtBt)
                          : (form == MmaForm::ABt || form == MmaForm::AtBt);
    bool alongRows = isA ? transposed : !transposed;
    return alongRows ? Attribute(ColLayoutAttr::get(ctx))
                     : Attribute(RowLayoutAttr::get(ctx));
  };
  layouts.fallback = RowLayoutAttr::get(ctx);
  layouts.fragmentOrder = MmaAccLayoutAttr::get(ctx);
  return layouts;
}

/// AMD: the first of the target's MFMA shapes that tiles the mma (M, N, K)
/// (at warp and warpgroup scope, the rows of each wave's band: M / waves),
/// its `acc` / `a` / `b` fragments (operands in form AB; A also in ABt; a
/// transposed A, forms AtB and AtBt, only from LDS), and
/// the first mma's accumulator for tiles nothing fixes (wave64 has no other
/// register layout), or none without an mma. Block-scope mmas spread over
/// the kernel's waves as a grid: R x 1 (row bands) when the kernel reduces
/// or broadcasts along rows or columns, so those stay inside a wave; else
/// the R x C grid with the smallest per-wave rows + columns (the LDS bytes
/// each wave reads per k-step).
MmaLayouts amdLayouts(KernelOp kernel, const tk::TargetInfo &target) {
  MLIRContext *ctx = kernel.getContext();
  int64_t waves = kernel.getNumWarps();
  bool bands = false;
  kernel.walk([&](Operation *op) {
    bands |= isa<RowMaxOp, RowSumOp, ColMaxOp, ColSumOp, BroadcastOp>(op);
  });
  struct Choice {
    tk::MmaShape shape;
    int64_t gridRows = 0, gridCols = 0;
  };
  auto choose = [=, &target](Operation *op) -> std::optional<Choice> {
    auto d = cast<RegTileType>(op->getResult(0).getType());
    Type a = op->getOperand(0).getType();
    MmaForm form = formOf(op);
    bool aTransposed = form == MmaForm::AtB || form == MmaForm::AtBt;
    if (aTransposed && !isa<SharedTileType>(a))
      return std::nullopt;
    int64_t m = d.getShape()[0], n = d.getShape()[1];
    int64_t k = !isa<SharedTileType>(a) ? cast<RegisterType>(a).getShape()[1]
                : aTransposed           ? cast<SharedTileType>(a).getRows()
                                        : cast<SharedTileType>(a).getCols();
    for (const tk::MmaShape &shape : target.matrixShapes) {
      if (m % shape.m || n % shape.n || k % shape.k)
        continue;
      // A warp or warpgroup splits rows into bands, one per wave: each
      // band must hold whole atoms.
      if (d.getScope() != Scope::block) {
        if (m % (shape.m * getScopeWarps(d.getScope())) == 0)
          return Choice{shape};
        continue;
      }
      std::optional<Choice> best;
      for (int64_t r = 1; r <= waves; ++r) {
        int64_t c = waves / r;
        if (r * c != waves || (bands && c != 1) || m % (shape.m * r) ||
            n % (shape.n * c))
          continue;
        if (!best || m / r + n / c < m / best->gridRows + n / best->gridCols)
          best = Choice{shape, r, c};
      }
      if (best)
        return best;
    }
    return std::nullopt;
  };
  auto fragment = [ctx](const Choice &c, MfmaOperand operand) {
    return Attribute(MfmaLayoutAttr::get(ctx, c.shape.m, c.shape.n, c.shape.k,
                                         operand, c.gridRows, c.gridCols));
  };
  MmaLayouts layouts;
  layouts.acc = [=](Operation *op) -> Attribute {
    if (auto choice = choose(op))
      return fragment(*choice, MfmaOperand::acc);
    return {};
  };
  layouts.operand = [=](Operation *op, bool isA) -> Attribute {
    auto choice = choose(op);
    if (!choice || (!isA && formOf(op) != MmaForm::AB))
      return {};
    return fragment(*choice, isA ? MfmaOperand::a : MfmaOperand::b);
  };
  kernel.walk([&](Operation *op) {
    if (!layouts.fallback && isa<MmaOp, MmaAsyncOp>(op))
      layouts.fallback = layouts.acc(op);
  });
  return layouts;
}

void requireMmaOperands(Operation *mma, const MmaLayouts &layouts,
                        LayoutClasses &classes) {
  for (bool isA : {true, false}) {
    unsigned index = isA ? 0 : 1;
    if (!isa<RegTileType>(mma->getOperand(index).getType()))
      continue;
    if (Attribute layout = layouts.operand(mma, isA))
      classes.require(mma, index, layout);
  }
}

/// Why a register value of `type` in `kernel` cannot hold its layout, or "".
std::string checkFits(KernelOp kernel, RegisterType type) {
  unsigned warps = type.getScope() == Scope::block
                       ? kernel.getNumWarps()
                       : getScopeWarps(type.getScope());
  if (!warps)
    return "";
  FragmentMap map;
  std::string why;
  if (failed(getFragmentMap(type, warps, map, why)))
    return why.empty() ? "it does not fit" : why;
  return "";
}

/// Sets every open value's layout to its class's (or `fallback`), then
/// inserts the conversions. Changes nothing, with a remark, when a chosen
/// layout does not fit its value; returns whether it applied them.
bool apply(KernelOp kernel, LayoutClasses &classes, Attribute fallback) {
  SmallVector<std::pair<Value, Type>> assignments;
  std::string why;
  Operation *where = nullptr;
  auto plan = [&](Value v) {
    auto type = dyn_cast<RegisterType>(v.getType());
    if (!type || type.getLayout() || !classes.participates(v) || !why.empty())
      return;
    Attribute layout = classes.layoutOf(v);
    if (!layout) {
      if (!fallback)
        return; // nothing fixes it and the target has no default: open
      classes.pin(v, fallback);
      layout = fallback;
    }
    // The type's verifier names the layout; checkFits does not.
    RegisterType chosen =
        cloneWithChecked(type, type.getElementType(), layout, why);
    if (chosen && !(why = checkFits(kernel, chosen)).empty())
      llvm::raw_string_ostream(why) << " (layout " << layout << ")";
    if (!why.empty()) {
      where = v.getParentBlock()->getParentOp();
      if (Operation *def = v.getDefiningOp())
        where = def;
      return;
    }
    assignments.push_back({v, chosen});
  };
  kernel.walk<WalkOrder::PreOrder>([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument arg : block.getArguments())
          plan(arg);
    for (Value result : op->getResults())
      plan(result);
  });
  // Each conversion's target type must exist before anything changes.
  for (const auto &c : classes.conversions) {
    if (!why.empty())
      break;
    auto type = cast<RegisterType>(c.user->getOperand(c.operand).getType());
    if (!cloneWithChecked(type, type.getElementType(), c.layout, why))
      where = c.user;
  }
  if (!why.empty()) {
    where->emitRemark("register layouts left open: ") << why;
    return false;
  }
  for (auto [value, type] : assignments)
    value.setType(type);
  for (const auto &c : classes.conversions) {
    Value v = c.user->getOperand(c.operand);
    auto type = cast<RegisterType>(v.getType());
    OpBuilder b(c.user);
    auto convert = ConvertLayoutOp::create(
        b, c.user->getLoc(), type.cloneWith(type.getElementType(), c.layout),
        v);
    c.user->setOperand(c.operand, convert);
    c.user->emitRemark("layout conversion inserted for operand #")
        << c.operand << ": " << type.getLayout() << " to " << c.layout;
  }
  return true;
}

bool assignTileLayouts(KernelOp kernel, const MmaLayouts &layouts) {
  LayoutClasses tiles(/*vectors=*/false);
  kernel.walk([&](Operation *op) {
    if (isa<MmaOp, MmaAsyncOp>(op) &&
        isa<RegTileType>(op->getResult(0).getType()))
      if (Attribute acc = layouts.acc(op))
        tiles.pin(op->getResult(0), acc);
    // A tile read from a view in fragment order takes the accumulator's
    // layout, in which each thread's four elements of an 8-column group are
    // adjacent in memory.
    if (auto load = dyn_cast<LoadOp>(op); load && layouts.fragmentOrder)
      if (auto view = dyn_cast<GlobalType>(load.getSrc().getType());
          view && view.getFragments() &&
          isa<RegTileType>(load.getResult().getType()))
        tiles.pin(load.getResult(), layouts.fragmentOrder);
  });
  joinStructure(kernel, tiles);
  kernel.walk([&](Operation *op) {
    if (isa<MmaOp, MmaAsyncOp>(op))
      requireMmaOperands(op, layouts, tiles);
  });
  return apply(kernel, tiles, layouts.fallback);
}

/// `#tile.vec<axis, L>` of `tile`'s layout, or null while it is open.
Attribute vecOf(Value tile, Axis axis) {
  auto layout = dyn_cast_or_null<LayoutAttrInterface>(
      cast<RegTileType>(tile.getType()).getLayout());
  if (!layout)
    return {};
  return VecLayoutAttr::get(tile.getContext(), axis, layout);
}

void assignVectorLayouts(KernelOp kernel, Attribute tileFallback) {
  MLIRContext *ctx = kernel.getContext();
  LayoutClasses vectors(/*vectors=*/true);
  kernel.walk([&](Operation *op) {
    Attribute layout;
    if (isa<RowMaxOp, RowSumOp>(op))
      layout = vecOf(op->getOperand(0), Axis::row);
    else if (isa<ColMaxOp, ColSumOp>(op))
      layout = vecOf(op->getOperand(0), Axis::col);
    if (layout)
      vectors.pin(op->getResult(0), layout);
  });
  joinStructure(kernel, vectors);
  kernel.walk([&](BroadcastOp op) {
    if (Attribute layout = vecOf(op.getResult(), op.getAxis()))
      vectors.require(op, 0, layout);
  });
  Attribute fallback;
  if (auto parent = dyn_cast_or_null<LayoutAttrInterface>(tileFallback))
    fallback = VecLayoutAttr::get(ctx, Axis::row, parent);
  apply(kernel, vectors, fallback);
}

/// The widest swizzle that a tile of this shape and each of its subtiles
/// (`parts`: a column slice must be whole swizzle atoms) take, else none.
SwizzleAttr chooseSwizzle(SharedTileType type, ArrayRef<SharedTileType> parts) {
  MLIRContext *ctx = type.getContext();
  int64_t elemBytes =
      std::max<int64_t>(1, type.getElementType().getIntOrFloatBitWidth() / 8);
  for (unsigned bytes : {128u, 64u, 32u}) {
    auto swizzle = SwizzleAttr::get(ctx, bytes);
    auto fits = [&](SharedTileType t) {
      return swizzle.checkShape(t.getRows(), t.getCols(), elemBytes).empty();
    };
    if (fits(type) && llvm::all_of(parts, fits))
      return swizzle;
  }
  return SwizzleAttr::get(ctx, 0);
}

/// The subtiles taken of `tile`, through slots and subtiles of subtiles.
void collectSubtiles(Value tile, SmallVectorImpl<SharedTileType> &parts) {
  for (Operation *user : tile.getUsers()) {
    if (auto subtile = dyn_cast<SubtileOp>(user)) {
      if (auto type = dyn_cast<SharedTileType>(subtile.getType()))
        parts.push_back(type);
      collectSubtiles(subtile.getResult(), parts);
    } else if (auto slot = dyn_cast<SlotOp>(user)) {
      collectSubtiles(slot.getResult(), parts);
    }
  }
}

void assignSwizzles(KernelOp kernel) {
  for (AllocOp alloc : kernel.getBody().getOps<AllocOp>()) {
    auto type = dyn_cast<SharedTileType>(alloc.getType());
    if (!type || type.getSwizzle())
      continue;
    SmallVector<SharedTileType> parts;
    collectSubtiles(alloc.getResult(), parts);
    alloc.getResult().setType(
        SharedTileType::get(type.getContext(), type.getShape(),
                            type.getElementType(), chooseSwizzle(type, parts)));
  }
  // Slots and subtiles follow their source.
  kernel.walk([&](Operation *op) {
    Value source, result;
    if (auto slot = dyn_cast<SlotOp>(op)) {
      source = slot.getRing();
      result = slot.getResult();
    } else if (auto subtile = dyn_cast<SubtileOp>(op)) {
      source = subtile.getSource();
      result = subtile.getResult();
    } else {
      return;
    }
    auto from = dyn_cast<SharedTileType>(source.getType());
    auto to = dyn_cast<SharedTileType>(result.getType());
    if (from && to && to.getSwizzle() != from.getSwizzle())
      result.setType(SharedTileType::get(to.getContext(), to.getShape(),
                                         to.getElementType(),
                                         from.getSwizzle()));
  });
}

struct AssignLayoutsPass
    : public tk::tile::impl::TileAssignLayoutsBase<AssignLayoutsPass> {
  void runOnOperation() override {
    KernelOp kernel = getOperation();
    const tk::TargetInfo &target = getTargetInfo(kernel);
    // The XOR swizzles serve both targets: on NVIDIA they are what TMA and
    // wgmma expect; on AMD they spread one MFMA operand read (a column of
    // 16-byte chunks down consecutive rows) over the LDS banks.
    assignSwizzles(kernel);
    MmaLayouts layouts = target.vendor == tk::Vendor::nvidia
                             ? nvidiaLayouts(kernel.getContext())
                             : amdLayouts(kernel, target);
    // Vectors follow their tiles' layouts, so only once those are set.
    if (assignTileLayouts(kernel, layouts))
      assignVectorLayouts(kernel, layouts.fallback);
  }
};
} // namespace
