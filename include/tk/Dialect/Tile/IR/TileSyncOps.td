//===- TileSyncOps.td - Semaphores, barriers, fences -------*- tablegen -*-===//
#ifndef TK_TILE_SYNCOPS_TD
#define TK_TILE_SYNCOPS_TD

include "tk/Dialect/Tile/IR/TileOpBase.td"

def Tile_SemInitOp : Tile_Op<"sem_init"> {
  let summary = "initialise a semaphore (or each of an array) with an arrival count";
  let description = [{
    Run once per kernel by one thread (the lowering elects it) before any
    use; follow with `tile.fence sem_init` and a block barrier.

    ```mlir
    tile.sem_init %full, 1 : !tile.sem<4>
    ```
  }];
  let arguments = (ins Tile_SemType:$sem,
                       ConfinedAttr<I32Attr, [IntMinValue<1>]>:$count);
  let assemblyFormat = "$sem `,` $count attr-dict `:` qualified(type($sem))";
  let hasVerifier = 1;
}

def Tile_SemArriveOp : Tile_Op<"sem_arrive"> {
  let summary = "arrive on a semaphore (once per executing scope)";
  let description = [{
    With `cluster` (kernels with a cluster of C > 1 blocks), the arrival is
    made on the same semaphore in every block of the cluster, so its
    initial count must include the arrivals of all C blocks. Used to hand a
    stage filled by a `multicast` load back to every block's producer.

    ```mlir
    tile.sem_arrive %empty_s
    tile.sem_arrive %empty_s cluster
    ```
  }];
  let arguments = (ins Tile_OneSem:$sem, UnitAttr:$cluster);
  let assemblyFormat = "$sem (`cluster` $cluster^)? attr-dict";
  let hasVerifier = 1;
}

