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
#ifndef TK_LIB_CONVERSION_TILETOLLVM_COMMON_H
#define TK_LIB_CONVERSION_TILETOLLVM_COMMON_H

#include "tk/Dialect/Tile/IR/TileOps.h"
#include "tk/Target/TargetInfo.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/LLVMIR/ROCDLDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Transforms/DialectConversion.h"

namespace tk::lower {

inline constexpr llvm::StringLiteral kSmemOffset = "tk.smem_offset";
inline constexpr llvm::StringLiteral kViewParam = "tk.view_param";
inline constexpr llvm::StringLiteral kTmaParam = "tk.tma_param";
inline constexpr llvm::StringLiteral kRoleBase = "tk.role_base";
/// On the users of a multi-device view: its number of copies (the pointer
/// and tensor-map parameters per copy that kViewParam / kTmaParam start).
inline constexpr llvm::StringLiteral kViewCopies = "tk.view_copies";
/// On tile.device_id / tile.device_count and the users of a multi-device
/// view: the hidden i32 parameter holding the launch's own device index,
/// and (device_count) the number of devices.
inline constexpr llvm::StringLiteral kDeviceIdParam = "tk.device_id_param";
inline constexpr llvm::StringLiteral kDeviceCountParam =
    "tk.device_count_param";
/// On a tile.warpgroup_id: computed from each thread's own index (the
/// kernel's tile.uniform_warpgroup_id = false).
inline constexpr llvm::StringLiteral kPerThread = "tk.per_thread";
/// On block-scope tile.barrier inside a tile.warp_specialize role: the
/// role's named barrier id and thread count (it waits for those only).
inline constexpr llvm::StringLiteral kRoleBarrier = "tk.role_barrier";
/// On tile.mma_turn (and the tile.warp_specialize whose consumers take
/// turns): the number of consumer warpgroups that take turns.
inline constexpr llvm::StringLiteral kTurns = "tk.turns";
/// On tile.sem_init / tile.sem_arrive of semaphores that only sem_arrive
/// signals: each warp arrives for itself (no warpgroup barrier), so the
/// mbarrier expects this many arrivals per declared one.
inline constexpr llvm::StringLiteral kPerWarp = "tk.per_warp_arrivals";
/// On foreach_tile in cluster kernels: blocks per cluster, which share each
/// tile.
inline constexpr llvm::StringLiteral kClusterBlocks = "tk.cluster_blocks";
inline constexpr llvm::StringLiteral kSmemSymbol = "__tk_smem";
/// AMD: on tile.copy, the threads of the block, which share the copy.
inline constexpr llvm::StringLiteral kThreads = "tk.threads";
/// On an op that exchanges data between warps (Exchange.cpp): the byte
/// offset of its shared-memory scratch, and the bytes between the slots of
/// a warpgroup-scope op's warpgroups.
inline constexpr llvm::StringLiteral kScratchOffset = "tk.scratch_offset";
inline constexpr llvm::StringLiteral kScratchSlot = "tk.scratch_slot";
/// On a kernel: the parameters (views) whose rows must be a multiple of 16
/// bytes long; the manifest says so to the launcher.
inline constexpr llvm::StringLiteral kRowAligned = "tk.row_aligned_views";
/// AMD: on the copies into, and the `AB` mmas reading as B, a shared tile
/// that is stored transposed in LDS.
inline constexpr llvm::StringLiteral kLdsTransposed = "tk.lds_transposed";
/// AMD: on an mma in a loop tile-pipeline marked `tile.interleave`, the
/// global loads per thread the loop issues (its prefetch).
inline constexpr llvm::StringLiteral kInterleaveLoads = "tk.interleave_loads";
/// AMD: on foreach_tile, the chiplets (XCDs) blocks are dealt to round-robin.
inline constexpr llvm::StringLiteral kChiplets = "tk.chiplets";
/// On a `dynamic` foreach_tile of a persistent kernel: the tile queue's
/// shared-memory offset and the tile counter's kernel parameter.
inline constexpr llvm::StringLiteral kTileQueue = "tk.tile_queue";
inline constexpr llvm::StringLiteral kTileCounterParam = "tk.tile_counter";
/// On a `table` foreach_tile of a persistent kernel: the tile table's kernel
/// parameter.
inline constexpr llvm::StringLiteral kTileTableParam = "tk.tile_table";
/// On a tile.warp_specialize whose producer role needs one warp only
/// (ProducerWalk): only the first warp of each producer warpgroup runs it.
inline constexpr llvm::StringLiteral kFirstWarpOnly = "tk.first_warp_only";
/// On a tile loop in the compute region of tile.block_roles: the blocks
/// before this index communicate; the loop deals its tiles to the rest.
inline constexpr llvm::StringLiteral kFirstBlock = "tk.first_block";
/// On gpu.module @tk_kernels while it is converted (NVIDIA): the time limit
/// of every mbarrier wait in milliseconds (convert-tile-to-nvvm's
/// wait-timeout-ms); see mbarrierWait.
inline constexpr llvm::StringLiteral kWaitTimeout = "tk.wait_timeout_ms";
/// On gpu.module @tk_kernels while it is converted with a wait time limit:
/// the timed waits ({kernel, location} each; a report's site is an index).
inline constexpr llvm::StringLiteral kWaitSites = "tk.wait_sites";
/// The u64 global a host sets to the buffer timed-out waits report into,
/// and the records that buffer holds (docs/nvidia.md, "Finding a deadlock").
inline constexpr llvm::StringLiteral kWaitReport = "__tk_wait_report";
inline constexpr int64_t kWaitReportRecords = 64;

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
/// The llvm.func kernel the builder inserts into (null outside one).
mlir::LLVM::LLVMFuncOp enclosingKernel(mlir::OpBuilder &b);
/// Whether the kernel being built targets AMD (its llvm.func carries
/// `rocdl.kernel`): the few target-specific builders below dispatch on it, so
/// the patterns written against FragmentMap serve both lowerings.
bool targetsAMD(mlir::OpBuilder &b);
/// Lanes per warp (wave): 32 on NVIDIA, 64 on AMD.
int64_t warpSize(mlir::OpBuilder &b);
/// threadIdx.x as an index.
mlir::Value threadIndex(mlir::OpBuilder &b, mlir::Location loc);
/// blockIdx.x and gridDim.x as indices.
mlir::Value blockIndex(mlir::OpBuilder &b, mlir::Location loc);
mlir::Value gridSize(mlir::OpBuilder &b, mlir::Location loc);
/// The register struct `type` whose field i is `fields[i]`.
mlir::Value packStruct(mlir::OpBuilder &b, mlir::Location loc, mlir::Type type,
                       mlir::ValueRange fields);
/// Fields `first` .. `first + n - 1` of the struct `record` as a vector of
/// `type` (n of its elements; each field bitcast to the element type).
mlir::Value packFields(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value record, int64_t first,
                       mlir::VectorType type);
/// `op(x[i], y[i])` for every i. 16-bit floats go two at a time as
/// 2-element vectors, so a binary op on bf16 or f16 fields is one packed
/// instruction per pair (mul.bf16x2 on NVIDIA) instead of one per field.
llvm::SmallVector<mlir::Value>
pairwise(mlir::OpBuilder &b, mlir::Location loc, llvm::ArrayRef<mlir::Value> x,
         llvm::ArrayRef<mlir::Value> y,
         llvm::function_ref<mlir::Value(mlir::Value, mlir::Value)> op);
/// The same for any number of operands: `op` of the i-th field of each list
/// in `operands` (lists of equal length, fields of one type), 16-bit floats
/// two at a time (fma.rn.bf16x2 for a fused multiply-add on NVIDIA).
llvm::SmallVector<mlir::Value>
pairwise(mlir::OpBuilder &b, mlir::Location loc,
         llvm::ArrayRef<llvm::SmallVector<mlir::Value>> operands,
         llvm::function_ref<mlir::Value(mlir::ValueRange)> op);
/// Converts one float to another float type (bf16 <-> f16 through f32).
mlir::Value convertFloat(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v,
                         mlir::Type to);
/// The 32-bit `value` of the lane whose index is this lane's XOR `mask`
/// (shfl.sync.bfly on NVIDIA, ds_bpermute on AMD).
mlir::Value shuffleXor(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, int64_t mask);
/// Named intrinsics of the special-function unit: 2^x and log2 x in f32.
mlir::Value fastExp2(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
mlir::Value fastLog2(mlir::OpBuilder &b, mlir::Location loc, mlir::Value x);
/// The number of warps a register value of `type` is spread over: its
/// scope's, or for block scope the wave grid of an MFMA layout (0: unknown).
unsigned valueWarps(tile::RegisterType type);
/// Byte-offset a shared pointer: `ptr + offset` (offset an index or i64).
mlir::Value offsetPtr(mlir::OpBuilder &b, mlir::Location loc, mlir::Value ptr,
                      mlir::Value offset);
/// Parameter `index` of the llvm.func kernel enclosing `op`.
mlir::Value kernelParam(mlir::Operation *op, int64_t index);
/// Parameter holding dimension `axis` of the view `op` uses (kViewParam,
/// after the view's pointers: one, or kViewCopies).
mlir::Value viewDimParam(mlir::Operation *op, int64_t axis);
/// `choices[index]` for `index` (an index or integer value) in [0,
/// choices.size()): a chain of selects.
mlir::Value selectAmong(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::ValueRange choices, mlir::Value index);
/// Parameter `first + index` of the kernel enclosing `op`, for `index` in
/// [0, count) (selectAmong).
mlir::Value selectParam(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Operation *op, int64_t first, int64_t count,
                        mlir::Value index);
/// The launch's own device index (tile.device_id) as an index, for an op
/// that carries kDeviceIdParam.
mlir::Value ownDevice(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Operation *op);
/// The launch's device count (tile.device_count) as an index, for an op
/// that carries kDeviceIdParam.
mlir::Value deviceCount(mlir::OpBuilder &b, mlir::Location loc,
                        mlir::Operation *op);
/// The pointer to copy `device` (an index value; null: the launch's own) of
/// the multi-device view `op` uses (kViewParam, kViewCopies), or `own` (the
/// view operand as converted) for a single-device view.
mlir::Value viewCopy(mlir::OpBuilder &b, mlir::Location loc,
                     mlir::Operation *op, mlir::Value own, mlir::Value device);
/// The largest box of a TMA copy along each dimension.
constexpr int64_t kMaxTmaBox = 256;
/// The box of the tensor map a tile.prefetch of a rank-`rank` view uses,
/// outermost first: the op's box clamped to kMaxTmaBox, 1 along the leading
/// dimensions. The lowering issues one prefetch per chunk of that size.
llvm::SmallVector<int64_t> prefetchBox(tile::PrefetchOp op);
/// Why the NVIDIA lowering cannot prefetch `op`'s box, or "".
std::string prefetchUnsupportedReason(tile::PrefetchOp op);
/// The tensor map (kTmaParam) of `op`'s TMA copy; of copy `device` (null:
/// the launch's own) for a multi-device view.
mlir::Value tensorMap(mlir::OpBuilder &b, mlir::Location loc,
                      mlir::Operation *op, mlir::Value device);
/// `if (threadIdx.x % 128 == 0) { body }`: one thread of each executing
/// warpgroup issues the op.
void emitOncePerWarpgroup(mlir::OpBuilder &b, mlir::Location loc,
                          llvm::function_ref<void(mlir::OpBuilder &)> body);
/// The executing warpgroup's index in the block (NVIDIA), as lane 0's copy
/// (shfl.sync.idx), an i32: ptxas then knows it is the same in every lane,
/// keeps what derives from it in uniform registers and treats branches on
/// it as convergent.
mlir::Value uniformWarpgroupIndex(mlir::OpBuilder &b, mlir::Location loc);
/// The executing warpgroup's index among the consumers whose role starts at
/// warpgroup `base` (from uniformWarpgroupIndex).
mlir::Value consumerIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t base);
/// MMA turns among `turns` consumer warpgroups (tile.mma_turn): waits until
/// the previous consumer passed the turn to consumer `index` (take), or
/// passes it on to the next (pass), on named barrier kFirstTurnBarrier +
/// the receiver's index (its 128 threads wait, the giver's 128 arrive).
void turnTake(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index);
void turnPass(mlir::OpBuilder &b, mlir::Location loc, mlir::Value index,
              int64_t turns);
/// bar.sync `id` (an i32), `threads` threads (NVIDIA).
void namedBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Value id,
                  int64_t threads);
