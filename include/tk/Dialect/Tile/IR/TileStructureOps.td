//===- TileStructureOps.td - Kernels, tile loops, roles ----*- tablegen -*-===//
#ifndef TK_TILE_STRUCTUREOPS_TD
#define TK_TILE_STRUCTUREOPS_TD

include "tk/Dialect/Tile/IR/TileOpBase.td"
include "mlir/Interfaces/FunctionInterfaces.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/IR/SymbolInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

def Tile_KernelOp : Tile_Op<"kernel", [
    IsolatedFromAbove, FunctionOpInterface,
    SingleBlockImplicitTerminator<"::tk::tile::ReturnOp">]> {
  let summary = "a GPU kernel with its launch shape";
  let description = [{
    A kernel entry point. Parameters are global views and scalars; the
    parameters are the only views (no op result or region argument in the
    body is one), since each gets its pointer, shape and tensor maps at
    launch. The optional `launch(...)` clause gives the launch shape:

    - `warpgroups = N`: threads per block = 128 N (left open: chosen by
      `tile-warp-specialize` or the lowering);
    - `grid = tiles | persistent`: one block per output tile, or one block
      per multiprocessor looping over tiles (`tile.foreach_tile`);
    - `cluster = [x, y, z]`: thread-block cluster shape;
    - `blocks_per_sm = B` (NVIDIA; default 1): B blocks share each
      multiprocessor. Each thread starts with 65536 / (B · threads)
      registers (`.minnctapersm B`, the register cap `setmaxnreg` budgets
      are drawn from), the shared-memory budget of a block is what B of
      them leave each other, and a persistent grid launches B workers per
      multiprocessor. For kernels whose one consumer warpgroup waits on its
      own chain of exchanges and MMAs, so that a second block's work fills
      the gaps (Mamba2's chunked scan: 1.4x at B = 16, T = 16384, H100).
      AMD targets ignore it (one workgroup per tile, no register budgets).

    ```mlir
    tile.kernel @gemm(%A: !tile.gl<?x?xbf16>, %B: !tile.gl<?x?xbf16>,
                      %C: !tile.gl<?x?xbf16>)
        launch(warpgroups = 3, grid = persistent) {
      ...
    }
    ```

    The verifier checks the launch shape and the shared memory the kernel
    allocates against the target (module attribute `tile.target`, default
    `sm_90a`).
  }];
  let arguments = (ins SymbolNameAttr:$sym_name,
                       TypeAttrOf<FunctionType>:$function_type,
                       OptionalAttr<DictArrayAttr>:$arg_attrs,
                       OptionalAttr<DictArrayAttr>:$res_attrs,
                       OptionalAttr<I32Attr>:$warpgroups,
                       DefaultValuedAttr<Tile_GridPolicy,
                                         "::tk::tile::GridPolicy::tiles">:$grid,
                       OptionalAttr<DenseI32ArrayAttr>:$cluster,
                       OptionalAttr<I32Attr>:$blocks_per_sm);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    ::mlir::Region *getCallableRegion() { return &getBody(); }
    ::llvm::ArrayRef<::mlir::Type> getArgumentTypes() {
      return getFunctionType().getInputs();
    }
    ::llvm::ArrayRef<::mlir::Type> getResultTypes() {
      return getFunctionType().getResults();
    }
    /// Blocks per cluster: the product of the cluster shape (dimensions
    /// below 1 count as 1), saturating at 2^20; 1 without a cluster.
    int64_t getClusterBlocks();
    /// Shared-memory bytes of all `tile.alloc`s in the body, each aligned
    /// as its lowering needs, and of the tile queue of a `dynamic` tile loop
    /// after them; `onAlloc` sees each alloc with its offset, `queueOffset`
    /// (if given) gets the queue's offset (-1 without one).
    int64_t getSharedMemoryBytes(
        ::llvm::function_ref<void(AllocOp, int64_t)> onAlloc = {},
        int64_t *queueOffset = nullptr);
    /// Whether a `tile.foreach_tile` of the body takes its tiles from the
    /// launch's tile counter (`dynamic`).
    bool hasDynamicTiles();
    /// Whether a `tile.foreach_tile` of the body walks the launcher's tile
    /// table (`table`).
    bool hasTableTiles();
    /// Warps per block when `warpgroups` is given, else 0.
    unsigned getNumWarps();
    /// Blocks sharing a multiprocessor: `blocks_per_sm` on NVIDIA targets,
    /// else 1.
    int64_t getBlocksPerMultiprocessor();
    /// Shared-memory bytes one block may allocate: the target's limit, or
    /// with B blocks per multiprocessor what B blocks (each with its
    /// alignment slack and the 1 KB the hardware reserves per block) leave
    /// each other.
    int64_t getSharedMemoryBudget();
    /// Registers each of `threads` threads starts with: its share of the
    /// 64K register file over the blocks of a multiprocessor, a multiple of
    /// 8, at most 248.
    int64_t getStartRegisters(int64_t threads);
  }];
}

