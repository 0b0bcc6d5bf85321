//===- TileAttrs.td - Layouts and swizzles -----------------*- tablegen -*-===//
#ifndef TK_TILE_ATTRS_TD
#define TK_TILE_ATTRS_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "tk/Dialect/Tile/IR/TileDialect.td"
include "tk/Dialect/Tile/IR/TileEnums.td"
include "tk/Dialect/Tile/IR/TileInterfaces.td"

class Tile_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Tile_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

// An `unsigned` parameter read as a 64-bit integer and range-checked by
// parseUnsignedParameter, which names it `what` in its message: the default
// parser takes a small negative number modulo 2^32 (-1 as 4294967295).
class Tile_UnsignedParameter<string what> : AttrParameter<"unsigned", ""> {
  let parser = "::tk::tile::parseUnsignedParameter($_parser, \"" # what #
               "\")";
}

class Tile_LayoutAttr<string name, string attrMnemonic>
    : Tile_Attr<name, attrMnemonic, [DeclareAttrInterfaceMethods<
          Tile_LayoutAttrInterface, ["getLanes", "buildFragmentMap"]>]>;

def Tile_RowLayoutAttr : Tile_LayoutAttr<"RowLayout", "row"> {
  let summary = "TK's row layout: the mma.sync A-operand fragment";
  let description = [{
    Tiles are made of 16x16 atoms. In an atom, lane `l` holds columns
    `2(l%4)`, `2(l%4)+1` of rows `l/4` and `l/4+8`, then the same for the
    columns 8 higher. Atoms repeat along columns first, then rows; the
    owning warps split the rows into equal contiguous bands. Rows must be a
    multiple of 16 per warp and columns of 16. It is also the register A
    operand of `wgmma`.
  }];
}

def Tile_ColLayoutAttr : Tile_LayoutAttr<"ColLayout", "col"> {
  let summary = "TK's column layout: the transpose of `row` in each atom";
  let description = [{
    Each 16x16 atom holds the transpose of the `row` atom, so a thread's
    packed pair runs down a column (the mma.sync B-operand fragment). Atoms
    and warps are arranged as for `row`.
  }];
}

def Tile_MmaAccLayoutAttr : Tile_LayoutAttr<"MmaAccLayout", "mma_acc"> {
  let summary = "NVIDIA MMA accumulator fragment (wgmma / mma.sync)";
  let description = [{
    The accumulator of `wgmma.m64nNk16` at warpgroup scope and of
    `mma.sync.m16n8k16` at warp scope: warp `w` holds rows `16w .. 16w+15`
    of each `16 x warps`-row slab, lane `l` holds columns `2(l%4)`,
    `2(l%4)+1` of rows `l/4` and `l/4+8` in each 8-column group. Row
    reductions and elementwise ops run on it in registers.
  }];
}

def Tile_MfmaOperand : I32EnumAttr<"MfmaOperand", "operand of an MFMA", [
    I32EnumAttrCase<"a", 0>, I32EnumAttrCase<"b", 1>,
    I32EnumAttrCase<"acc", 2>]> {
  let cppNamespace = "::tk::tile";
  let genSpecializedAttr = 0;
}

