// The roofline's kernel_tile tier: GEMM and implicit-GEMM convolution kernels without shapes,
// priced from the macro tile their name carries and the workgroups of their grid, a lower bound on
// the work they issue (data/tile_kernels.yaml says what is known and what is not).
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/status.h"
#include "hw/op_models.h"
#include "model/timeline.h"

namespace goblin::hw {

struct TileKernels {
  struct DtypeLetter {
    std::string letter, dtype;
    int bytes = 0;
  };
  struct Family {
    std::string name, cls, starts_with, contains, tile, engine, formula, source, dtype_source;
    std::string k_sep = "x";  // what separates the k-step from m x n: x (<m>x<n>x<k>) or _ (<m>x<n>_<k>x<stages>)
    int dtype_field = -1;     // the '_'-separated field whose first letter names the dtype; -1: tokens
    std::vector<DtypeLetter> dtype_letters;
    std::vector<DtypeLetter> dtype_tokens;  // `letter` holds a substring of the name
  };
  std::vector<Family> families;
  std::map<std::string, std::string> documents;  // id → "title <url>"
  std::string cite(const std::string& id) const;
};

Result<TileKernels> parse_tile_kernels(const std::string& yaml_text);

// data/tile_kernels.yaml, parsed once per process and data directory.
Result<std::shared_ptr<const TileKernels>> tile_kernels();

// The macro tile a kernel name carries after `token`: m, n and k (after `k_sep`; k = 1 when the
// name gives none).
struct Tile {
  double m = 0, n = 0, k = 1;
};
std::optional<Tile> parse_tile(std::string_view name, std::string_view token, std::string_view k_sep = "x");

// A kernel of one of the families, priced from its name and grid (workgroups); nullopt when no
// family matches, the tile does not parse or the grid is unknown. The dtype falls back to
// op_models' kernel_dtype_tokens, then to 1 byte (still a lower bound).
std::optional<ModelCost> model_tile_kernel(const TileKernels& t, const OpModels& m, std::string_view kernel_name,
                                           Dim3 grid);

}  // namespace goblin::hw
