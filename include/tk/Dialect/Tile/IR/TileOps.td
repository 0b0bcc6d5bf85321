//===- TileOps.td - Umbrella for the tile dialect's ops ----*- tablegen -*-===//
#ifndef TK_TILE_OPS_TD
#define TK_TILE_OPS_TD

include "tk/Dialect/Tile/IR/TileStructureOps.td"
include "tk/Dialect/Tile/IR/TileMemoryOps.td"
include "tk/Dialect/Tile/IR/TileComputeOps.td"
include "tk/Dialect/Tile/IR/TileSyncOps.td"

#endif // TK_TILE_OPS_TD