def Tile_MfmaLayoutAttr : Tile_LayoutAttr<"MfmaLayout", "mfma"> {
  let summary = "AMD MFMA fragment (wave64) for an instruction shape";
  let description = [{
    The register fragment of AMD CDNA `v_mfma_f32_MxNxK` for operand `a`
    (M x K), `b` (K x N) or the accumulator `acc` (M x N). Supported shapes:
    32x32x8 and 16x16x16 (gfx942 and gfx950), 32x32x16 and 16x16x32
    (gfx950). Atoms repeat along columns first, then rows.

    Without `waves`, the owning waves split rows into equal bands (row
    reductions stay inside a wave). `waves = R x C` arranges the waves as an
    R x C grid, wave `w` at grid row `w / C`, column `w % C`: an accumulator
    is split both ways, an `a` operand by rows (copies across grid columns),
    a `b` operand by columns (copies across grid rows). A grid needs exactly
    R·C waves; it is how block-scope GEMM tiles keep each wave's LDS reads
    small.

    ```mlir
    !tile.rt<32x32xf32, warp, #tile.mfma<32x32x8, acc>>
    !tile.rt<128x256xf32, block, #tile.mfma<32x32x8, acc, waves = 2x4>>
    ```
  }];
  let parameters = (ins "unsigned":$m, "unsigned":$n, "unsigned":$k,
                        EnumParameter<Tile_MfmaOperand>:$operand,
                        DefaultValuedParameter<"unsigned", "0">:$waveRows,
                        DefaultValuedParameter<"unsigned", "0">:$waveCols);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def Tile_ChunksLayoutAttr : Tile_LayoutAttr<"ChunksLayout", "chunks"> {
  let summary = "Copy staging: runs of consecutive row elements per thread";
  let description = [{
    The layout a tile is held in between a global load and a store into
    shared memory when a copy is split in two (AMD's register-staged
    pipeline): the tile is cut into runs of `run` consecutive elements of a
    row (16 bytes for `run = 8` bf16), numbered row-major, and run `i` is
    held by thread `i mod T` of the `T = warps x lanes` owning threads, as
    its `i / T`-th group of `run` registers. Each group is one 16-byte
    global load and one 16-byte shared store. Rows must hold a whole number
    of runs, the tile a whole number of runs per thread, and a row's runs
    must divide the threads and divide, or be a multiple of, a warp's
    lanes. The warps are part of the layout, so block-scope values carry
    their thread count.

    ```mlir
    !tile.rt<128x64xbf16, block, #tile.chunks<lanes = 64, warps = 8, run = 8>>
    ```
  }];
  let parameters = (ins Tile_UnsignedParameter<"#tile.chunks lanes">:$warpSize,
                        Tile_UnsignedParameter<"#tile.chunks warps">:$warps,
                        Tile_UnsignedParameter<"#tile.chunks run">:$run);
  let assemblyFormat = [{
    `<` `lanes` `=` $warpSize `,` `warps` `=` $warps `,` `run` `=` $run `>`
  }];
  let genVerifyDecl = 1;
}

def Tile_VecLayoutAttr : Tile_Attr<"VecLayout", "vec",
    [DeclareAttrInterfaceMethods<Tile_LayoutAttrInterface,
        ["getLanes", "buildFragmentMap", "isVectorLayout"]>]> {
  let summary = "Layout of a vector with one element per row (or column) of a tile";
  let description = [{
    `#tile.vec<row, L>` lays out a vector as a tile of layout `L` holds its
    rows: the result of `tile.row_max` on such a tile, and the operand of
    `tile.broadcast row` back onto it. Lanes and warps that hold different
    columns of the same row hold copies of that row's element.
  }];
  let parameters = (ins EnumParameter<Tile_Axis>:$axis,
                        "::tk::tile::LayoutAttrInterface":$parent);
  let assemblyFormat = "`<` $axis `,` $parent `>`";
  let genVerifyDecl = 1;
}

def Tile_SwizzleAttr : Tile_Attr<"Swizzle", "swizzle"> {
  let summary = "Shared-memory swizzle of a shared tile (0, 32, 64 or 128 bytes)";
  let description = [{
    With `B` bytes (32, 64 or 128) a shared tile is stored as column blocks
    `B` bytes wide, each block row-major, and the 16-byte chunk index of
    every address is XORed with the address bits above the 128-byte line
    (the TMA / wgmma `SWIZZLE_<B>B` pattern). `0` stores the tile row-major,
    unswizzled. On AMD targets the 128-byte pattern also flips the 8-byte
    half (address bit 3) in lines 8 .. 15 of every 16, so that the 8-byte
    MFMA fragment reads of 16 consecutive rows (one LDS phase) hit 32
    distinct banks; 16-byte accesses swap their halves accordingly.
  }];
  let parameters = (ins Tile_UnsignedParameter<"swizzle bytes">:$bytes);
  let assemblyFormat = "`<` $bytes `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// Byte offset of element (row, col) in a `rows` x `cols` tile of
    /// `elemBytes`-byte elements stored with this swizzle.
    int64_t getByteOffset(int64_t row, int64_t col, int64_t rows,
                          int64_t cols, int64_t elemBytes) const;
    /// Why a `rows` x `cols` tile cannot use this swizzle, or "".
    std::string checkShape(int64_t rows, int64_t cols, int64_t elemBytes) const;
  }];
}

#endif // TK_TILE_ATTRS_TD