def Tile_ClusterSyncOp : Tile_Op<"cluster_sync"> {
  let summary = "execution and memory barrier over every block of the cluster";
  let description = [{
    Every thread of every block of the cluster arrives and waits (release
    and acquire at cluster scope). Needed after initialising semaphores that
    other blocks signal, and before exiting while other blocks may still
    signal this block's semaphores. Not allowed inside a warp role, which
    runs on part of the block.
  }];
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_SemExpectOp : Tile_Op<"sem_expect"> {
  let summary = "arrive and expect the bytes of the listed shared buffers";
  let description = [{
    Announces that async copies filling `buffers` complete on `sem`
    (`mbarrier.arrive.expect_tx` with the sum of their sizes).

    ```mlir
    tile.sem_expect %full_s, %a_s, %b_s : !tile.st<128x64xbf16>, !tile.st<64x256xbf16>
    ```
  }];
  let arguments = (ins Tile_OneSem:$sem, Variadic<Tile_AnySharedBuffer>:$buffers);
  let assemblyFormat = [{
    $sem `,` $buffers attr-dict `:` qualified(type($buffers))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Transaction bytes the listed buffers add up to.
    int64_t getBytes();
  }];
}

def Tile_SemWaitOp : Tile_Op<"sem_wait"> {
  let summary = "wait until the semaphore's phase with the given parity completes";
  let description = [{
    Only the lowest bit of `phase` is read, so a running round count can be
    passed as is. Waiting on the parity of the round before the first
    (`round xor 1`) returns at once: the idiom for "buffer is free".
  }];
  let arguments = (ins Tile_OneSem:$sem, I32:$phase);
  let assemblyFormat = "$sem `,` $phase attr-dict";
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "execution and shared-memory barrier over a scope";
  let description = [{
    `warp`: the executing warp; `warpgroup`: the executing warpgroup;
    `block`: every thread that runs the block's work -- the whole block, or,
    inside a `tile.warp_specialize` role, every warpgroup of that role (a
    named barrier of the role's threads on NVIDIA). So a block barrier in a
    program's tile loop keeps its meaning when tile-warp-specialize moves
    the loop into the consumer role.
  }];
  let arguments = (ins Tile_Scope:$scope);
  let assemblyFormat = "$scope attr-dict";
}

def Tile_MmaTurnOp : Tile_Op<"mma_turn"> {
  let summary = "take or pass the consumer warpgroups' turn to issue MMAs";
  let description = [{
    Ping-pong scheduling (CUTLASS's and FlashAttention-3's): the consumer
    warpgroups of a `tile.warp_specialize` issue their MMAs one warpgroup at
    a time, in round-robin order, so one warpgroup's softmax or epilogue
    runs while another's MMAs keep the tensor cores busy. `take` waits
    until the previous consumer warpgroup (the last one, for the first)
    has passed the turn; `pass` hands it to the next. The first consumer
    warpgroup holds the turn when the role starts.

    Every consumer warpgroup must execute the same sequence of `take` and
    `pass`, alternating and starting with `take`: a warpgroup that skips
    one stops the others. `tile-pingpong` inserts them around a program's
    MMAs when the kernel asks for it (`tile.pingpong`). NVIDIA only: a
    named barrier per consumer warpgroup (`bar.sync` / `bar.arrive`).

    ```mlir
    tile.mma_turn take
    %s = tile.mma_async ABt %q, %k : !q, !k -> !s
    %o2 = tile.mma_async AB %p, %v, %o : !p, !v -> !o
    tile.mma_turn pass
    tile.mma_wait 1
    ```
  }];
  let arguments = (ins Tile_TurnAction:$action);
  let assemblyFormat = "$action attr-dict";
  let hasVerifier = 1;
}

def Tile_FenceOp : Tile_Op<"fence"> {
  let summary = "memory fence";
  let arguments = (ins Tile_FenceKind:$kind);
  let assemblyFormat = "$kind attr-dict";
}

def Tile_SignalAddOp : Tile_Op<"signal_add"> {
  let summary = "add to a counter in global memory once the block got here (release)";
  let description = [{
    Every thread that runs the block's work (the whole block, or inside a
    `tile.warp_specialize` role that role's warpgroups) executes it: once
    all of them reached it, one thread adds `value` to element `index` of
    the 1-d i32 view `counters`, with release semantics at device scope, so
    every global write the block made before is visible to a block that
    sees the new count with `tile.signal_wait`. Counters are how blocks of
    a grid hand partial results to each other (stream-K GEMM); they keep
    their values across launches, so a kernel that uses one sets it back.

    ```mlir
    tile.signal_add %flags[%slot], %steps : !tile.gl<?xi32>
    ```

    The release covers the block's ordinary global writes, not its async
    (TMA) stores (`tile.store_async`, TMA store lowerings): with
    `after_async_stores` the add first waits until those are written, not
    only read (`tile.store_async_wait` waits for the reads), and makes them
    visible to the release — for a block that announces TMA-stored data.
    Without it no such wait is spent (the stream-K GEMM's flags announce
    register stores only). tile-warp-specialize sets it on the adds after
    a register store it turns into a TMA store.

    ```mlir
    tile.store_async %out -> %P[%slot, %c0] : !tile.st<128x128xf32>, !tile.gl<?x?xf32>
    tile.signal_add %flags[%slot], %one after_async_stores : !tile.gl<?xi32>
    ```

    On a multi-device view (`devices = N`) the add is a release at system
    scope into device `%d`'s copy (`device %d`; the launch's own without
    it), and it always publishes the block's async stores as
    `after_async_stores` does — the order a peer needs between the data
    and the flag that announces it. On AMD every store is an ordinary one
    (no TMA): the release covers them all.

    ```mlir
    tile.signal_add %ready[%slot], %one device %d : !tile.gl<?xi32, devices = 8>
    ```
  }];
  let arguments = (ins Tile_GlobalType:$counters, Index:$index, I32:$value,
                       Optional<Index>:$device, UnitAttr:$after_async_stores);
  let assemblyFormat = [{
    $counters `[` $index `]` `,` $value (`device` $device^)?
    (`after_async_stores` $after_async_stores^)? attr-dict `:` qualified(type($counters))
  }];
  let hasVerifier = 1;
}

def Tile_SignalWaitOp : Tile_Op<"signal_wait"> {
  let summary = "wait until a counter in global memory equals a value (acquire)";
  let description = [{
    Executed by every thread that runs the block's work (as
    `tile.signal_add`): one thread polls element `index` of the 1-d i32
    view `counters` with acquire semantics at device scope until it equals
    `value`, then the block (role) continues together, seeing every global
    write made before the `tile.signal_add`s that produced the count. The
    blocks that add to it must be able to run meanwhile (a persistent grid
    no larger than what is resident at once).

    ```mlir
    tile.signal_wait %flags[%slot], %expected : !tile.gl<?xi32>
    ```

    `at_least` waits until the counter is `value` or more instead (as a
    signed difference, so a counter that keeps growing across launches may
    wrap): the form for counters that are never set back, whose adders may
    already be one launch ahead. On a multi-device view the poll is an
    acquire at system scope, of device `%d`'s copy with `device %d`. On
    NVIDIA a proxy fence follows the poll, so that async (TMA) loads and
    stores after the wait see those writes too.

    ```mlir
    tile.signal_wait %arrived[%c0], %expected at_least : !tile.gl<?xi32, devices = 8>
    ```
  }];
  let arguments = (ins Tile_GlobalType:$counters, Index:$index, I32:$value,
                       Optional<Index>:$device, UnitAttr:$at_least);
  let assemblyFormat = [{
    $counters `[` $index `]` `,` $value (`device` $device^)? (`at_least` $at_least^)? attr-dict `:` qualified(type($counters))
  }];
  let hasVerifier = 1;
}

