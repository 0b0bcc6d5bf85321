//===- Common.h - Shared pieces of the tile → NVVM lowering -----*- C++ -*-===//
//
// The lowering runs in two steps. A pre-step (TileToNVVM.cpp) fixes the
// kernel ABI, moves each kernel body into an llvm.func and records on the
// ops what patterns cannot see locally, as discardable attributes:
//
//   tile.alloc                        tk.smem_offset  byte offset in shared
//   memory ops reading a global view         tk.view_param   index of the
//   view's pointer
//                                                     parameter (dims follow
//                                                     it)
//   tile.load_async / store_async /   tk.tma_param    index of the TMA
//   descriptor prefetch                                          parameter
//   tile.warpgroup_id                 tk.role_base    first warpgroup of its
//   role
//
// Then one dialect conversion rewrites every tile op with the patterns of
// Structure.cpp, Memory.cpp, Sync.cpp and Compute.cpp.
//
//===----------------------------------------------------------------------===//
#ifndef TK_LIB_CONVERSION_TILETONVVM_COMMON_H
#define TK_LIB_CONVERSION_TILETONVVM_COMMON_H

#include "tk/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tk::nvvm {

inline constexpr llvm::StringLiteral kSmemOffset = "tk.smem_offset";
inline constexpr llvm::StringLiteral kViewParam = "tk.view_param";
inline constexpr llvm::StringLiteral kTmaParam = "tk.tma_param";
inline constexpr llvm::StringLiteral kRoleBase = "tk.role_base";
/// On tile.sem_init / tile.sem_arrive of semaphores that only sem_arrive
/// signals: each warp arrives for itself (no warpgroup barrier), so the
/// mbarrier expects this many arrivals per declared one.
inline constexpr llvm::StringLiteral kPerWarp = "tk.per_warp_arrivals";
/// On foreach_tile in cluster kernels: blocks per cluster, which share each
/// tile.
inline constexpr llvm::StringLiteral kClusterBlocks = "tk.cluster_blocks";
inline constexpr llvm::StringLiteral kSmemSymbol = "__tk_smem";
/// Extra bytes requested so the dynamic buffer can be aligned to 1024 bytes.
inline constexpr int64_t kSmemAlignSlack = 1024;

/// Register tiles and vectors become LLVM structs with one field per element
/// a thread holds; shared buffers and semaphores shared pointers; global
/// views global pointers.
class TileTypeConverter : public mlir::TypeConverter {
public:
  explicit TileTypeConverter(mlir::MLIRContext *ctx);
};

/// Number of elements one thread holds of `type`, or failure with `why`.
llvm::FailureOr<int64_t> getElementsPerThread(tile::RegisterType type,
                                              std::string &why);

/// The fragment map of a register value owned by its scope's warps.
llvm::FailureOr<tile::FragmentMap> getScopeFragmentMap(tile::RegisterType type);

/// Adds to (row, col) the offsets that index `id` selects through `modes`
/// (digits taken mixed-radix, first mode fastest).
void addModeOffsets(mlir::OpBuilder &b, mlir::Location loc,
                    llvm::ArrayRef<tile::FragmentMode> modes, mlir::Value id,
                    mlir::Value &row, mlir::Value &col);

/// Row and column (from `row0`, `col0`) of the element this thread holds in
/// register 0: the sum of its lane's and warp's mode contributions.
std::pair<mlir::Value, mlir::Value>
threadOrigin(mlir::OpBuilder &b, mlir::Location loc,
             const tile::FragmentMap &map, mlir::Value row0, mlir::Value col0);

/// Small builders shared by the patterns.
mlir::Value constI32(mlir::OpBuilder &b, mlir::Location loc, int64_t value);
mlir::Value constI64(mlir::OpBuilder &b, mlir::Location loc, int64_t value);
mlir::Value constIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t value);
mlir::Value toI32(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index);
mlir::Value toI64(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index);
mlir::Value toIndex(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
/// threadIdx.x as an index.
mlir::Value threadIndex(mlir::OpBuilder &b, mlir::Location loc);
/// Byte-offset a shared pointer: `ptr + offset` (offset an index or i64).
mlir::Value offsetPtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                      mlir::Value offset);
/// Parameter `index` of the llvm.func kernel enclosing `op`.
mlir::Value kernelParam(mlir::Operation *op, int64_t index);
/// `if (threadIdx.x % 128 == 0) { body }`: one thread of each executing
/// warpgroup issues the op.
void emitOncePerWarpgroup(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::function_ref<void(mlir::OpBuilder &)> body);
/// Named barrier of the executing warpgroup: id 1 + its index in the block
/// (id 0 is the block barrier), 128 threads.
void warpgroupSync(mlir::OpBuilder &b, mlir::Location loc);
/// Rows of the allocation a shared tile value lies in. A swizzled tile is
/// stored as column blocks of (allocation rows x swizzle bytes), so a subtile
/// that splits rows keeps its parent's block stride, not its own.
int64_t allocationRows(mlir::Value tile);
/// Bytes of one element of a tile element type.
int64_t elementBytes(mlir::Type type);

void populateStructurePatterns(mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
void populateMemoryPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
void populateSyncPatterns(mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);
void populateComputePatterns(mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns);
void populateReductionPatterns(mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
/// Whether a layout conversion is between identical fragment maps.
bool sameFragments(tile::ConvertLayoutOp op);
/// Why a reduction of `tile` along rows (or columns) cannot be lowered, or "".
std::string reductionUnsupportedReason(tile::RegTileType tile, bool alongRows);

} // namespace tk::nvvm

#endif // TK_LIB_CONVERSION_TILETONVVM_COMMON_H
