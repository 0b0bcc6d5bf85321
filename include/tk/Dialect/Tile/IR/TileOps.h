//===- TileOps.h - Ops of the tile dialect ----------------------*- C++ -*-===//
#ifndef TK_DIALECT_TILE_IR_TILEOPS_H
#define TK_DIALECT_TILE_IR_TILEOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "tk/Dialect/Tile/IR/TileDialect.h"
#include "tk/Dialect/Tile/IR/TileTypes.h"

#define GET_OP_CLASSES
#include "tk/Dialect/Tile/IR/TileOps.h.inc"

namespace tk {
struct TargetInfo;
namespace tile {
/// Loop annotations of the pipelining passes (verified by the dialect).
/// On a user's scf.for: the ring stages tile-pipeline should use.
constexpr llvm::StringLiteral kStagesAttr = "tile.stages";
/// The most stages a ring may have (`tile.stages`, `tile.pipelined`,
/// tile-pipeline's `stages` option): they are the leading dimension of the
/// ring's shared tile or vector type.
constexpr int64_t kMaxStages = kMaxSharedDim;
/// The tallest `group` of a tile.foreach_tile walk, in tile rows: far
/// above any useful group (a group as tall as the tile space walks it
/// column by column), and small enough that the walk's product of the group
/// and the tile columns cannot wrap in 64 bits.
constexpr int64_t kMaxTileGroup = 65536;
/// On a tile.mma / tile.mma_async of block scope: how tile-warp-specialize
/// splits it over the consumer warpgroups ("columns" or "contraction"),
/// overriding the pass's mma-split option for this product.
constexpr llvm::StringLiteral kSplitAttr = "tile.split";
/// On an scf.for pipelined by tile-pipeline: its ring's stages.
constexpr llvm::StringLiteral kPipelinedAttr = "tile.pipelined";
/// On the scf.if that issues a pipelined loop's prologue loads.
constexpr llvm::StringLiteral kPrologueAttr = "tile.pipeline_prologue";
/// On the scf.if in a pipelined loop's body that loads N - 1 steps ahead.
constexpr llvm::StringLiteral kRefillAttr = "tile.pipeline_refill";
/// On the scf.if that loads a tile loop's per-tile buffer (a copy outside
/// any inner loop).
constexpr llvm::StringLiteral kTileCopyAttr = "tile.pipeline_copy";
/// On an scf.for tile-pipeline scheduled for a 4-wave AMD kernel: its
/// prefetch loads and LDS fragment reads are interleaved with its MFMAs
/// (HipKittens' 4-wave interleave).
constexpr llvm::StringLiteral kInterleaveAttr = "tile.interleave";
/// On a tile.kernel: false lowers tile.warpgroup_id on NVIDIA from each
/// thread's own index instead of lane 0's (the default, which tells ptxas
/// the index is warp-uniform). ptxas schedules the two differently; each
/// kernel keeps the one measured faster for it.
constexpr llvm::StringLiteral kUniformWarpgroupIdAttr =
    "tile.uniform_warpgroup_id";

/// On a tile.kernel parameter (an integer, index or float attribute of the
/// parameter's type): the value the kernel is compiled for. tile-bind folds
/// it into the body; the manifest records it and the runtime refuses
/// launches that pass another value.
constexpr llvm::StringLiteral kBoundAttr = "tile.bound";

/// The shared-memory queue through which a `dynamic` tile loop's first
/// thread passes each tile to the block's warps: `kTileQueueDepth` full
/// mbarriers, as many empty ones, then as many 32-bit tile slots.
constexpr int64_t kTileQueueDepth = 4;
constexpr int64_t kTileQueueBytes = kTileQueueDepth * (8 + 8 + 4);
/// Shared memory the hardware keeps for each resident block (sm_90a: 1 KB
/// of the multiprocessor's 228 KB), which bounds what blocks sharing a
/// multiprocessor may allocate.
constexpr int64_t kReservedSharedMemoryPerBlock = 1024;
/// On a tile.kernel: the consumer `stagger` (cycles, an integer) that
/// tile-warp-specialize gives the warpgroups it makes.
constexpr llvm::StringLiteral kStaggerAttr = "tile.stagger";
/// On a tile.kernel (unit): tile-pingpong makes the consumer warpgroups
/// take turns issuing their MMAs (tile.mma_turn).
constexpr llvm::StringLiteral kPingpongAttr = "tile.pingpong";
/// The most consumer warpgroups that take MMA turns: one named barrier
/// each, from kFirstTurnBarrier (1 to 8 are the warpgroups' own, 1 + the
/// warpgroup's index in a block of up to 8; 14 and 15 the roles').
constexpr int64_t kMaxTurnWarpgroups = 4;
constexpr int64_t kFirstTurnBarrier = 10;
/// The most cycles `tile.warp_specialize`'s consumer `stagger` may hold back
/// each consumer warpgroup.
constexpr int32_t kMaxStaggerCycles = 100000;

/// The target `op` compiles for: the nearest `tile.target` attribute of an
/// enclosing op, or sm_90a.
const TargetInfo &getTargetInfo(mlir::Operation *op);
/// What a warp-specialized kernel's producer role does: whether it runs a
/// tile loop (a `dynamic` one needs it: its first thread takes the tiles),
/// the first op in it that synchronises the role's warps (a barrier,
/// arrival or signal), and the first op that needs every warp of the role
/// (those, or work each thread does for its own part). A role without the
/// last runs on its first warp only: its other warps would only follow the
/// ring's waits without arriving, and could fall more phases behind than a
/// parity wait tells apart.
struct ProducerWalk {
  bool walks = false;
  mlir::Operation *sync = nullptr;
  mlir::Operation *allWarps = nullptr;
};
ProducerWalk producerWalk(WarpSpecializeOp op);
/// Whether `op` is inside the communicate region of a `tile.block_roles`
/// (which tile-warp-specialize leaves to all of the block's warpgroups).
bool inCommunicateRegion(mlir::Operation *op);
/// Blocks per cluster of the kernel around `op`; 1 without a cluster.
int64_t clusterBlocks(mlir::Operation *op);
/// Fails with a diagnostic unless `op` is in a kernel launched in clusters
/// of more than one block; `what` names the feature in the message.
mlir::LogicalResult verifyInCluster(mlir::Operation *op, llvm::StringRef what);
/// Fails with a diagnostic when `device` is given and `view` is not a
/// multi-device view.
mlir::LogicalResult verifyDeviceOperand(mlir::Operation *op, GlobalType view,
                                        mlir::Value device);
} // namespace tile
} // namespace tk

#endif // TK_DIALECT_TILE_IR_TILEOPS_H