/// Every thread running the block's work: on AMD the workgroup barrier; on
/// NVIDIA the named barrier of the role `op` is in (kRoleBarrier, recorded
/// by the kernel lowering) or else the block barrier.
void blockBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op);
/// Inline PTX with side effects and no results (NVIDIA).
void inlinePtx(mlir::OpBuilder &b, mlir::Location loc,
               mlir::ValueRange operands, llvm::StringRef asmText,
               llvm::StringRef constraints);
/// The same with one result of type `result` (the constraints start with
/// its `=` entry).
mlir::Value inlinePtx(mlir::OpBuilder &b, mlir::Location loc, mlir::Type result,
                      mlir::ValueRange operands, llvm::StringRef asmText,
                      llvm::StringRef constraints);
/// Named barrier of the executing warpgroup: id 1 + its index in the block
/// (id 0 is the block barrier), 128 threads.
void warpgroupSync(mlir::OpBuilder &b, mlir::Location loc);
/// Every thread waits until the mbarrier at `sem` (shared) has completed the
/// phase with the parity of `phase` (i32): a `try_wait.parity` loop. When the
/// kernel module carries kWaitTimeout, a thread that waits longer records
/// the wait (kWaitSites, kWaitReport) and traps.
void mbarrierWait(mlir::OpBuilder &b, mlir::Location loc, mlir::Value sem,
                  mlir::Value phase);
