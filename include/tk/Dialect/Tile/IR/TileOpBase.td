//===- TileOpBase.td - Base class and type constraints -----*- tablegen -*-===//
#ifndef TK_TILE_OPBASE_TD
#define TK_TILE_OPBASE_TD

include "mlir/IR/OpBase.td"
include "tk/Dialect/Tile/IR/TileDialect.td"
include "tk/Dialect/Tile/IR/TileTypes.td"
include "tk/Dialect/Tile/IR/TileAttrs.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_AnyRegister : AnyTypeOf<[Tile_RegTileType, Tile_RegVecType],
                                 "register tile or vector">;
def Tile_AnySharedBuffer : AnyTypeOf<[Tile_SharedTileType, Tile_SharedVecType],
                                     "shared tile or vector">;
def Tile_AnyShared : AnyTypeOf<[Tile_SharedTileType, Tile_SharedVecType,
                                Tile_SemType], "shared tile, vector or semaphore">;

// A single semaphore (not an array); buildable so formats can omit it.
def Tile_OneSem : Type<And<[CPred<"::llvm::isa<::tk::tile::SemType>($_self)">,
        CPred<"::llvm::cast<::tk::tile::SemType>($_self).getCount() == 1">]>,
    "single semaphore (!tile.sem)", "::tk::tile::SemType">,
    BuildableType<"::tk::tile::SemType::get($_builder.getContext(), 1)">;

#endif // TK_TILE_OPBASE_TD
