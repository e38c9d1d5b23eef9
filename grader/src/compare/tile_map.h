// Geometry of the coarse tile map shared by compare() and the diagnoses.
// Along each edge, output tiles are shown one per character; when there are
// more tiles than `map_max`, the map has exactly `map_max` cells and tile t
// falls into cell floor(t * cells / tiles), so each cell merges one or more
// neighbouring tiles and the last cell always holds the last (partial) tile.
#pragma once
#include <algorithm>
#include <cstdint>

namespace sg::tile_map {

struct Axis {
  std::int64_t extent = 0;  // elements along this edge (m or n)
  std::int64_t tiles = 0;   // ceil(extent / tile)
  int tile = 16;
  int cells = 0;            // characters along this edge of the map

  int cell_of_element(std::int64_t i) const {
    return static_cast<int>((i / tile) * cells / tiles);
  }
  // First tile of `cell` (cells past the end give `tiles`).
  std::int64_t first_tile(int cell) const { return (cell * tiles + cells - 1) / cells; }
  // Element range [begin, end) that `cell` covers.
  std::int64_t begin(int cell) const { return std::min(extent, first_tile(cell) * tile); }
  std::int64_t end(int cell) const { return std::min(extent, first_tile(cell + 1) * tile); }
};

inline Axis make_axis(std::int64_t extent, int tile, int map_max) {
  Axis a;
  a.extent = extent;
  a.tile = tile > 0 ? tile : 16;
  a.tiles = (extent + a.tile - 1) / a.tile;
  a.cells = static_cast<int>(std::min<std::int64_t>(a.tiles, std::max(map_max, 1)));
  return a;
}

}  // namespace sg::tile_map