/// The kernel module's wait time limit in milliseconds (convert-tile-to-
/// nvvm's wait-timeout-ms), 0 when waits have none.
int64_t waitLimitMs(mlir::OpBuilder &b);
/// The body of a wait's inline assembly under the module's limit
/// (`kWaitTimeout`), inside a block that declares the predicate `p`:
/// `attempt` tries once and sets a predicate that the guard `done` ("@p",
/// "@!p") reads as done. Past the limit the warp's first active lane
/// records (site, block, thread, `what`, the low 32 bits of `address`) in
/// the host's report buffer under a new wait site of kind `kind`
/// ("semaphore", "counter"), and every lane that gave up traps. `what` is a
/// 32-bit PTX operand, `address` a 32-bit one or, `address64`, a 64-bit
/// one. The whole slow path stays inside the wait's assembly, which has no
/// result: code after the wait does not branch on its outcome, so the
/// waits compile as the unlimited ones do on their fast path.
std::string timedWaitPtx(mlir::OpBuilder &b, mlir::Location loc,
                         llvm::StringRef attempt, llvm::StringRef done,
                         llvm::StringRef what, llvm::StringRef address,
                         bool address64, llvm::StringRef kind);
/// Rows of the allocation a shared tile value lies in. A swizzled tile is
/// stored as column blocks of (allocation rows x swizzle bytes), so a subtile
/// that splits rows keeps its parent's block stride, not its own.
int64_t allocationRows(mlir::Value tile);
/// Bytes of one element of a tile element type.
int64_t elementBytes(mlir::Type type);