def Tile_DeviceBarrierOp : Tile_Op<"device_barrier"> {
  let summary = "barrier across the blocks of every device (system scope)";
  let description = [{
    Every thread that runs the block's work (the whole block, or inside a
    `tile.warp_specialize` role that role's warpgroups) executes it. Once
    all of them reached it and the block's async (TMA) stores are written,
    one thread adds 1 to element `index` of every device's copy of the
    multi-device counter view (release at system scope), then polls its
    own device's copy (acquire at system scope) until it is `expected` or
    more, as a signed difference; the block (role) then continues together.
    Every global write any block of any device made before the barrier is
    visible after it, to async (TMA) loads and stores too (a proxy fence
    follows the poll).

    A launch adds to every copy the number of blocks of all devices (D·B
    with B blocks on each of D devices). Between launches the counter
    either keeps growing (the launcher passes the running total, previous
    total + that sum, as `expected`) or is zeroed on its device before the
    next launch, with that sum as `expected` every time; zeroing is safe
    only when no peer can reach the next launch's barrier before this
    device has started that launch (gemm_reduce_scatter: each block first
    waits for every device's announcement of the launch). All the blocks
    of every device must be able to run at once (a persistent grid no
    larger than what is resident).

    ```mlir
    tile.device_barrier %flags[%c0], %total : !tile.gl<?xi32, devices = 8>
    ```

    Equivalent to a `tile.signal_add` of 1 to each device's copy followed
    by a `tile.signal_wait ... at_least` on the own copy, in one block
    barrier and one wait for the block's stores. In a warp-specialized
    kernel the consumers' role takes the barrier; before the tile loop the
    producer's role waits for the same count (it adds nothing).
  }];
  let arguments = (ins Tile_GlobalType:$counters, Index:$index, I32:$expected);
  let assemblyFormat = [{
    $counters `[` $index `]` `,` $expected attr-dict `:` qualified(type($counters))
  }];
  let hasVerifier = 1;
}

#endif // TK_TILE_SYNCOPS_TD
