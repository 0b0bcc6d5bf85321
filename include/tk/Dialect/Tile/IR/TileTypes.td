//===- TileTypes.td - Types of the tile dialect ------------*- tablegen -*-===//
#ifndef TK_TILE_TYPES_TD
#define TK_TILE_TYPES_TD

include "mlir/IR/AttrTypeBase.td"
include "tk/Dialect/Tile/IR/TileDialect.td"
include "tk/Dialect/Tile/IR/TileInterfaces.td"

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class Tile_RegType<string name, string typeMnemonic>
    : Tile_Type<name, typeMnemonic, [DeclareTypeInterfaceMethods<
          Tile_RegisterTypeInterface, ["cloneWith"]>]> {
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::tk::tile::Scope":$scope,
                        "::mlir::Attribute":$layout);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let skipDefaultBuilders = 1;
  let builders = [
    TypeBuilderWithInferredContext<(ins "::llvm::ArrayRef<int64_t>":$shape,
        "::mlir::Type":$elementType, "::tk::tile::Scope":$scope,
        CArg<"::mlir::Attribute", "{}">:$layout), [{
      return $_get(elementType.getContext(), shape, elementType, scope, layout);
    }]>
  ];
}

def Tile_RegTileType : Tile_RegType<"RegTile", "rt"> {
  let summary = "register tile (TK's rt)";
  let description = [{
    A rows x cols tile held in registers by a warp, a warpgroup or the block,
    with an optional layout (left open for `tile-assign-layouts`).

    ```mlir
    !tile.rt<64x256xf32, warpgroup, #tile.mma_acc>
    !tile.rt<16x64xbf16, warp>
    ```
  }];
}

def Tile_RegVecType : Tile_RegType<"RegVec", "rv"> {
  let summary = "register vector (TK's rv)";
  let description = [{
    A vector in registers, typically one element per row or column of a
    register tile, with an optional `#tile.vec` layout.

    ```mlir
    !tile.rv<64xf32, warpgroup, #tile.vec<row, #tile.mma_acc>>
    ```
  }];
}

def Tile_SharedTileType : Tile_Type<"SharedTile", "st"> {
  let summary = "shared-memory tile (TK's st), or a ring of them";
  let description = [{
    A rows x cols tile in shared memory with an optional swizzle (left open
    for `tile-assign-layouts`). A rank-3 shape `S x R x C` is a ring of `S`
    tiles (pipeline stages) indexed with `tile.slot`.

    ```mlir
    !tile.st<128x64xbf16, #tile.swizzle<128>>
    !tile.st<4x128x64xbf16>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        "::tk::tile::SwizzleAttr":$swizzle);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isRing() const { return getShape().size() == 3; }
    int64_t getStages() const { return isRing() ? getShape()[0] : 1; }
    int64_t getRows() const { return getShape()[getShape().size() - 2]; }
    int64_t getCols() const { return getShape().back(); }
    /// Bytes of one tile (one slot of a ring).
    int64_t getTileBytes() const;
    /// Bytes of the whole allocation.
    int64_t getBytes() const { return getStages() * getTileBytes(); }
  }];
}

def Tile_SharedVecType : Tile_Type<"SharedVec", "sv"> {
  let summary = "shared-memory vector (TK's sv), or a ring of them";
  let description = [{
    ```mlir
    !tile.sv<64xf32>
    !tile.sv<2x64xf32>   // a ring of two
    ```

    Vectors start 128-byte aligned and a ring's slots are 128 bytes apart
    or a multiple of it (TMA's shared-memory destinations must be).
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    bool isRing() const { return getShape().size() == 2; }
    int64_t getStages() const { return isRing() ? getShape()[0] : 1; }
    int64_t getLength() const { return getShape().back(); }
    int64_t getTileBytes() const;
    /// Bytes between a ring's slots: 128-byte aligned, as TMA requires of
    /// its shared-memory destination.
    int64_t getSlotBytes() const { return (getTileBytes() + 127) / 128 * 128; }
    int64_t getBytes() const {
      return isRing() ? getStages() * getSlotBytes() : getTileBytes();
    }
  }];
}

def Tile_GlobalType : Tile_Type<"Global", "gl"> {
  let summary = "global-memory view (TK's gl), 1 to 4 dims, each static or dynamic";
  let description = [{
    A row-major view of a tensor in global memory. The last two dimensions
    are rows and columns; leading ones are batch / depth. Dynamic sizes
    (`?`) are read at launch.

    ```mlir
    !tile.gl<?x?xbf16>
    !tile.gl<?x16x?x128xbf16>
    !tile.gl<?x?x?x128xf32, fragments>
    !tile.gl<?x?x128x?xf32, fragments>
    ```

    With `fragments` (f32 only) the rows x cols matrix of each leading index
    is stored in fragment order instead of row-major: rows in slabs of 64
    (rows must be a multiple of 64 at launch; cols a multiple of 8), slab
    `s` at offset `64 * cols * s`, and within a slab element `(r, c)` at

        512 * (c / 8) + 4 * (32 * (r / 16) + 4 * (r % 8) + (c % 8) / 2)
                      + 2 * ((r / 8) % 2) + c % 2

    which is where the wgmma accumulator fragment puts it: thread `t` of a
    warpgroup holds its four elements of an 8-column group at `4 t .. 4 t +
    3`, so a warpgroup's accumulator reaches shared memory with conflict-free
    16-byte stores and goes out with one contiguous bulk copy (FlashAttention-
    3's dQ accumulator). Such a view is written with `tile.store` (plain or
    `reduce add`) and read with `tile.load` of f32 register tiles of 64 rows
    per warpgroup only (a load takes the accumulator layout, so each thread
    reads 16 bytes at a time: kernels/attention/attention_bwd_dq_convert.mlir turns
    the accumulator into bf16 dQ), or reordered on the host
    (`tk_mlir.runtime.from_fragments`). Either dimension
    may be dynamic; a staged store (tile-warp-specialize) copies whole tiles,
    so at launch the columns must also be a multiple of the tile's (the
    manifest's `tile_cols`).

    With `devices = N` (2 to 8) the view is a multi-device view
    (ParallelKittens' pgl): one tensor of this shape on each of up to N GPUs
    of a node, in memory every one of them can reach (peer access to a
    symmetric allocation); a launch passes the copies of `tile.device_count`
    devices, its own at `tile.device_id`. Ops that take a `device` operand
    (`tile.store`, `tile.store_async`, `tile.signal_add`,
    `tile.signal_wait`) address that device's copy; everything else the
    launch's own. Counters in such a view are signalled and waited on at
    system scope.

    ```mlir
    !tile.gl<?x?xbf16, devices = 8>
    !tile.gl<?xi32, devices = 8>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape,
                        "::mlir::Type":$elementType,
                        DefaultValuedParameter<"bool", "false">:$fragments,
                        DefaultValuedParameter<"int64_t", "0">:$devices);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_SemType : Tile_Type<"Sem", "sem"> {
  let summary = "semaphore (an mbarrier on NVIDIA), or an array of them";
  let description = [{
    `!tile.sem` is one semaphore; `!tile.sem<4>` an array of four indexed
    with `tile.slot`. Lives in shared memory.
  }];
  let parameters = (ins DefaultValuedParameter<"unsigned", "1">:$count);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif // TK_TILE_TYPES_TD