/// The start of the kernel's dynamic shared memory (aligned to 1024 bytes)
/// plus `offset` bytes.
mlir::Value sharedAt(mlir::OpBuilder &b, mlir::Location loc, int64_t offset);
/// The dimensions of the view `op` reads or writes, from its kernel
/// parameters (`op` carries kViewParam).
llvm::SmallVector<mlir::Value> viewDims(mlir::OpBuilder &b, mlir::Location loc,
                                        mlir::Operation *op, size_t rank);
/// Row-major element offset of the first `count` coordinates, in units of
/// dimension `count`.
mlir::Value leadingOffset(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::ValueRange coords,
                          llvm::ArrayRef<mlir::Value> dims, size_t count);
/// Byte offset of element (row, col) of `tile` under its swizzle, in an
/// allocation of `blockRows` rows.
mlir::Value swizzledOffset(mlir::OpBuilder &b, mlir::Location loc,
                           tile::SharedTileType tile, int64_t blockRows,
                           mlir::Value row, mlir::Value col);

/// Checks `kernel` is within what a lowering handles: `reason(op)` says why
/// an op is not (or ""), and every register value and shared tile must have
/// its layout and swizzle set.
mlir::LogicalResult
checkLowerable(tile::KernelOp kernel,
               llvm::function_ref<std::string(mlir::Operation *)> reason);