def Tile_ReturnOp : Tile_Op<"return", [Pure, Terminator,
    HasParent<"::tk::tile::KernelOp">]> {
  let summary = "end of a kernel";
  let assemblyFormat = "attr-dict";
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["::tk::tile::ForeachTileOp", "::tk::tile::WarpSpecializeOp",
                 "::tk::tile::BlockRolesOp"]>]> {
  let summary = "end of a tile-loop body, a warp role or a block role";
  let description = [{
    Ends a `tile.foreach_tile` body, passing the values the next tile's
    `iter_args` start from (none without `iter_args`), or a warp role or a
    block role (no values).
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ build($_builder, $_state, ::mlir::ValueRange()); }]>];
  let assemblyFormat = "attr-dict ($values^ `:` type($values))?";
  let hasVerifier = 1;
}

def Tile_ForeachTileOp : Tile_Op<"foreach_tile", [
    SingleBlockImplicitTerminator<"::tk::tile::YieldOp">,
    AttrSizedOperandSegments,
    RecursiveMemoryEffects]> {
  let summary = "run the body once for every output tile of a 1-3 dim tile space";
  let description = [{
    The body runs once for each coordinate `(i, j, ...)` of the tile space
    `bounds`, with `i` in `[0, bounds[0])`, etc. Under `grid = tiles` each
    block runs one coordinate; under `grid = persistent` each block walks a
    strided sequence of them. `group G` orders 2-d tile spaces for L2 reuse:
    the first dimension advances in groups of `G` before the second moves
    (TK's super-grouping); without it the first coordinate varies fastest.
    `snake` (persistent grids) deals every other round of tiles to the
    blocks in reverse: with W workers, round r covers tiles [r W, r W + w)
    of the order (w = W, or what is left in the last round), block b takes
    tile r W + b in even rounds and r W + w - 1 - b in odd ones. When tile
    costs repeat with a period that divides W (a causal attention tile
    space whose first coordinate is the query tile), the plain stride hands
    a block the same cost every round; reversing every other round pairs
    long tiles with short ones while each round still runs neighbouring
    tiles together (L2 reuse). With one tile per block it changes nothing.
    In a kernel
    with `cluster = [C, 1, 1]`, C > 1, the unit of work is the cluster:
    every block of a cluster runs the same coordinates (the launcher starts
    C blocks per tile, or per persistent worker), and `tile.cluster_rank`
    tells them apart.

    `dynamic` (persistent grids) hands out tiles in the order above (group
    order included) to whichever block asks next, from a counter in global
    memory, instead of a fixed stride: blocks that run faster (or drew
    shorter tiles) take more, and every multiprocessor can take part when
    the tiles do not divide evenly over them. The first thread of the block
    takes the next tile (one atomic add) and passes it to the block's other
    warps through a small queue in shared memory (mbarriers), so every role
    of a warp-specialized kernel walks the same tiles; each must then run
    the tile loop (`dynamic` on all of the kernel's `tile.foreach_tile`s,
    one in the producer role). The lowering adds the counter as a hidden
    kernel parameter (ABI entry `tile_counter`: two 32-bit words, zero
    before a launch and left zero by it; the runtime owns one per kernel,
    device and stream) and launches one block per multiprocessor. Not with
    `snake` or `stream_k`, not in cluster kernels; NVIDIA targets.

    `table` (persistent grids) walks a schedule the launcher passes: a
    hidden kernel parameter (ABI entry `tile_table`) pointing at 32-bit
    words, W + 1 offsets, the tile ordinals (indices in the order above,
    group order included) and one padding word (each step reads the next
    step's ordinal ahead); block b runs, one after another, the
    tiles whose ordinals stand at words W + 1 + offsets[b] up to (not
    including) W + 1 + offsets[b + 1], W being the number of blocks
    launched. The host can then pack tiles of known, different costs onto
    every multiprocessor (causal attention: three tile lengths that a
    stride cannot balance over 132 blocks) while keeping the tiles of one
    head together. Every role reads the same words, so the roles of a
    warp-specialized kernel walk the same tiles with no queue between
    them. On every tile loop of the kernel or none; not with `snake`,
    `dynamic` or `stream_k`, not in cluster kernels; NVIDIA targets.

    The optional `iteration(%i)` names the body argument that counts how
    many tiles this block ran before this one (0, 1, ...), from which
    persistent kernels derive ring stages and semaphore phases that continue
    across tiles.

    `iter_args(%x = %init, ...) -> (types)` carries values from one tile of
    a block to its next, as `scf.for` does: the body's `tile.yield` gives
    the next tile's values, and the op's results are the values after the
    block's last tile (the inits when it runs none). Under `grid = tiles`
    the body runs at most once per block. Each block carries its own
    values; nothing passes between blocks. tile-warp-specialize keeps the
    carried values with the consumers (python/gpu_checks/carried_walk.mlir
    carries the previous tile's index and checks it on the GPU).

    `stream_k(%kb, %ke, %slot) of %k_steps` (stream-K): every tile has
    `%k_steps` steps of reduction work, and the body runs once per *unit*:
    the k-steps `[%kb, %ke)` of one tile. Under `grid = persistent`, when
    the tiles do not divide evenly over the W blocks (T mod W > 0, T > W),
    the first (floor(T / W) - 1) W tiles of the order run whole, one after
    another on each block, and the k-steps of the remaining tiles (between
    W and 2 W of them) are dealt out in W equal contiguous ranges, so every
    block ends at the same time; a tile is then split over the blocks whose
    ranges it spans. Otherwise (and under `grid = tiles`) every unit is a
    whole tile. The units of a split tile combine their partial results
    themselves (`tile.signal_add` / `tile.signal_wait` on counters in global
    memory); `%slot` numbers the split tiles in flight, distinct for each
    and in `[0, 2 W)`, to index such counters and partial-sum buffers. The
    unit with `%kb = 0` of a split tile runs last of its tile's units on
    its block, after the others were started by blocks that begin with
    them. `iteration(%i)` then counts units, and `tile.prefix_sum` sums over
    the block's earlier units. Not in cluster kernels.

    ```mlir
    tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 8 iteration(%i) {
      ...
    }
    tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) snake {
      ...
    }
    tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) dynamic {
      ...
    }
    tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) table {
      ...
    }
    tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 8
        stream_k(%kb, %ke, %slot) of %tiles_k iteration(%i) {
      ...
    }
    %last = tile.foreach_tile (%t) in (%tiles) iter_args(%prev = %c0) -> (index) {
      ...
      tile.yield %t : index
    }
    ```
  }];
  let arguments = (ins Variadic<Index>:$bounds, Optional<Index>:$k_steps,
                       Variadic<AnyType>:$inits,
                       OptionalAttr<I64Attr>:$group, UnitAttr:$snake,
                       UnitAttr:$dynamic, UnitAttr:$table);
  let results = (outs Variadic<AnyType>:$results);
  let regions = (region SizedRegion<1>:$body);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The tile coordinates, one per tile-space dimension.
    ::llvm::ArrayRef<::mlir::BlockArgument> getCoordinates() {
      return getBody().getArguments().take_front(getBounds().size());
    }
    /// With `stream_k`: the unit's first and end k-step and its split slot.
    ::llvm::ArrayRef<::mlir::BlockArgument> getStreamKArguments() {
      if (!getKSteps())
        return {};
      return getBody().getArguments().slice(getBounds().size(), 3);
    }
    /// How many tiles this block ran before the current one.
    ::mlir::BlockArgument getIteration() {
      return getBody().getArgument(getBounds().size() +
                                   getStreamKArguments().size());
    }
    /// The values carried from one tile to the next (`iter_args`).
    ::llvm::ArrayRef<::mlir::BlockArgument> getRegionIterArgs() {
      return getBody().getArguments().drop_front(
          getIteration().getArgNumber() + 1);
    }
  }];
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [
    SingleBlockImplicitTerminator<"::tk::tile::YieldOp">,
    RecursiveMemoryEffects]> {
  let summary = "producer and consumer warpgroups with register budgets";
  let description = [{
    TK's load/compute/store template: the first `producer` warpgroups run the
    producer region (loads), the next `consumer` warpgroups run the consumer
    region (compute). `registers = R` sets each role's per-thread register
    budget (`setmaxnreg` on NVIDIA): a multiple of 8 in [24, 256].

    `stagger = C` (consumer role, NVIDIA targets) starts the consumer
    warpgroups at different times: consumer warpgroup `i` first waits
    `i · C` cycles of its multiprocessor's clock (at most 100000 each), once.
    Consumers that share a ring of stages otherwise run the same phase at the
    same time (all their MMAs, then all their softmaxes); started apart,
    they keep apart, so one warpgroup's register work runs under another's
    MMAs. The attention forwards measured 1-5% faster at short lengths with
    it (docs/performance.md).

    ```mlir
    tile.warp_specialize producer(warpgroups = 1, registers = 40) {
      ...
    } consumer(warpgroups = 2, registers = 232) {
      ...
    }
    tile.warp_specialize producer(warpgroups = 1, registers = 24) {
      ...
    } consumer(warpgroups = 2, registers = 240, stagger = 2400) {
      ...
    }
    ```
  }];
  let arguments = (ins I32Attr:$producer_warpgroups,
                       I32Attr:$consumer_warpgroups,
                       OptionalAttr<I32Attr>:$producer_registers,
                       OptionalAttr<I32Attr>:$consumer_registers,
                       OptionalAttr<I32Attr>:$consumer_stagger);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_BlockRolesOp : Tile_Op<"block_roles", [
    SingleBlockImplicitTerminator<"::tk::tile::YieldOp">,
    RecursiveMemoryEffects]> {
  let summary = "blocks that communicate and blocks that compute, in one grid";
  let description = [{
    Grid-level roles (ParallelKittens' communication and compute blocks):
    the first `blocks` blocks of the grid run the `communicate` region,
    the others the `compute` region, all at once. The communicate region's
    arguments are the block's index among the communicating blocks and
    their number (`blocks`); the tile loops of the compute region deal
    their tiles to the computing blocks only, as if they were the whole
    grid. The launcher starts `blocks` blocks more than the tile loops'
    persistent grid, which gets the multiprocessors the communicating
    blocks leave (manifest: `communication_blocks`).

    The two roles hand data to each other through global memory and
    counters (`tile.signal_add` / `tile.signal_wait`, `tile.device_barrier`):
    every block must be resident at once, so the kernel has a persistent
    grid. tile-pipeline makes the copies of both regions asynchronous;
    tile-warp-specialize splits the compute region's tile loop into
    producer and consumer warpgroups, as it would a kernel body's, and
    leaves the communicate region to all of the block's warpgroups.

    ```mlir
    tile.block_roles communicate(blocks = 8) (%b, %nb) {
      ... peer copies, then tile.signal_add per chunk ...
    } compute {
      tile.foreach_tile (%m, %n) in (%tiles_m, %tiles_n) group 8 {
        tile.signal_wait %arrived[%m], %epoch at_least : !flags
        ...
      }
    }
    ```

    Directly in the body of a `grid = persistent` kernel, at most one per
    kernel; not in cluster kernels; the compute region's tile loops are not
    `dynamic`, `table` or `stream_k` ones, and the communicate region runs
    no tile loop.
  }];
  let arguments = (ins I64Attr:$blocks);
  let regions = (region SizedRegion<1>:$communicate, SizedRegion<1>:$compute);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

def Tile_WarpgroupIdOp : Tile_Op<"warpgroup_id", [Pure]> {
  let summary = "index of the executing warpgroup within its role";
  let description = [{
    In a `tile.warp_specialize` region: 0 .. (that role's warpgroups - 1).
    Elsewhere in a kernel: the warpgroup's index in the block.

    On NVIDIA it is lane 0's value (`shfl.sync.idx`), so ptxas knows it is
    the same in every lane of a warp: values derived from it stay in uniform
    registers and branches on it are convergent (tile programs never split
    a warp's lanes, so the shuffle always has the whole warp). A kernel with
    `attributes {tile.uniform_warpgroup_id = false}` takes each thread's own
    index instead; ptxas schedules the two differently, and some kernels
    measured faster with one, some with the other.
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_PartRowsOp : Tile_Op<"part_rows", [Pure]> {
  let summary = "the rows of a block-scope tile its executing part computes";
  let description = [{
    `[lo, hi)` holds every row of a block-scope register tile of type
    `tile` whose first row is element row `row` that the executing threads
    compute. Before tile-warp-specialize that is the whole tile,
    `[row, row + R)`; once the pass splits such tiles by rows over W
    consumer warpgroups (R a multiple of 64·W) it is the warpgroup's slice,
    `[row + wg·R/W, row + (wg + 1)·R/W)`. Otherwise (tiles split by
    columns, or by rows in slices under 64 rows) it stays the whole tile:
    the range may be larger than the part, never smaller.

    A program skips work whose rows are all masked or past the end, per
    part: a consumer warpgroup whose 64 query rows lie past the sequence,
    or above a causal diagonal, leaves the tensor cores to the others. The
    values such a skip yields instead must be what the work would have
    produced for those rows, or rows nothing stores.

    ```mlir
    %lo, %hi = tile.part_rows %q0 of !tile.rt<192x128xf32, block>
    %live = arith.cmpi ult, %lo, %seq : index
    ```
  }];
  let arguments = (ins Index:$row, TypeAttr:$tile);
  let results = (outs Index:$lo, Index:$hi);
  let assemblyFormat = "$row `of` $tile attr-dict";
  let hasVerifier = 1;
}

def Tile_PrefixSumOp : Tile_Op<"prefix_sum", [Pure]> {
  let summary = "sum of a per-tile value over the block's earlier tiles";
  let description = [{
    Directly in a `tile.foreach_tile` body: the sum of `x` over the tiles
    the executing block (cluster) ran before the current one, 0 for its
    first (so `x` may differ from tile to tile). With a
    persistent grid this is how a block keeps a running count across tiles
    whose work differs (tile-pipeline's ring position when trip counts vary
    per tile, e.g. causal attention).

    ```mlir
    %base = tile.prefix_sum %trips
    ```
  }];
  let arguments = (ins Index:$x);
  let results = (outs Index:$result);
  let assemblyFormat = "$x attr-dict";
  let hasVerifier = 1;
}

def Tile_ClusterRankOp : Tile_Op<"cluster_rank", [Pure]> {
  let summary = "index of the executing block within its cluster";
  let description = [{
    0 .. C - 1 in a kernel with `cluster = [C, 1, 1]`. In such kernels
    `tile.foreach_tile` hands each tile to a whole cluster, and the rank
    tells the cluster's blocks apart (for example, which half of a pair of
    output tiles a block computes).
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_BlockIdOp : Tile_Op<"block_id", [Pure]> {
  let summary = "index of the executing block in the launch's grid";
  let description = [{
    0 .. (the grid's blocks - 1): the block's index in the kernel's
    one-dimensional grid (`%ctaid.x` on NVIDIA, the workgroup id on AMD),
    before `tile.block_roles` or a cluster splits the grid. A persistent
    grid's size follows its device, so work a launch does once (one
    counter update per device, for example) goes to block 0, which every
    launch has:

    ```mlir
    %block = tile.block_id
    %first = arith.cmpi eq, %block, %c0 : index
    scf.if %first {
      tile.signal_add %flags[%c0], %undo : !flags
    }
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_DeviceIdOp : Tile_Op<"device_id", [Pure]> {
  let summary = "index of the launch's own device among the devices of its multi-device views";
  let description = [{
    0 .. `tile.device_count` - 1: which copy of every multi-device view
    (`!tile.gl<..., devices = N>`) is this launch's own. The runtime passes
    it with the views (a hidden parameter).

    ```mlir
    %me = tile.device_id
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_DeviceCountOp : Tile_Op<"device_count", [Pure]> {
  let summary = "number of devices a launch's multi-device views span";
  let description = [{
    How many devices (processes, one GPU each) take part in the launch: at
    most the `devices = N` of the kernel's multi-device views.

    ```mlir
    %world = tile.device_count
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_DimOp : Tile_Op<"dim", [Pure]> {
  let summary = "size of one dimension of a global view";
  let arguments = (ins Tile_GlobalType:$view, I64Attr:$index);
  let results = (outs Index:$result);
  let assemblyFormat = "$view `[` $index `]` attr-dict `:` qualified(type($view))";
  let hasVerifier = 1;
  let hasFolder = 1;
}

#endif // TK_TILE_STRUCTUREOPS_TD
