//===- StructureOps.cpp - Kernels, tile loops and warp roles --------------===//
#include "tk/Dialect/Tile/IR/TileOps.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/FunctionImplementation.h"

using namespace mlir;
using namespace tk::tile;

const tk::TargetInfo &tk::tile::getTargetInfo(Operation *op) {
  for (Operation *cur = op; cur; cur = cur->getParentOp())
    if (auto name =
            cur->getAttrOfType<StringAttr>(TileDialect::getTargetAttrName()))
      if (const TargetInfo *target = lookupTarget(name.getValue()))
        return *target;
  return getTargets().front();
}

//===----------------------------------------------------------------------===//
// KernelOp
//===----------------------------------------------------------------------===//

static ParseResult parseLaunchClause(OpAsmParser &parser,
                                     OperationState &result) {
  Builder &builder = parser.getBuilder();
  auto parseEntry = [&]() -> ParseResult {
    StringRef key;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return failure();
    if (key == "warpgroups") {
      int32_t count;
      if (parser.parseInteger(count))
        return failure();
      result.addAttribute("warpgroups", builder.getI32IntegerAttr(count));
      return success();
    }
    if (key == "grid") {
      StringRef policy;
      SMLoc policyLoc = parser.getCurrentLocation();
      if (parser.parseKeyword(&policy))
        return failure();
      std::optional<GridPolicy> grid = symbolizeGridPolicy(policy);
      if (!grid)
        return parser.emitError(policyLoc, "expected grid policy 'tiles' or "
                                           "'persistent', got '")
               << policy << "'";
      result.addAttribute("grid",
                          GridPolicyAttr::get(builder.getContext(), *grid));
      return success();
    }
    if (key == "cluster") {
      SmallVector<int32_t, 3> dims;
      if (parser.parseCommaSeparatedList(
              AsmParser::Delimiter::Square, [&]() -> ParseResult {
                return parser.parseInteger(dims.emplace_back());
              }))
        return failure();
      result.addAttribute("cluster", builder.getDenseI32ArrayAttr(dims));
      return success();
    }
    if (key == "blocks_per_sm") {
      int32_t count;
      if (parser.parseInteger(count))
        return failure();
      result.addAttribute("blocks_per_sm", builder.getI32IntegerAttr(count));
      return success();
    }
    return parser.emitError(loc, "unknown launch parameter '")
           << key << "'; expected warpgroups, grid, cluster or blocks_per_sm";
  };
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren,
                                        parseEntry);
}

ParseResult KernelOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  StringAttr name;
  if (parser.parseSymbolName(name, getSymNameAttrName(result.name),
                             result.attributes))
    return failure();
  SmallVector<OpAsmParser::Argument> args;
  SmallVector<Type> resultTypes;
  SmallVector<DictionaryAttr> resultAttrs;
  bool isVariadic = false;
  SMLoc signatureLoc = parser.getCurrentLocation();
  if (function_interface_impl::parseFunctionSignatureWithArguments(
          parser, /*allowVariadic=*/false, args, isVariadic, resultTypes,
          resultAttrs))
    return failure();
  if (!resultTypes.empty())
    return parser.emitError(signatureLoc, "kernels return no values");
  SmallVector<Type> argTypes;
  for (OpAsmParser::Argument &arg : args)
    argTypes.push_back(arg.type);
  result.addAttribute(
      getFunctionTypeAttrName(result.name),
      TypeAttr::get(builder.getFunctionType(argTypes, resultTypes)));
  if (succeeded(parser.parseOptionalKeyword("launch")) &&
      parseLaunchClause(parser, result))
    return failure();
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  call_interface_impl::addArgAndResultAttrs(builder, result, args, resultAttrs,
                                            getArgAttrsAttrName(result.name),
                                            getResAttrsAttrName(result.name));
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, args))
    return failure();
  ensureTerminator(*body, builder, result.location);
  return success();
}