/// Moves `kernel` into `gpuModule` as an llvm.func with the launch ABI of
/// its target and returns the ABI description for the manifest.
llvm::FailureOr<mlir::DictionaryAttr>
lowerKernelSignature(tile::KernelOp kernel, mlir::gpu::GPUModuleOp gpuModule);
/// Creates `gpu.module @tk_kernels` (with the dynamic shared-memory symbol)
/// in `module`, lowers every kernel's signature into it and records the ABIs
/// as the module attribute `tile.abi`.
/// Fails (with diagnostics) when a kernel targets another vendor than
/// `vendor` (named in messages as `pass`), `reason` rejects one of its ops
/// or `prepare` (run on each checked kernel before its signature is
/// lowered) fails; returns a null module when `module` has no kernels.
llvm::FailureOr<mlir::gpu::GPUModuleOp> lowerKernels(
    mlir::ModuleOp module, tk::Vendor vendor, llvm::StringRef pass,
    llvm::function_ref<std::string(mlir::Operation *)> reason,
    llvm::function_ref<mlir::LogicalResult(tile::KernelOp)> prepare = {});

/// Rewrites every tile op of `gpuModule` (after lowerKernels) into LLVM and
/// the vendor's dialect (NVVM or ROCDL), with the shared patterns and that
/// vendor's own. With `contract`, the float adds, subtracts and multiplies
/// it leaves (and the kernel's arith ones) may be fused into fmas. With
/// `anchorMmaWaits` (NVIDIA), each tile.mma_wait stays where it is in the
/// code ptxas schedules (see MmaWaitLowering in Compute.cpp).
mlir::LogicalResult convertTileOps(mlir::gpu::GPUModuleOp gpuModule,
                                   tk::Vendor vendor, bool contract,
                                   bool anchorMmaWaits = false);

/// Patterns shared by both targets, plus NVIDIA's own when `nvidia`.
void populateStructurePatterns(mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns, bool nvidia);
/// Patterns shared by both targets, plus NVIDIA's own when `nvidia`.
void populateMemoryPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns, bool nvidia);
/// NVIDIA only (mbarriers, fences, named barriers).
void populateSyncPatterns(mlir::TypeConverter &converter,
                          mlir::RewritePatternSet &patterns);
/// Patterns shared by both targets, plus NVIDIA's own when `nvidia`
/// (`anchorMmaWaits`: see MmaWaitLowering).
void populateComputePatterns(mlir::TypeConverter &converter,
                             mlir::RewritePatternSet &patterns, bool nvidia,
                             bool anchorMmaWaits = false);
/// Both targets: counters between blocks (tile.signal_add / signal_wait).
void populateSignalPatterns(mlir::TypeConverter &converter,
                            mlir::RewritePatternSet &patterns);
/// Both targets.
void populateReductionPatterns(mlir::TypeConverter &converter,
                               mlir::RewritePatternSet &patterns);
