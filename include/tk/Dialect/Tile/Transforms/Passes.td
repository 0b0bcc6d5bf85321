//===- Passes.td - Passes of the tile dialect --------------*- tablegen -*-===//
#ifndef TK_TILE_PASSES_TD
#define TK_TILE_PASSES_TD

include "mlir/Pass/PassBase.td"

def TilePrintLayouts : Pass<"tile-print-layouts", "::tk::tile::KernelOp"> {
  let summary = "Report where every element of each register value lives";
  let description = [{
    For every op result with a register layout, emits a remark with the
    value's fragment map (`regs`, `lanes`, `warps` modes as
    `size:(row stride, col stride)`), whether the map covers each element
    exactly once per copy, and the (register, lane, warp) of the first and
    last element. Block-scope values use the kernel's warp count. A tool for
    reading layouts and for testing the layout mechanism; it changes nothing.

    ```mlir
    %0 = tile.fill 0.0 : !tile.rt<16x16xf32, warp, #tile.row>
    // remark: regs [2:(0,1) 2:(8,0) 2:(0,8)] lanes [4:(0,2) 8:(1,0)] warps []; ...
    ```
  }];
}

def TileSetTarget : Pass<"tile-set-target", "::mlir::ModuleOp"> {
  let summary = "Select the chip a module's kernels are compiled for";
  let description = [{
    Sets the module attribute `tile.target` to `chip` (`sm_90a`, `gfx942`,
    `gfx950`) so that verifiers and passes consult that chip. A module that
    already names another chip is an error: the program was written for it.
    The target pipelines run it first, so `tk-opt` picks the target by chip
    name.
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"\"",
           "The chip: sm_90a, gfx942 or gfx950">,
  ];
}

def TileBind : Pass<"tile-bind", "::tk::tile::KernelOp"> {
  let summary = "Compile a kernel for fixed values of some scalar parameters";
  let description = [{
    Replaces every use of a scalar kernel parameter that carries `tile.bound`
    by a constant of that value, so that later folding removes the branches
    it decides (as Triton's `constexpr` arguments do). `params` adds
    bindings, `INDEX=VALUE` each (the parameter's position from 0; `true`,
    `false`, an integer or a float, as its type takes), as `tile.bound`
    attributes before folding. The parameter stays in the launch ABI; the
    manifest records its value (`"value"` in its `params` entry) and the
    Python runtime refuses a launch that passes another.

    Errors: a malformed entry, a position past the last parameter, a global
    view, a value its type cannot hold, two values for one parameter.
    Parameters without `tile.bound` are left alone. The target pipelines
    run it first (their `bind` option is its `params`); like every option of
    a kernel pass, `params` applies to each kernel of the module.

    ```mlir
    // tile-bind="params=1=false"
    tile.kernel @k(%X: !tile.gl<?x?xf32>, %causal: i1) { ... %causal ... }
    // after
    tile.kernel @k(%X: !tile.gl<?x?xf32>, %causal: i1 {tile.bound = false}) {
      %false = arith.constant false
      ... %false ...
    }
    ```
  }];
  let options = [
    ListOption<"params", "params", "std::string",
               "INDEX=VALUE bindings of scalar parameters">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

def TileAssignLayouts : Pass<"tile-assign-layouts", "::tk::tile::KernelOp"> {
  let summary = "Choose open register layouts and shared swizzles from their uses";
  let description = [{
    Gives every register tile or vector whose layout is left open, and every
    shared tile whose swizzle is left open, a layout the lowering accepts;
    explicit choices are kept.

    Register values that must share a layout (operands and result of an
    elementwise op or a `tile.cast`, a loop's init, region argument, yield
    and result) form one class. A class takes, in this order: an explicit
    layout of a member; `#tile.mma_acc` if a member is an MMA result or
    accumulator (NVIDIA targets); the layout a register MMA operand needs
    (`#tile.row` for A in `AB`/`ABt`, ...); else `#tile.row`. Where two
    fixed layouts meet, the pass keeps the first (in program order) and
    inserts one `tile.convert_layout` at the use that needs the other, with
    a remark. Vectors then follow their tiles: a row reduction's result is
    `#tile.vec<row, L>` of its operand's layout `L`, a broadcast's operand
    `#tile.vec<axis, L>` of its result's.

    Shared tiles take the widest swizzle (128, 64 or 32 bytes) that divides
    their row bytes, else none (`#tile.swizzle<0>`); rings, slots and
    subtiles follow their allocation. The result is deterministic: the same
    input always gives the same output.

    On AMD targets the MMA layouts are MFMA fragments: each mma takes the
    first of the chip's MFMA shapes that tiles it, `#tile.mfma<..., acc>`
    for its result and `a` / `b` for register operands; tiles nothing fixes
    take the first mma's accumulator fragment (or stay open without one);
    shared swizzles stay open, with a remark.

    ```mlir
    // before
    %acc = tile.fill 0.0 : !tile.rt<64x256xf32, warpgroup>
    %d = tile.mma AB %a, %b, %acc : !tile.st<64x64xbf16>, !tile.st<64x256xbf16> -> !tile.rt<64x256xf32, warpgroup>
    // after
    %acc = tile.fill 0.0 : !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
    %d = tile.mma AB %a, %b, %acc : !tile.st<64x64xbf16, #tile.swizzle<128>>, ...
    ```
  }];
}

def TileDynamicTiles : Pass<"tile-dynamic-tiles", "::tk::tile::KernelOp"> {
  let summary = "Make a persistent kernel's tile loops take tiles as blocks ask";
  let description = [{
    Marks every `tile.foreach_tile` of a `grid = persistent` kernel
    `dynamic`: blocks then take tiles, in the loop's order, from a counter
    in global memory instead of a fixed stride (see `tile.foreach_tile`).
    `snake` is dropped, since blocks no longer own fixed rounds. This
    compiles a second variant of a program whose tiles cost the same (a
    non-causal attention forward, a GEMM) without editing it; for tiles of
    different costs (causal), the static snake order is usually the better
    one. The target pipeline's `dynamic-tiles` option runs it first, so
    that `tile-pipeline` counts the tile queue in the shared-memory budget.

    Left alone, with a remark saying why: kernels for AMD targets, kernels
    with one tile per block (`grid = tiles`), cluster kernels, kernels with
    a `stream_k` loop or with a tile loop that is neither directly in the
    kernel nor in a warp role, and warp-specialized kernels whose producer
    role runs no tile loop or synchronises its warps. Kernels without a
    tile loop are not mentioned.

    ```mlir
    // before
    tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) snake { ... }
    // after
    tile.foreach_tile (%t, %h, %b) in (%q_tiles, %heads, %batch) dynamic { ... }
    ```
  }];
}

def TilePipeline : Pass<"tile-pipeline", "::tk::tile::KernelOp"> {
  let summary = "Turn copies in a loop into an N-stage asynchronous ring";
  let description = [{
    For each `scf.for` whose body starts its iteration with `tile.copy`s
    into shared buffers, makes each buffer a ring of N stages filled by
    `tile.load_async` (TMA on NVIDIA): a `full` semaphore per stage
    (transaction bytes, announced by `tile.sem_expect`) tells the compute
    that a stage has landed, an `empty` semaphore per stage (one arrival
    per warpgroup) tells the loads that it may be overwritten, and phase
    bits follow the ring's round. Warpgroup 0 issues a prologue of N - 1
    loads before the loop and, at the top of iteration i, the load for
    iteration i + N - 1. Any trip count is correct, including 0, 1 and
    fewer than N. Inside a `tile.foreach_tile` the ring position continues
    across tiles (from the body's `iteration`), so a persistent grid keeps
    the semaphores' phases.

    N is the loop's `tile.stages` attribute if present, else the `stages`
    option, else (0) the most stages, up to 3, that fit the target's
    shared-memory budget; an N that does not fit is an error naming the
    bytes needed and the largest N that fits. With `override-stages` a
    positive `stages` option wins over the loops' attributes: one program
    compiled twice, e.g. a deeper ring for short calls.

    Left alone, with a remark saying why: loops whose copied buffer is used
    after the loop or before its copy in the body, read by `tile.mma_async`,
    copied twice, not allocated by a plain `tile.alloc`; copies whose
    coordinates depend on loop-carried values or side effects; loops in a
    warp role; loops whose ring position across executions is unknown
    (anywhere other than the kernel body or directly in a
    `tile.foreach_tile` with a loop-invariant trip count); kernels without
    `launch(warpgroups = N)`.

    `tile-warp-specialize` recognizes the loop it produces
    (`tile.pipelined`) and moves the loads into a producer warpgroup.

    On AMD targets (no TMA, no mbarriers) the pass picks one of two
    schedules. With two warpgroups (8 waves) and LDS for three stages of
    every copied buffer, HipKittens' 8-wave ping-pong: warpgroup 1 starts
    one block barrier late, and each iteration is a memory phase (the
    thread's 16-byte runs of the next tiles, `#tile.chunks`, loaded and
    stored into stage (k + 1) mod 3) and a compute phase (stage k mod 3),
    each ended by a block barrier, so one warpgroup's loads overlap the
    other's MFMAs. Otherwise a register-staged prefetch: the next tile's
    global loads at the top of the iteration, overlapping the MFMAs, and
    its LDS store at the end between two block barriers, one LDS buffer per
    copy; with one warpgroup (one wave per SIMD) the loop is also marked
    `tile.interleave`, HipKittens' 4-wave interleave, and the lowering
    spreads the prefetch loads and LDS reads between the MFMAs. Over the
    LDS budget, a tile copied once before a loop and read there only as an
    mma's A operand is first kept in registers. `tile.stages = 1` (or the option `stages = 1`) keeps a loop's
    copies synchronous. The same leave-alone rules apply, except the ring
    position.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"stages", "stages", "int64_t", /*default=*/"0",
           "Ring stages when the loop has no tile.stages attribute "
           "(0: the most, up to 3, that fit in shared memory)">,
    Option<"overrideStages", "override-stages", "bool", /*default=*/"false",
           "A positive `stages` also replaces the loops' tile.stages (to "
           "compile a variant of a program with another ring depth)">,
  ];
}

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::tk::tile::KernelOp"> {
  let summary = "Split a pipelined kernel into producer and consumer warpgroups";
  let description = [{
    Rewrites a kernel whose `tile.foreach_tile` body holds one loop
    pipelined by `tile-pipeline` into TK's load/compute/store template:

    - a `tile.warp_specialize` with one producer warpgroup that runs the
      ring's loads for every k-step of every tile (waiting on `empty`,
      announcing and issuing on `full`), and the kernel's W warpgroups as
      consumers that wait on `full`, compute and arrive on `empty`;
    - the consumers split the block's work by rows: each block-scope
      register tile of R rows becomes a warpgroup tile of R / W rows, the
      A operand of an MMA from shared memory becomes that warpgroup's
      subtile, and loads and stores address the warpgroup's rows;
    - register budgets (`setmaxnreg`): `producer-registers` for the
      producer, and for the consumers the most (a multiple of 8, at most
      256) that the block's registers leave (each thread starts with a
      multiple of 8 of the 64K register file, at most 248; the budgets
      must fit in that total);
    - `grid = persistent` and `group G` on the tile loop (L2-friendly
      order; 2-d tile spaces);
    - the consumers' warpgroup stores of whole tiles to global memory go
      through a shared buffer and `tile.store_async` (TK's epilogue),
      add-reducing stores first: into a shared tile for a row-major view,
      into a shared vector per warpgroup (fragment order, one bulk copy)
      for a view in fragment order, when the buffer fits;
    - consumer `stagger`: the `stagger` option if it is not negative, else
      the kernel's `tile.stagger` attribute (cycles; e.g. `attributes
      {tile.stagger = 2400}`), else none. Consumer warpgroup i starts
      i · stagger cycles late, so the consumers do not run the same phase
      at the same time;
    - a tile loop that carries values (`iter_args`) keeps them in the
      consumers' loop, and counter signals after the loop that read its
      results move into the consumers' role with the memory-effect-free
      ops after the loop; the producer's loop yields its carried values
      back unchanged (a block publishing a tile's results one tile late
      carries which tile that was).

    Kernels it cannot split are left alone with a remark saying why (no or
    several pipelined loops, other work outside the tile loop, block-scope
    values it cannot split by rows, no register budgets on the target, too
    many warpgroups, loads or waits that depend on carried values).
    Kernels that are already warp-specialized, or have nothing pipelined
    and no `tile.copy`, are left alone silently.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let options = [
    Option<"producerRegisters", "producer-registers", "int64_t",
           /*default=*/"40", "Per-thread registers of the producer warpgroup">,
    Option<"group", "group", "int64_t", /*default=*/"8",
           "Rows of tiles per L2 group of the persistent tile order (0: "
           "row-major)">,
    Option<"mmaSplit", "mma-split", "std::string", /*default=*/"\"columns\"",
           "How an mma whose rows do not split over the consumers is split: "
           "'columns' (each warpgroup its columns of the result) or "
           "'contraction' (each its rows of K, when the result is only "
           "scaled and add-reduced to global memory); an mma's own "
           "tile.split attribute takes precedence">,
    Option<"stagger", "stagger", "int64_t", /*default=*/"-1",
           "Cycles between the consumer warpgroups' starts (negative: the "
           "kernel's tile.stagger attribute, if any)">,
  ];
}

def TileOverlapMma : Pass<"tile-overlap-mma", "::tk::tile::KernelOp"> {
  let summary = "Overlap a loop's second MMA with the next iteration's first "
                "(FlashAttention-3's intra-warpgroup overlap)";
  let description = [{
    For an `scf.for` (after `tile-warp-specialize`: warpgroup-scope MMAs)
    whose body has exactly two `tile.mma`s, M1 then M2, where M2 reads a
    value computed from M1's result (attention's P from S = Q Kᵀ) and
    accumulates into a loop-carried value that it yields (O), the loop is
    rotated so that iteration i issues M1 of i and M2 of i - 1 together as
    `tile.mma_async`:

    ```mlir
    S_i = tile.mma_async ... K_i
    <wait for V_{i-1}>; O = tile.mma_async P_{i-1}, V_{i-1}, acc_{i-1}
    tile.mma_wait 1     // S_i done: the softmax of S_i runs under P V
    ...
    tile.mma_wait 0     // then V_{i-1} is released and acc_i = O · alpha_i
    ```

    The first iteration up to M2 is peeled before the loop, the last M2
    after it, all under `scf.if lb < ub`. What runs one iteration late is
    M2, the ops just before it that only serve it (its buffer's semaphore
    wait and ring slot) and the side effects after it (the buffer's
    release); their index arithmetic is recomputed for the previous
    iteration, and the values they read from M1's side (P) and the
    accumulator (O · alpha) are carried. Ops that use the loop-carried
    accumulator move after the `tile.mma_wait 0`.

    Loops with other shapes are left alone; a loop with two MMAs that does
    not qualify gets a remark saying why (the second MMA's result used in
    the iteration, no loop-carried accumulator, M2 independent of M1, side
    effects that would have to move, MMAs already asynchronous).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
}

def TilePingpong : Pass<"tile-pingpong", "::tk::tile::KernelOp"> {
  let summary = "Make the consumer warpgroups take turns issuing their MMAs "
                "(ping-pong)";
  let description = [{
    For a kernel with the `tile.pingpong` unit attribute, after
    `tile-warp-specialize` and `tile-overlap-mma`: the consumer role's
    warpgroup MMAs are grouped into issue phases -- the MMAs of one block
    with no `tile.mma_wait`, barrier or nested region between them (a
    synchronous `tile.mma` ends its phase) -- and each phase is bracketed
    by `tile.mma_turn take` and `tile.mma_turn pass`:

    ```mlir
    tile.sem_wait %full_k, %round
    tile.mma_turn take
    %s = tile.mma_async ABt %q, %k : !q, !k -> !s
    tile.sem_wait %full_v, %round_prev
    %o2 = tile.mma_async AB %p, %v, %o : !p, !v -> !o
    tile.mma_turn pass
    tile.mma_wait 1
    ```

    A synchronous `tile.mma` ending a phase becomes `tile.mma_async`, the
    pass, and `tile.mma_wait 0`, so the next warpgroup issues while this
    one waits. The warpgroups then issue one at a time, in turn: one
    warpgroup's softmax (or epilogue) runs while the other's MMAs occupy
    the tensor cores, which a start offset (`tile.stagger`) only sets up
    once (FlashAttention-3's inter-warpgroup overlap).

    Left alone with a remark: kernels without a consumer role of 2 to 4
    warpgroups, non-NVIDIA targets, and roles with an MMA under control
    flow that may differ between the consumer warpgroups (a condition,
    bound or loop-carried value computed from `tile.warpgroup_id`,
    `tile.part_rows` or register data): a warpgroup that skipped a turn
    would stop the others. Kernels without the attribute, and roles that
    already take turns, are left alone silently.
  }];
}

def TileEarlyEpilogue : Pass<"tile-early-epilogue", "::tk::tile::KernelOp"> {
  let summary = "Run a tile's epilogue work that does not read the last "
                "MMA's result before waiting for that MMA";
  let description = [{
    After `tile-overlap-mma` and `tile-pingpong`: a rotated loop ends in
    its guard, an `scf.if` whose then-branch issues the last iteration's
    second MMA, waits for it (`tile.mma_wait`) and releases its operands
    (only `tile.slot` and `tile.sem_arrive` after the wait). The ops after
    the guard that do not read a result the wait completes (one the
    then-branch yields straight from a `tile.mma_async`) move into both
    branches: into the then-branch just before the wait, into the
    else-branch before its yield, so they run while the MMA multiplies:

    ```mlir
    %r:3 = scf.if %any {
      ...
      %o = tile.mma_async AB %p, %v, %acc : !p, !v -> !o
      tile.mma_turn pass
      %inv = tile.div %ones, %l : !row        // moved
      tile.store %lse, %L[%b, %h, %t] : ...    // moved
      tile.store_async_wait                    // moved
      tile.mma_wait 0
      tile.sem_arrive %empty_v
      scf.yield %m, %l, %o, %inv : ...
    } else { ... the same ops on the else values ...; scf.yield ... }
    %on = tile.mul %r#2, %inv_b : !o           // reads the MMA's result
    ```

    What moves: ops after the guard, in order, whose operands are available
    before the wait (defined before the guard, a result not completed by
    the wait, or a moved op's result) and that compute in registers
    (no memory effects, no regions), write global memory (`tile.store` to
    a `!tile.gl` view, not reducing) or wait for earlier copies out
    (`tile.store_async_wait`). The first op that stays and touches memory
    or has regions ends the scan, so memory operations keep their order.
    Moved values read after the guard become new results of it. Guards
    whose moves would be constants and index arithmetic only are left
    alone, as is every other `scf.if`.

    On the head-dim-128 forward (H100), the reciprocal of the row sum, the
    log-sum-exp and its store and the output buffer's wait then run under
    the last P V: 1-4% faster at 512-2048 tokens (docs/performance.md).
  }];
}

#endif // TK_TILE_PASSES_TD