void KernelOp::print(OpAsmPrinter &p) {
  p << ' ';
  p.printSymbolName(getSymName());
  function_interface_impl::printFunctionSignature(
      p, *this, getArgumentTypes(), /*isVariadic=*/false, getResultTypes());
  SmallVector<std::string> launch;
  if (auto warpgroups = getWarpgroups())
    launch.push_back("warpgroups = " + std::to_string(*warpgroups));
  if (getGrid() != GridPolicy::tiles)
    launch.push_back("grid = " + stringifyGridPolicy(getGrid()).str());
  if (auto cluster = getCluster()) {
    std::string dims;
    for (int32_t dim : *cluster)
      dims += (dims.empty() ? "" : ", ") + std::to_string(dim);
    launch.push_back("cluster = [" + dims + "]");
  }
  if (auto blocks = getBlocksPerSm())
    launch.push_back("blocks_per_sm = " + std::to_string(*blocks));
  if (!launch.empty()) {
    p << " launch(";
    llvm::interleaveComma(launch, p);
    p << ")";
  }
  function_interface_impl::printFunctionAttributes(
      p, *this,
      {getSymNameAttrName(), getFunctionTypeAttrName(), getArgAttrsAttrName(),
       getResAttrsAttrName(), getWarpgroupsAttrName(), getGridAttrName(),
       getClusterAttrName(), getBlocksPerSmAttrName()});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

static int64_t alignTo(int64_t value, int64_t align) {
  return (value + align - 1) / align * align;
}

/// 1 when `op` is in the communicate region of a tile.block_roles, 2 in its
/// compute region, 0 elsewhere.
static int roleRegionOf(Operation *op) {
  for (Region *region = op->getParentRegion(); region;
       region = region->getParentRegion())
    if (auto roles = dyn_cast<BlockRolesOp>(region->getParentOp()))
      return region == &roles.getCommunicate() ? 1 : 2;
  return 0;
}

/// The role region (as roleRegionOf) every use of a shared buffer is in,
/// through the slots and subtiles taken of it; 0 when used elsewhere or in
/// both.
static int roleOfBuffer(AllocOp alloc) {
  int role = -1;
  SmallVector<Value> values{alloc.getResult()};
  while (!values.empty()) {
    Value value = values.pop_back_val();
    for (Operation *user : value.getUsers()) {
      int region = roleRegionOf(user);
      if (region == 0 && isa<SlotOp, SubtileOp>(user)) {
        values.push_back(user->getResult(0));
        continue;
      }
      if (region == 0 || (role != -1 && role != region))
        return 0;
      role = region;
    }
  }
  return role == -1 ? 0 : role;
}

int64_t KernelOp::getSharedMemoryBytes(
    llvm::function_ref<void(AllocOp, int64_t)> onAlloc, int64_t *queueOffset) {
  // Under grid-level roles a block runs one role region only: the buffers
  // only the communicate region uses and those only the compute region uses
  // share the space after the others (semaphores never do: every block
  // initialises all of them).
  bool roles = !getBody().getOps<BlockRolesOp>().empty();
  SmallVector<std::pair<AllocOp, int>> allocs;
  for (auto alloc : getBody().getOps<AllocOp>())
    allocs.push_back({alloc, roles && !isa<SemType>(alloc.getType())
                                 ? roleOfBuffer(alloc)
                                 : 0});
  int64_t ends[3] = {0, 0, 0};
  for (int pass = 0; pass < 3; ++pass) {
    int64_t &bytes = ends[pass];
    if (pass > 0)
      bytes = ends[0];
    for (auto [alloc, role] : allocs) {
      if (role != pass)
        continue;
      Type type = alloc.getType();
      int64_t size = 0;
      if (auto tile = dyn_cast<SharedTileType>(type)) {
        // Swizzled tiles need 1024-byte alignment for TMA and wgmma.
        bytes = alignTo(bytes, 1024);
        size = tile.getBytes();
      } else if (auto vec = dyn_cast<SharedVecType>(type)) {
        // TMA writes vectors too: 128-byte aligned.
        bytes = alignTo(bytes, 128);
        size = vec.getBytes();
      } else if (auto sem = dyn_cast<SemType>(type)) {
        bytes = alignTo(bytes, 8);
        size = 8 * sem.getCount();
      }
      if (onAlloc)
        onAlloc(alloc, bytes);
      bytes += size;
    }
  }
  int64_t bytes = std::max({ends[0], ends[1], ends[2]});
  if (queueOffset)
    *queueOffset = -1;
  if (hasDynamicTiles()) {
    bytes = alignTo(bytes, 8);
    if (queueOffset)
      *queueOffset = bytes;
    bytes += kTileQueueBytes;
  }
  return bytes;
}

bool tk::tile::inCommunicateRegion(Operation *op) {
  return roleRegionOf(op) == 1;
}

ProducerWalk tk::tile::producerWalk(WarpSpecializeOp op) {
  ProducerWalk walk;
  op.getProducer().walk([&](Operation *inner) {
    walk.walks |= isa<ForeachTileOp>(inner);
    if (!walk.sync &&
        isa<BarrierOp, SemArriveOp, SignalAddOp, SignalWaitOp, DeviceBarrierOp>(
            inner))
      walk.sync = inner;
    // One thread issues the copies and the expected bytes; every thread
    // computes the same addresses, coordinates and waits (a counter wait:
    // one thread polls, the warp follows).
    if (!walk.allWarps && isa_and_present<TileDialect>(inner->getDialect()) &&
        !isa<LoadAsyncOp, SemExpectOp, SemWaitOp, SignalWaitOp, SlotOp,
             SubtileOp, DimOp, ForeachTileOp, YieldOp, PrefixSumOp,
             ClusterRankOp, WarpgroupIdOp>(inner))
      walk.allWarps = inner;
  });
  return walk;
}

bool KernelOp::hasDynamicTiles() {
  bool dynamic = false;
  walk([&](ForeachTileOp op) { dynamic |= op.getDynamic(); });
  return dynamic;
}

bool KernelOp::hasTableTiles() {
  bool table = false;
  walk([&](ForeachTileOp op) { table |= op.getTable(); });
  return table;
}

unsigned KernelOp::getNumWarps() {
  return getWarpgroups() ? 4 * *getWarpgroups() : 0;
}

int64_t KernelOp::getBlocksPerMultiprocessor() {
  auto blocks = getBlocksPerSm();
  if (!blocks || *blocks < 1 ||
      getTargetInfo(*this).vendor != tk::Vendor::nvidia)
    return 1;
  return *blocks;
}

int64_t KernelOp::getSharedMemoryBudget() {
  const TargetInfo &target = getTargetInfo(*this);
  int64_t blocks = getBlocksPerMultiprocessor();
  if (blocks == 1)
    return target.sharedMemoryBytes;
  int64_t perBlock = target.sharedMemoryBytes + target.sharedMemorySlack +
                     kReservedSharedMemoryPerBlock;
  return perBlock / blocks - kReservedSharedMemoryPerBlock -
         target.sharedMemorySlack;
}

int64_t KernelOp::getStartRegisters(int64_t threads) {
  int64_t perBlock = 65536 / getBlocksPerMultiprocessor();
  return std::min<int64_t>(248,
                           perBlock / std::max<int64_t>(threads, 1) / 8 * 8);
}

int64_t KernelOp::getClusterBlocks() {
  int64_t blocks = 1;
  if (auto dims = getCluster())
    for (int32_t dim : *dims)
      // Saturate: anything past 16 is rejected, and this cannot overflow.
      blocks = std::min<int64_t>(blocks * std::max<int32_t>(dim, 1), 1 << 20);
  return blocks;
}

LogicalResult KernelOp::verify() {
  const TargetInfo &target = getTargetInfo(*this);
  if (!getResultTypes().empty())
    return emitOpError("kernels return no values");
  for (auto [i, type] : llvm::enumerate(getArgumentTypes()))
    if (!isa<GlobalType, IntegerType, IndexType, FloatType>(type))
      return emitOpError("parameter #")
             << i << " must be a global view or a scalar (integer, index or "
             << "float), got " << type;
  if (IntegerAttr attr = getWarpgroupsAttr()) {
    int64_t warpgroups = attr.getValue().getSExtValue();
    if (warpgroups < 1 || warpgroups > int64_t(target.maxWarpgroups()))
      return emitOpError("launches ")
             << warpgroups << " warpgroups; " << target.name << " allows 1 to "
             << target.maxWarpgroups();
  }
  if (auto cluster = getCluster()) {
    if (cluster->empty() || cluster->size() > 3)
      return emitOpError("cluster shape must have 1 to 3 dimensions, got ")
             << cluster->size();
    for (int32_t dim : *cluster)
      if (dim < 1)
        return emitOpError("cluster dimensions must be positive, got ") << dim;
    int64_t blocks = getClusterBlocks();
    if (blocks > 1 && target.vendor != Vendor::nvidia)
      return emitOpError("thread-block clusters need an NVIDIA target, not ")
             << target.name;
    if (blocks > 16)
      return emitOpError("cluster of ")
             << (blocks == (1 << 20) ? "more than a million"
                                     : std::to_string(blocks))
             << " blocks exceeds the 16 that " << target.name << " allows";
  }
  // Read signed: the I32Attr getter's uint32_t would turn -1 into 4294967295.
  if (IntegerAttr attr = getBlocksPerSmAttr()) {
    int64_t blocks = attr.getInt();
    if (blocks < 1 || blocks > 32)
      return emitOpError("blocks_per_sm must be in [1, 32], got ") << blocks;
    int64_t threads =
        4 * int64_t(target.warpSize) * getWarpgroups().value_or(0);
    if (target.vendor == Vendor::nvidia && threads * blocks > 2048)
      return emitOpError("runs ")
             << blocks << " blocks of " << threads
             << " threads per multiprocessor; " << target.name
             << " holds at most 2048 threads on one";
  }
  return success();
}

/// Checks register values against what only the kernel knows: the warps of
/// a block, the target's warp size and matrix shapes, and which region runs
/// on part of the block.
static LogicalResult verifyRegisterValue(Operation *op, Value value,
                                         KernelOp kernel,
                                         const tk::TargetInfo &target) {
  auto type = dyn_cast<RegisterType>(value.getType());
  if (!type)
    return success();
  bool inRole = op->getParentOfType<WarpSpecializeOp>() != nullptr;
  if (type.getScope() == Scope::block && inRole)
    return op->emitOpError("produces a block-scope value inside a "
                           "warp-specialized region, which runs on part of "
                           "the block; use warpgroup or warp scope");
  auto layout = dyn_cast_or_null<LayoutAttrInterface>(type.getLayout());
  if (!layout)
    return success();
  if (layout.getLanes() != target.warpSize)
    return op->emitOpError("uses layout ")
           << type.getLayout() << " for " << layout.getLanes()
           << "-lane warps, but " << target.name << " has " << target.warpSize
           << "-lane warps";
  Attribute base = type.getLayout();
  if (auto vec = dyn_cast<VecLayoutAttr>(base))
    base = vec.getParent();
  if (auto mfma = dyn_cast<MfmaLayoutAttr>(base))
    if (!target.hasMatrixShape(mfma.getM(), mfma.getN(), mfma.getK()))
      return op->emitOpError("uses ")
             << base << ", but " << target.name << " has no " << mfma.getM()
             << "x" << mfma.getN() << "x" << mfma.getK() << " MFMA";
  if (type.getScope() == Scope::block && kernel.getNumWarps()) {
    FragmentMap map;
    std::string why;
    if (failed(getFragmentMap(type, kernel.getNumWarps(), map, why)))
      return op->emitOpError("result layout ")
             << type.getLayout() << " does not fit the block's "
             << kernel.getNumWarps() << " warps: " << why;
  }
  return success();
}

LogicalResult KernelOp::verifyRegions() {
  const TargetInfo &target = getTargetInfo(*this);
  int64_t bytes = getSharedMemoryBytes();
  // On AMD the scheduling passes may move shared tiles into registers, so
  // the LDS budget is checked by the lowering, after them.
  int64_t budget = getSharedMemoryBudget();
  if (target.vendor == tk::Vendor::nvidia && bytes > budget) {
    InFlightDiagnostic diag = emitOpError("allocates ")
                              << bytes << " bytes of shared memory; "
                              << target.name << " allows at most " << budget;
    if (int64_t blocks = getBlocksPerMultiprocessor(); blocks > 1)
      diag << " per block with " << blocks << " blocks per multiprocessor";
    return diag;
  }
  WalkResult walk = getBody().walk([&](Operation *op) {
    for (Value result : op->getResults())
      if (failed(verifyRegisterValue(op, result, *this, target)))
        return WalkResult::interrupt();
    // The lowering gives each view parameter its pointer, shape and tensor
    // maps; a view chosen, carried or yielded at run time has none.
    auto isView = [](Value v) { return isa<GlobalType>(v.getType()); };
    bool viewArg = llvm::any_of(op->getRegions(), [&](Region &region) {
      return llvm::any_of(region.getArguments(), isView);
    });
    if (llvm::any_of(op->getResults(), isView) || viewArg) {
      op->emitOpError("makes a global view; views are only the kernel's "
                      "parameters (branch around their uses to choose one)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

//===----------------------------------------------------------------------===//
// ForeachTileOp
//===----------------------------------------------------------------------===//

ParseResult ForeachTileOp::parse(OpAsmParser &parser, OperationState &result) {
  SmallVector<OpAsmParser::Argument> ivs;
  SmallVector<OpAsmParser::UnresolvedOperand> bounds;
  Type index = parser.getBuilder().getIndexType();
  if (parser.parseArgumentList(ivs, AsmParser::Delimiter::Paren) ||
      parser.parseKeyword("in") ||
      parser.parseOperandList(bounds, AsmParser::Delimiter::Paren) ||
      parser.resolveOperands(bounds, index, result.operands))
    return failure();
  if (succeeded(parser.parseOptionalKeyword("group"))) {
    int64_t group = 0;
    if (parser.parseInteger(group))
      return failure();
    result.addAttribute("group", parser.getBuilder().getI64IntegerAttr(group));
  }
  if (succeeded(parser.parseOptionalKeyword("snake")))
    result.addAttribute("snake", parser.getBuilder().getUnitAttr());
  if (succeeded(parser.parseOptionalKeyword("dynamic")))
    result.addAttribute("dynamic", parser.getBuilder().getUnitAttr());
  if (succeeded(parser.parseOptionalKeyword("table")))
    result.addAttribute("table", parser.getBuilder().getUnitAttr());
  int32_t kSteps = 0;
  if (succeeded(parser.parseOptionalKeyword("stream_k"))) {
    OpAsmParser::UnresolvedOperand steps;
    if (parser.parseLParen() || parser.parseArgument(ivs.emplace_back()) ||
        parser.parseComma() || parser.parseArgument(ivs.emplace_back()) ||
        parser.parseComma() || parser.parseArgument(ivs.emplace_back()) ||
        parser.parseRParen() || parser.parseKeyword("of") ||
        parser.parseOperand(steps) ||
        parser.resolveOperand(steps, index, result.operands))
      return failure();
    kSteps = 1;
  }
  bool namedIteration = succeeded(parser.parseOptionalKeyword("iteration"));
  if (namedIteration &&
      (parser.parseLParen() || parser.parseArgument(ivs.emplace_back()) ||
       parser.parseRParen()))
    return failure();
  for (OpAsmParser::Argument &iv : ivs)
    iv.type = index;
  // The iteration count follows the coordinates (and the stream-K
  // arguments); the carried values come after it.
  size_t iterationArg = ivs.size() - (namedIteration ? 1 : 0);
  SmallVector<OpAsmParser::Argument> carried;
  SmallVector<OpAsmParser::UnresolvedOperand> inits;
  if (succeeded(parser.parseOptionalKeyword("iter_args"))) {
    SMLoc initsLoc = parser.getCurrentLocation();
    if (parser.parseAssignmentList(carried, inits) ||
        parser.parseArrowTypeList(result.types))
      return failure();
    if (carried.size() != result.types.size())
      return parser.emitError(initsLoc, "expected ")
             << carried.size() << " types after '->', got "
             << result.types.size();
    for (auto [arg, type] : llvm::zip(carried, result.types))
      arg.type = type;
    if (parser.resolveOperands(inits, result.types, initsLoc, result.operands))
      return failure();
  }
  result.addAttribute(
      "operandSegmentSizes",
      parser.getBuilder().getDenseI32ArrayAttr(
          {int32_t(bounds.size()), kSteps, int32_t(inits.size())}));
  if (parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  llvm::append_range(ivs, carried);
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, ivs))
    return failure();
  ensureTerminator(*body, parser.getBuilder(), result.location);
  if (!namedIteration)
    body->front().insertArgument(iterationArg, index, result.location);
  return success();
}

void ForeachTileOp::print(OpAsmPrinter &p) {
  p << " (";
  llvm::interleaveComma(getCoordinates(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") in (" << getBounds() << ")";
  if (auto group = getGroup())
    p << " group " << *group;
  if (getSnake())
    p << " snake";
  if (getDynamic())
    p << " dynamic";
  if (getTable())
    p << " table";
  if (Value steps = getKSteps()) {
    p << " stream_k(";
    llvm::interleaveComma(getStreamKArguments(), p,
                          [&](BlockArgument arg) { p.printOperand(arg); });
    p << ") of " << steps;
  }
  if (!getIteration().use_empty()) {
    p << " iteration(";
    p.printOperand(getIteration());
    p << ")";
  }
  if (!getInits().empty()) {
    p << " iter_args(";
    llvm::interleaveComma(llvm::zip(getRegionIterArgs(), getInits()), p,
                          [&](auto pair) {
                            p.printOperand(std::get<0>(pair));
                            p << " = ";
                            p.printOperand(std::get<1>(pair));
                          });
    p << ") -> (" << getResultTypes() << ")";
  }
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getGroupAttrName(), getSnakeAttrName(),
                                      getDynamicAttrName(), getTableAttrName(),
                                      "operandSegmentSizes"});
  p << ' ';
  p.printRegion(getBody(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/!getInits().empty());
}

LogicalResult ForeachTileOp::verify() {
  size_t rank = getBounds().size();
  if (rank < 1 || rank > 3)
    return emitOpError("tile space must have 1 to 3 dimensions, got ") << rank;
  size_t split = getKSteps() ? 3 : 0;
  size_t carried = getInits().size();
  if (getBody().getNumArguments() != rank + split + 1 + carried ||
      llvm::any_of(getBody().getArguments().take_front(rank + split + 1),
                   [](BlockArgument arg) { return !arg.getType().isIndex(); }))
    return emitOpError("body must take ")
           << rank << " index coordinates"
           << (split ? ", the unit's k-step range and split slot" : "")
           << " and the index iteration count for a " << rank << "-d tile space"
           << (carried ? ", then the carried values" : "");
  if (getNumResults() != carried)
    return emitOpError("has ")
           << carried << " iter_args but " << getNumResults() << " results";
  for (auto [i, init, arg, res] : llvm::enumerate(
           getInits().getTypes(), getRegionIterArgs(), getResultTypes()))
    if (init != arg.getType() || init != res)
      return emitOpError("iter_args #")
             << i << " has type " << init << " but its body argument has "
             << arg.getType() << " and its result " << res;
  auto yield = cast<YieldOp>(getBody().front().getTerminator());
  if (yield.getValues().getTypes() != getResultTypes())
    return yield.emitOpError("must give the ")
           << carried << " carried values of the tile loop ("
           << getResultTypes() << "), got (" << yield.getValues().getTypes()
           << ")";
  if (auto group = getGroup()) {
    if (*group < 1)
      return emitOpError("group must be positive, got ") << *group;
    // The walk multiplies the group by the tile columns in 64 bits; a bound
    // far above any useful group keeps that product from wrapping (to 0, a
    // division by zero on the GPU) for any real tile count.
    if (*group > kMaxTileGroup)
      return emitOpError("group must be at most ")
             << kMaxTileGroup << " tile rows, got " << *group;
    if (rank != 2)
      return emitOpError("group ordering needs a 2-d tile space, got ")
             << rank << " dimensions";
  }
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError("must be inside a 'tile.kernel'");
  if ((*this)->getParentOfType<ForeachTileOp>())
    return emitOpError("cannot be nested in another 'tile.foreach_tile'");
  if (getKSteps() && getSnake())
    return emitOpError("snake and stream_k cannot be combined (stream-K "
                       "deals out its own order)");
  if (getKSteps() && clusterBlocks(*this) > 1)
    return emitOpError("stream_k is not supported in cluster kernels (the "
                       "unit of work is the cluster there)");
  if (getDynamic()) {
    if (getSnake() || getKSteps())
      return emitOpError("dynamic cannot be combined with ")
             << (getSnake() ? "snake" : "stream_k")
             << " (blocks take the tiles in order as they ask)";
    if (clusterBlocks(*this) > 1)
      return emitOpError("dynamic is not supported in cluster kernels");
    Operation *parent = (*this)->getParentOp();
    if (!isa<KernelOp, WarpSpecializeOp>(parent))
      return emitOpError("dynamic needs the tile loop directly in the kernel "
                         "or in a 'tile.warp_specialize' role (every thread "
                         "of the block takes part in passing tiles on)");
  }
  if (getTable()) {
    if (getSnake() || getDynamic() || getKSteps())
      return emitOpError("table cannot be combined with ")
             << (getSnake()     ? "snake"
                 : getDynamic() ? "dynamic"
                                : "stream_k")
             << " (the launcher's table sets the order)";
    if (clusterBlocks(*this) > 1)
      return emitOpError("table is not supported in cluster kernels");
  }
  // (Reported on the loops without it.)
  auto kernel = (*this)->getParentOfType<KernelOp>();
  if (!getDynamic() && kernel.hasDynamicTiles())
    return emitOpError("'dynamic' must be on every 'tile.foreach_tile' of the "
                       "kernel or on none (its roles walk the same tiles)");
  if (!getTable() && kernel.hasTableTiles())
    return emitOpError("'table' must be on every 'tile.foreach_tile' of the "
                       "kernel or on none (its roles walk the same tiles)");
  if (getTable() && kernel.getGrid() != GridPolicy::persistent)
    return emitOpError("table needs a persistent grid (grid = tiles runs "
                       "one tile per block)");
  return success();
}

//===----------------------------------------------------------------------===//
// YieldOp
//===----------------------------------------------------------------------===//

// (A tile loop checks its yield's values against its results.)
LogicalResult YieldOp::verify() {
  if (isa<WarpSpecializeOp>((*this)->getParentOp()) && !getValues().empty())
    return emitOpError("ends a warp role, which carries no values; got ")
           << getValues().size();
  if (isa<BlockRolesOp>((*this)->getParentOp()) && !getValues().empty())
    return emitOpError("ends a block role, which carries no values; got ")
           << getValues().size();
  return success();
}

//===----------------------------------------------------------------------===//
// WarpSpecializeOp
//===----------------------------------------------------------------------===//

static ParseResult parseRole(OpAsmParser &parser, OperationState &result,
                             StringRef role, Region &region) {
  Builder &builder = parser.getBuilder();
  bool sawWarpgroups = false;
  SMLoc roleLoc = parser.getCurrentLocation();
  auto parseEntry = [&]() -> ParseResult {
    StringRef key;
    int32_t value;
    SMLoc loc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual() ||
        parser.parseInteger(value))
      return failure();
    bool stagger = key == "stagger" && role == "consumer";
    if (key != "warpgroups" && key != "registers" && !stagger)
      return parser.emitError(loc, "unknown ")
             << role << " role parameter '" << key
             << "'; expected warpgroups or registers"
             << (role == "consumer" ? " or stagger" : "");
    sawWarpgroups |= key == "warpgroups";
    result.addAttribute((role + "_" + key).str(),
                        builder.getI32IntegerAttr(value));
    return success();
  };
  if (parser.parseKeyword(role) ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Paren, parseEntry))
    return failure();
  if (!sawWarpgroups)
    return parser.emitError(roleLoc, "the ")
           << role << " role needs 'warpgroups = N'";
  if (parser.parseRegion(region))
    return failure();
  WarpSpecializeOp::ensureTerminator(region, builder, result.location);
  return success();
}

ParseResult BlockRolesOp::parse(OpAsmParser &parser, OperationState &result) {
  Builder &builder = parser.getBuilder();
  int64_t blocks = 0;
  SmallVector<OpAsmParser::Argument, 2> args;
  SMLoc argsLoc;
  if (parser.parseKeyword("communicate") || parser.parseLParen() ||
      parser.parseKeyword("blocks") || parser.parseEqual() ||
      parser.parseInteger(blocks) || parser.parseRParen() ||
      parser.getCurrentLocation(&argsLoc) ||
      parser.parseArgumentList(args, AsmParser::Delimiter::Paren))
    return failure();
  if (args.size() != 2)
    return parser.emitError(argsLoc, "the communicate region takes two "
                                     "arguments: the block's index among the "
                                     "communicating blocks and their number");
  for (OpAsmParser::Argument &arg : args)
    arg.type = builder.getIndexType();
  result.addAttribute("blocks", builder.getI64IntegerAttr(blocks));
  Region *communicate = result.addRegion();
  Region *compute = result.addRegion();
  if (parser.parseRegion(*communicate, args) ||
      parser.parseKeyword("compute") || parser.parseRegion(*compute) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  BlockRolesOp::ensureTerminator(*communicate, builder, result.location);
  BlockRolesOp::ensureTerminator(*compute, builder, result.location);
  return success();
}

void BlockRolesOp::print(OpAsmPrinter &p) {
  p << " communicate(blocks = " << getBlocks() << ") (";
  llvm::interleaveComma(getCommunicate().getArguments(), p,
                        [&](BlockArgument arg) { p.printOperand(arg); });
  p << ") ";
  p.printRegion(getCommunicate(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
  p << " compute ";
  p.printRegion(getCompute(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
  p.printOptionalAttrDictWithKeyword((*this)->getAttrs(),
                                     {getBlocksAttrName()});
}

LogicalResult BlockRolesOp::verify() {
  auto kernel = dyn_cast_or_null<KernelOp>((*this)->getParentOp());
  if (!kernel)
    return emitOpError("must be directly in a 'tile.kernel' body");
  if (kernel.getGrid() != GridPolicy::persistent)
    return emitOpError("needs a kernel with 'grid = persistent': the "
                       "communicating and computing blocks wait for each "
                       "other, so all must be resident at once");
  if (kernel.getClusterBlocks() > 1)
    return emitOpError("is not supported in cluster kernels");
  int64_t blocks = getBlocks();
  if (blocks < 1 || blocks > 1024)
    return emitOpError("'blocks' must be in [1, 1024], got ") << blocks;
  if (llvm::range_size(kernel.getBody().getOps<BlockRolesOp>()) > 1)
    return emitOpError("a kernel has at most one 'tile.block_roles'");
  Block &communicate = getCommunicate().front();
  if (communicate.getNumArguments() != 2 ||
      !llvm::all_of(communicate.getArgumentTypes(),
                    [](Type t) { return t.isIndex(); }))
    return emitOpError("the communicate region takes two index arguments: "
                       "the block's index among the communicating blocks "
                       "and their number");
  if (getCompute().front().getNumArguments() != 0)
    return emitOpError("the compute region takes no arguments");
  if (getCommunicate()
          .walk([](ForeachTileOp) { return WalkResult::interrupt(); })
          .wasInterrupted())
    return emitOpError("the communicate region runs no 'tile.foreach_tile': "
                       "its blocks are numbered by its arguments");
  WalkResult unsupported = getCompute().walk([](ForeachTileOp loop) {
    return loop.getDynamic() || loop.getTable() || loop.getKSteps()
               ? WalkResult::interrupt()
               : WalkResult::advance();
  });
  if (unsupported.wasInterrupted())
    return emitOpError("deals tiles to its computing blocks with a strided "
                       "walk: 'dynamic', 'table' and 'stream_k' tile loops "
                       "are not supported in its compute region");
  return success();
}

ParseResult WarpSpecializeOp::parse(OpAsmParser &parser,
                                    OperationState &result) {
  Region *producer = result.addRegion();
  Region *consumer = result.addRegion();
  if (parseRole(parser, result, "producer", *producer) ||
      parseRole(parser, result, "consumer", *consumer) ||
      parser.parseOptionalAttrDictWithKeyword(result.attributes))
    return failure();
  return success();
}

static void printRole(OpAsmPrinter &p, StringRef role, int32_t warpgroups,
                      std::optional<int32_t> registers,
                      std::optional<int32_t> stagger, Region &region) {
  p << role << "(warpgroups = " << warpgroups;
  if (registers)
    p << ", registers = " << *registers;
  if (stagger)
    p << ", stagger = " << *stagger;
  p << ") ";
  p.printRegion(region, /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
}

void WarpSpecializeOp::print(OpAsmPrinter &p) {
  p << ' ';
  printRole(p, "producer", getProducerWarpgroups(), getProducerRegisters(),
            std::nullopt, getProducer());
  p << ' ';
  printRole(p, "consumer", getConsumerWarpgroups(), getConsumerRegisters(),
            getConsumerStagger(), getConsumer());
  p.printOptionalAttrDictWithKeyword(
      (*this)->getAttrs(),
      {getProducerWarpgroupsAttrName(), getConsumerWarpgroupsAttrName(),
       getProducerRegistersAttrName(), getConsumerRegistersAttrName(),
       getConsumerStaggerAttrName()});
}

LogicalResult WarpSpecializeOp::verify() {
  Operation *parent = (*this)->getParentOp();
  auto kernel = (*this)->getParentOfType<KernelOp>();
  auto roles = dyn_cast_or_null<BlockRolesOp>(parent);
  bool computeBody =
      roles && getOperation()->getParentRegion() == &roles.getCompute();
  if (!kernel || !(isa<KernelOp, ForeachTileOp>(parent) || computeBody))
    return emitOpError("must be directly in a 'tile.kernel' or "
                       "'tile.foreach_tile' body, or in the compute region of "
                       "a 'tile.block_roles'");
  const TargetInfo &target = getTargetInfo(*this);
  int64_t producers = getProducerWarpgroupsAttr().getValue().getSExtValue();
  int64_t consumers = getConsumerWarpgroupsAttr().getValue().getSExtValue();
  if (producers < 1 || consumers < 1)
    return emitOpError("each role needs at least one warpgroup, got ")
           << producers << " producer and " << consumers << " consumer";
  if (auto launched = kernel.getWarpgroups())
    if (producers + consumers != int64_t(*launched))
      return emitOpError("roles use ")
             << producers + consumers << " warpgroups but the kernel launches "
             << *launched;
  // Read signed: the I32Attr getters' uint32_t would turn -8 into 4294967288.
  auto budget = [](IntegerAttr attr) {
    return attr ? std::optional<int64_t>(attr.getInt()) : std::nullopt;
  };
  std::optional<int64_t> producerRegs = budget(getProducerRegistersAttr());
  std::optional<int64_t> consumerRegs = budget(getConsumerRegistersAttr());
  if ((producerRegs || consumerRegs) && !target.hasRegisterBudgets)
    return emitOpError("register budgets need a target with setmaxnreg; ")
           << target.name << " has none";
  for (auto [role, regs] : {std::pair{"producer", producerRegs},
                            std::pair{"consumer", consumerRegs}})
    if (regs && (*regs < 24 || *regs > 256 || *regs % 8 != 0))
      return emitOpError() << role
                           << " register budget must be a multiple of 8 in "
                              "[24, 256], got "
                           << *regs;
  if (IntegerAttr staggerAttr = getConsumerStaggerAttr()) {
    int64_t stagger = staggerAttr.getInt();
    if (stagger < 0 || stagger > kMaxStaggerCycles)
      return emitOpError("consumer stagger must be in [0, ")
             << kMaxStaggerCycles << "] cycles, got " << stagger;
    if (target.vendor != tk::Vendor::nvidia)
      return emitOpError("consumer stagger is lowered for NVIDIA targets "
                         "only; ")
             << target.name << " is not one";
  }
  // Each thread starts with its share of the register file (a multiple of
  // 8, at most 248) and the block owns that many in all: setmaxnreg can
  // only lower the producer's budget and raise the consumers', and the
  // budgets must fit in what the block owns (a raise that cannot be served
  // waits forever).
  auto launched = kernel.getWarpgroups();
  if (launched && *launched > 0) {
    int64_t threads = 4 * target.warpSize * int64_t(*launched);
    int64_t start = kernel.getStartRegisters(threads);
    if (producerRegs && *producerRegs > start)
      return emitOpError("producer register budget ")
             << *producerRegs << " is above the " << start
             << " registers each of the kernel's " << threads
             << " threads starts with; setmaxnreg can only lower it";
    if (consumerRegs && *consumerRegs < start)
      return emitOpError("consumer register budget ")
             << *consumerRegs << " is below the " << start
             << " registers each of the kernel's " << threads
             << " threads starts with; setmaxnreg can only raise it";
    if (producerRegs && consumerRegs) {
      int64_t total = 4 * target.warpSize *
                      (int64_t(*producerRegs) * producers +
                       int64_t(*consumerRegs) * consumers);
      if (total > start * threads)
        return emitOpError("register budgets need ")
               << total << " registers per block; its " << threads
               << " threads hold " << start * threads << " (" << start
               << " each)";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WarpgroupIdOp, BlockIdOp, DimOp
//===----------------------------------------------------------------------===//

/// Ops that name a part of the launch (its warpgroups, blocks, rows)
/// mean something only inside a kernel.
static LogicalResult verifyInKernel(Operation *op) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("must be inside a 'tile.kernel'");
  return success();
}

LogicalResult WarpgroupIdOp::verify() { return verifyInKernel(*this); }

LogicalResult BlockIdOp::verify() { return verifyInKernel(*this); }

LogicalResult PartRowsOp::verify() {
  auto tile = dyn_cast<RegTileType>(getTile());
  if (!tile || tile.getScope() != Scope::block)
    return emitOpError("needs a block-scope register tile type, got ")
           << getTile();
  return verifyInKernel(*this);
}

LogicalResult PrefixSumOp::verify() {
  // (Dominance then puts the summed value in the body or before the loop,
  // where the lowering can add it at the end of every tile.)
  if (!isa<ForeachTileOp>((*this)->getParentOp()))
    return emitOpError("must be directly in a 'tile.foreach_tile' body");
  return success();
}

LogicalResult DimOp::verify() {
  int64_t rank = getView().getType().getShape().size();
  int64_t index = getIndexAttr().getInt();
  if (index < 0 || index >= rank)
    return emitOpError("dimension index ")
           << index << " is out of range for a rank-" << rank << " global view";
  return success();
}

OpFoldResult DimOp::fold(FoldAdaptor) {
  ArrayRef<int64_t> shape = getView().getType().getShape();
  int64_t index = getIndexAttr().getInt();
  if (index < 0 || index >= int64_t(shape.size()) ||
      ShapedType::isDynamic(shape[index]))
    return {};
  return IntegerAttr::get(IndexType::get(getContext()), shape[index]);
}

//===----------------------------------------------------------------------===//
// Cluster ops
//===----------------------------------------------------------------------===//

/// Blocks per cluster of the kernel around `op` (1 without a cluster).
int64_t tk::tile::clusterBlocks(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  return kernel ? kernel.getClusterBlocks() : 1;
}

/// Cluster ops need a kernel whose cluster has more than one block.
LogicalResult tk::tile::verifyInCluster(Operation *op, StringRef what) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError("must be inside a 'tile.kernel'");
  if (clusterBlocks(op) < 2)
    return op->emitOpError()
           << what
           << " needs a kernel launched in clusters of more than one block "
              "(launch(... cluster = [C, 1, 1]) with C > 1)";
  return success();
}

LogicalResult ClusterRankOp::verify() {
  return verifyInCluster(*this, "the cluster rank");
}

LogicalResult tk::tile::verifyDeviceOperand(Operation *op, GlobalType view,
                                            Value device) {
  if (device && !view.getDevices())
    return op->emitOpError("'device' picks a copy of a multi-device view "
                           "(!tile.gl<..., devices = N>), got ")
           << view;
  return success();
}

/// tile.device_id / tile.device_count: in a kernel that has a multi-device
/// view parameter, which the launch's devices are counted by.
static LogicalResult verifyDeviceQuery(Operation *op) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel)
    return op->emitOpError("must be inside a 'tile.kernel'");
  for (Type type : kernel.getBody().front().getArgumentTypes())
    if (auto view = dyn_cast<GlobalType>(type); view && view.getDevices())
      return success();
  return op->emitOpError("needs a kernel with a multi-device view parameter "
                         "(!tile.gl<..., devices = N>)");
}

LogicalResult DeviceIdOp::verify() { return verifyDeviceQuery(*this); }

LogicalResult DeviceCountOp::verify() { return verifyDeviceQuery(*this); }