/// AMD only: copies into LDS, MFMA, conversions, barriers (AMDMemory.cpp,
/// AMDCompute.cpp).
void populateAMDPatterns(mlir::TypeConverter &converter,
                         mlir::RewritePatternSet &patterns);
/// Whether a layout conversion is between identical fragment maps.
bool sameFragments(tile::ConvertLayoutOp op);
/// Why a reduction of `tile` along rows (or columns) cannot be lowered, or "".
std::string reductionUnsupportedReason(tile::RegTileType tile, bool alongRows);
/// Why `tile.cumsum` or `tile.vec_reduce` cannot be lowered, or "".
std::string scanUnsupportedReason(mlir::Operation *op);
/// Why `tile` cannot be stored to a shared vector in fragment order (its
/// register offsets differ between threads), or "".
std::string fragmentStoreUnsupportedReason(tile::RegTileType tile);

/// Work that crosses lanes and warps (Exchange.cpp).
/// How many warps' partial results a reduction along rows (one result per
/// row) or columns combines: the product of the warp modes moving along
/// the reduced axis.
int64_t warpsAcross(const tile::FragmentMap &map, bool alongRows);

/// Whether 8 consecutive registers of `map` form one stmatrix.x4 (the m8n8
/// fragment four times, 16-bit elements): also the layouts whose rows a
/// quad can move 16 bytes at a time (WideGlobal.cpp).
bool fitsStmatrix(const tile::FragmentMap &map, mlir::Type element);
/// 16-byte accesses between a register tile of an m8n8-fragment layout
/// (fitsStmatrix) and a row-major global view, the tile's elements of
/// thread origin (`row`, `col`) at rows `base` + row of the view's `rows` x
/// `cols` (WideGlobal.cpp). storeGlobalWide returns false and
/// loadGlobalWide null when the layout does not fit; the callers then go
/// element by element.
bool storeGlobalWide(mlir::OpBuilder &b, mlir::Location loc,
                     const tile::FragmentMap &map, mlir::Type element,
                     mlir::Value tile, mlir::Value ptr, mlir::Value base,
                     mlir::Value row, mlir::Value col, mlir::Value rows,
                     mlir::Value cols);
mlir::Value loadGlobalWide(mlir::OpBuilder &b, mlir::Location loc,
                           const tile::FragmentMap &map, mlir::Type element,
                           mlir::Type resultType, mlir::Value ptr,
                           mlir::Value base, mlir::Value row, mlir::Value col,
                           mlir::Value rows, mlir::Value cols);
/// Gives every op of `kernel` whose exchange crosses warps its own
/// shared-memory scratch (a `tile.alloc` at the top of the kernel, one slot
/// per warpgroup for warpgroup-scope values); fails when the kernel's shared
/// memory, scratch included, exceeds its target's.
mlir::LogicalResult reserveExchangeScratch(tile::KernelOp kernel);
/// After lowerKernels: each exchanging op learns its scratch's offset.
void placeExchangeScratch(mlir::gpu::GPUModuleOp gpuModule);
/// The scratch of `op` for the executing warpgroup (`scope` warpgroup) or
/// block.
mlir::Value exchangeScratch(mlir::OpBuilder &b, mlir::Location loc,
                            mlir::Operation *op, tile::Scope scope);
/// Every thread of `scope` (of the executing warpgroup, or the block).
void scopeBarrier(mlir::OpBuilder &b, mlir::Location loc, mlir::Operation *op,
                  tile::Scope scope);
/// The 32-bit-or-narrower `value` of lane `lane` (an index) of this warp
/// (shfl.sync.idx on NVIDIA, ds_bpermute on AMD).
mlir::Value shuffleIdx(mlir::OpBuilder &b, mlir::Location loc,
                       mlir::Value value, mlir::Value lane);
/// Layout conversions that move data and `tile.outer`, both targets.
void populateExchangePatterns(mlir::TypeConverter &converter,
                              mlir::RewritePatternSet &patterns);

} // namespace tk::lower

#endif // TK_LIB_CONVERSION_TILETOLLVM_COMMON_H
