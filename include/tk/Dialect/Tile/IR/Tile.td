//===- Tile.td - Umbrella for the tile dialect -------------*- tablegen -*-===//
#ifndef TK_TILE_TD
#define TK_TILE_TD

include "tk/Dialect/Tile/IR/TileDialect.td"
include "tk/Dialect/Tile/IR/TileEnums.td"
include "tk/Dialect/Tile/IR/TileInterfaces.td"
include "tk/Dialect/Tile/IR/TileAttrs.td"
include "tk/Dialect/Tile/IR/TileTypes.td"
include "tk/Dialect/Tile/IR/TileOps.td"

#endif // TK_TILE_TD
