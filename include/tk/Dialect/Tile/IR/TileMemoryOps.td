//===- TileMemoryOps.td - Loads, stores, shared buffers ----*- tablegen -*-===//
#ifndef TK_TILE_MEMORYOPS_TD
#define TK_TILE_MEMORYOPS_TD

include "tk/Dialect/Tile/IR/TileOpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def Tile_AllocOp : Tile_Op<"alloc"> {
  let summary = "allocate a shared tile, vector or semaphore (ring) for the kernel";
  let description = [{
    Shared memory lives for the whole kernel, so `tile.alloc` appears
    directly in the kernel body. The kernel verifier adds up all of them
    against the target's shared-memory budget.

    ```mlir
    %a = tile.alloc : !tile.st<4x128x64xbf16>
    %full = tile.alloc : !tile.sem<4>
    ```
  }];
  let results = (outs Res<Tile_AnyShared, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_SlotOp : Tile_Op<"slot", [Pure,
    DeclareOpInterfaceMethods<InferTypeOpInterface>]> {
  let summary = "one slot of a ring of shared tiles, vectors or semaphores";
  let description = [{
    ```mlir
    %a_s = tile.slot %a[%stage] : !tile.st<4x128x64xbf16>
    %full_s = tile.slot %full[%stage] : !tile.sem<4>
    ```
  }];
  let arguments = (ins Tile_AnyShared:$ring, Index:$index);
  let results = (outs Tile_AnyShared:$result);
  let assemblyFormat = "$ring `[` $index `]` attr-dict `:` qualified(type($ring))";
}

def Tile_SubtileOp : Tile_Op<"subtile", [Pure]> {
  let summary = "a smaller shared tile inside a shared tile";
  let description = [{
    `(row, col)` count in units of the result tile, as TK's
    `subtile_inplace`. A swizzled tile can be split only into whole rows of
    swizzle atoms (8 rows) and whole swizzle-width column blocks.

    ```mlir
    %half = tile.subtile %a[%wg, %c0] : !tile.st<128x64xbf16> to !tile.st<64x64xbf16>
    ```
  }];
  let arguments = (ins Tile_SharedTileType:$source, Index:$row, Index:$col);
  let results = (outs Tile_SharedTileType:$result);
  let assemblyFormat = [{
    $source `[` $row `,` $col `]` attr-dict `:` qualified(type($source))
    `to` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_LoadAsyncOp : Tile_Op<"load_async", [AttrSizedOperandSegments]> {
  let summary = "asynchronous global→shared copy completing on a semaphore";
  let description = [{
    Copies the tile at tile coordinates `coords` of `src` into `dst`
    (TMA on NVIDIA). The last two coordinates count tiles of `dst`'s shape;
    leading ones index the leading dimensions. Out-of-bounds elements read
    as zero. Completion is signalled on `sem` as transaction bytes, which a
    `tile.sem_expect` must announce.

    `multicast` (kernels with a cluster of C > 1 blocks): every block of the
    cluster runs the same load with the same coordinates; each copies 1/C of
    the tile's rows and writes them into `dst` and `sem` of every block of
    the cluster, so each block receives the whole tile (and all of its
    transaction bytes) while global memory is read once per cluster. A
    slice must hold whole 8-row swizzle atoms: the tile's rows must be a
    multiple of 8 C. The consumers releasing `dst` must then release it in
    every block (`tile.sem_arrive ... cluster`), since any block's producer
    overwrites it.

    ```mlir
    tile.load_async %A[%m, %k] -> %a_s, %full_s : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
    tile.load_async %B[%k, %n] -> %b_s, %full_s multicast : !tile.gl<?x?xbf16>, !tile.st<64x256xbf16>
    ```

    From a multi-device view, `device %d` reads device `%d`'s copy (a TMA
    load through NVLink from a peer's memory); without it, the launch's
    own.

    ```mlir
    tile.load_async %A[%m, %k] device %d -> %a_s, %full_s : !tile.gl<?x?xbf16, devices = 8>, !tile.st<128x64xbf16>
    ```
  }];
  let arguments = (ins Tile_GlobalType:$src, Variadic<Index>:$coords,
                       Tile_AnySharedBuffer:$dst, Tile_OneSem:$sem,
                       UnitAttr:$multicast, Optional<Index>:$device);
  let assemblyFormat = [{
    $src `[` $coords `]` (`device` $device^)? `->` $dst `,` $sem (`multicast` $multicast^)? attr-dict `:`
    qualified(type($src)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "synchronous global→shared copy by the whole block";
  let description = [{
    The naive form of a load into shared memory: copies the tile at tile
    coordinates `coords` of `src` (as for `tile.load_async`) into `dst`, and
    every thread of the block sees the data when the op returns. Before it
    overwrites `dst`, every earlier read of `dst` by the block is complete.
    Out-of-bounds elements read as zero.

    `tile-pipeline` turns copies in a loop into an asynchronous ring of
    buffers with semaphores; the lowering does not take `tile.copy` itself
    (a one-stage pipeline is the synchronous form).

    ```mlir
    tile.copy %A[%m, %k] -> %a : !tile.gl<?x?xbf16>, !tile.st<128x64xbf16>
    ```

    From a multi-device view, `device %d` copies from device `%d`'s copy
    (tile-pipeline keeps it on the asynchronous loads it makes).
  }];
  let arguments = (ins Tile_GlobalType:$src, Variadic<Index>:$coords,
                       Tile_AnySharedBuffer:$dst, Optional<Index>:$device);
  let assemblyFormat = [{
    $src `[` $coords `]` (`device` $device^)? `->` $dst attr-dict `:`
    qualified(type($src)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load"> {
  let summary = "load a register tile or vector from shared or global memory";
  let description = [{
    From a shared tile (vector) of the same shape, or from a global view at
    tile coordinates `coords` (as for `tile.load_async`). Elements past the
    view's last two dimensions read as zero; the leading coordinates must
    be inside the view (unlike an async copy's, they are not checked). From a view in fragment order only f32
    tiles of 64 rows per warpgroup (its slabs) are read.

    ```mlir
    %q = tile.load %q_s : !tile.st<64x128xbf16> -> !tile.rt<64x128xbf16, warpgroup>
    %x = tile.load %X[%b, %h, %c, %z] : !tile.gl<?x?x?x64xbf16> -> !tile.rt<64x64xbf16, warpgroup>
    %d = tile.load %Acc[%b, %h, %t, %c] : !tile.gl<?x?x?x?xf32, fragments> -> !tile.rt<64x64xf32, warpgroup>
    ```
  }];
  let arguments = (ins AnyTypeOf<[Tile_SharedTileType, Tile_SharedVecType,
                                  Tile_GlobalType]>:$src,
                       Variadic<Index>:$coords);
  let results = (outs Tile_AnyRegister:$result);
  let assemblyFormat = [{
    $src (`[` $coords^ `]`)? attr-dict `:` qualified(type($src)) `->`
    qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store", [AttrSizedOperandSegments]> {
  let summary = "store a register tile or vector to shared or global memory";
  let description = [{
    To a shared tile (vector) of the same shape, or to a global view at tile
    coordinates `coords`; elements past the view's last two dimensions are
    not written, and the leading coordinates must be inside the view (they
    are not checked). A
    register tile stored to a shared vector of its element count (64 rows,
    f32) is written in fragment order (`!tile.gl<..., fragments>`): the
    staging form tile-warp-specialize uses for views in that order.
    With `reduce add` (register tiles of f32, f16 or bf16 to a global view
    only) each element is added to memory atomically instead: partial sums
    from many blocks accumulate, as attention's backward does for dQ in
    f32 and GEMM + reduce-scatter does in bf16 into a peer's view.
    tile-warp-specialize routes such a store through a shared buffer and a
    reducing async (TMA) store; lowered directly, it is one atomic add per
    element.

    ```mlir
    tile.store %o, %O[%b, %h, %q, %c0] : !tile.rt<64x128xbf16, warpgroup>, !tile.gl<?x?x?x128xbf16>
    tile.store %dq, %dQ[%b, %h, %q, %c0] reduce add : !tile.rt<64x128xf32, block>, !tile.gl<?x?x?x128xf32>
    ```
  }];
  let arguments = (ins Tile_AnyRegister:$value,
                       AnyTypeOf<[Tile_SharedTileType, Tile_SharedVecType,
                                  Tile_GlobalType]>:$dst,
                       Variadic<Index>:$coords,
                       OptionalAttr<Tile_ReduceKind>:$reduce,
                       Optional<Index>:$device);
  let assemblyFormat = [{
    $value `,` $dst (`[` $coords^ `]`)? (`device` $device^)? (`reduce` $reduce^)? attr-dict `:`
    qualified(type($value)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_StoreAsyncOp : Tile_Op<"store_async", [AttrSizedOperandSegments]> {
  let summary = "asynchronous shared→global copy, plain or add-reduce";
  let description = [{
    Copies `src` to tile coordinates `coords` of `dst` (TMA store on NVIDIA);
    with `reduce add` the copy adds into global memory. Out-of-bounds
    elements are not written. `tile.store_async_wait` waits until `src` may
    be reused. To a view in fragment order the source is a shared vector of
    64 x k elements in that order, which lands as one contiguous bulk copy
    (not TMA tensor copies) at the 64-row slab and k-column block `coords`
    name.

    ```mlir
    tile.store_async %c_s -> %C[%m, %n] : !tile.st<128x256xbf16>, !tile.gl<?x?xbf16>
    tile.store_async %dq_v -> %dQ[%b, %h, %q, %c1] reduce add : !tile.sv<4096xf32>, !tile.gl<?x?x?x128xf32, fragments>
    tile.store_async %dq_s -> %dQ[%b, %h, %q, %c0] reduce add : !tile.st<64x128xf32>, !tile.gl<?x?x?x128xf32>
    ```

    To a multi-device view, `device %d` stores into device `%d`'s copy (a
    TMA store through NVLink to a peer's memory); without it, into the
    launch's own.

    ```mlir
    tile.store_async %c_s -> %C[%m, %n] device %d reduce add : !tile.st<128x256xbf16>, !tile.gl<?x?xbf16, devices = 8>
    ```
  }];
  let arguments = (ins Tile_AnySharedBuffer:$src, Tile_GlobalType:$dst,
                       Variadic<Index>:$coords,
                       OptionalAttr<Tile_ReduceKind>:$reduce,
                       Optional<Index>:$device);
  let assemblyFormat = [{
    $src `->` $dst `[` $coords `]` (`device` $device^)? (`reduce` $reduce^)? attr-dict `:`
    qualified(type($src)) `,` qualified(type($dst))
  }];
  let hasVerifier = 1;
}

def Tile_StoreAsyncWaitOp : Tile_Op<"store_async_wait"> {
  let summary = "wait until at most `pending` async stores still read shared memory";
  let description = [{
    Each warpgroup waits until at most `pending` of the async (TMA) stores
    its issuing thread started are still reading their shared-memory
    source, which may then be written again. With `written` it waits until
    they are written to global memory, and fences them for ordinary
    accesses: the warpgroup's ordinary loads and stores after it are
    ordered after what its own async stores wrote (tile-warp-specialize
    puts one before the consumers' register work after their tile loop,
    where each warpgroup works on the rows it stored).

    ```mlir
    tile.store_async_wait
    tile.store_async_wait written
    ```
  }];
  let arguments = (ins DefaultValuedAttr<ConfinedAttr<I32Attr,
                       [IntNonNegative]>, "0">:$pending,
                       UnitAttr:$written);
  let assemblyFormat = "(`written` $written^)? attr-dict";
}

def Tile_PrefetchOp : Tile_Op<"prefetch"> {
  let summary = "prefetch a box of a global view into L2";
  let description = [{
    ```mlir
    tile.prefetch %A[%m, %k] box [128, 64] : !tile.gl<?x?xbf16>
    ```

    A hint that the executing threads will soon read the box of the view
    whose origin is `coords` times `box` along the box's dimensions (the
    last one or two of the view; coordinates count boxes, as a copy's count
    tiles), and the plain coordinate along the others. It has no other
    effect: parts of the box past the view are ignored.

    NVIDIA: one thread of each executing warpgroup issues TMA prefetches
    (`cp.async.bulk.prefetch.tensor`), one per 256 x 256 chunk of the box
    (TMA's largest box; the last chunk along a dimension may reach past the
    box), through a tensor map of that chunk; the box's rows must be a
    multiple of 16 bytes. AMD: dropped (CDNA has no L2 prefetch of a box).
  }];
  let arguments = (ins Tile_GlobalType:$src, Variadic<Index>:$coords,
                       DenseI64ArrayAttr:$box);
  let assemblyFormat = [{
    $src `[` $coords `]` `box` $box attr-dict `:` qualified(type($src))
  }];
  let hasVerifier = 1;
}

#endif // TK_TILE_MEMORYOPS_TD
