// Evaluates data/tile_kernels.yaml: GEMM and implicit-GEMM convolution kernels priced from the
// macro tile in their name and the workgroups of their grid (hw/tile_kernels.h).
#include "hw/tile_kernels.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>

#include "core/data.h"
#include "core/text.h"

namespace goblin::hw {

namespace {

std::string str(const YAML::Node& n, const char* key) {
  return n[key] && n[key].IsScalar() ? n[key].as<std::string>() : std::string();
}

// Digits at the front of s, consumed; nullopt when there are none or the number is absurd.
std::optional<double> take_number(std::string_view& s) {
  size_t i = 0;
  double v = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])) && i < 7) v = v * 10 + (s[i++] - '0');
  if (i == 0 || (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) || v <= 0) return std::nullopt;
  s.remove_prefix(i);
  return v;
}

// The dtype a family's letter code names: the first letter of the name's field `field`.
const TileKernels::DtypeLetter* dtype_letter(const TileKernels::Family& f, std::string_view name) {
  for (const auto& t : f.dtype_tokens)
    if (name.find(t.letter) != std::string_view::npos) return &t;
  if (f.dtype_field < 0) return nullptr;
  size_t at = 0;
  for (int i = 0; i < f.dtype_field; ++i) {
    at = name.find('_', at);
    if (at == std::string_view::npos) return nullptr;
    ++at;
  }
  if (at >= name.size()) return nullptr;
  for (const auto& l : f.dtype_letters)
    if (name.substr(at).starts_with(l.letter)) return &l;
  return nullptr;
}

double workgroups(const Dim3& g) {
  return static_cast<double>(g[0]) * std::max<uint32_t>(g[1], 1) * std::max<uint32_t>(g[2], 1);
}

}  // namespace

std::string TileKernels::cite(const std::string& id) const {
  auto it = documents.find(id);
  return it == documents.end() ? id : it->second;
}

Result<TileKernels> parse_tile_kernels(const std::string& text) {
  TileKernels t;
  try {
    YAML::Node root = YAML::Load(text);
    for (const auto& d : root["documents"])
      t.documents[d.first.as<std::string>()] = str(d.second, "title") + " <" + str(d.second, "url") + ">";
    for (const auto& f : root["families"]) {
      TileKernels::Family fam;
      fam.name = str(f, "name");
      fam.cls = str(f, "class");
      fam.starts_with = str(f, "starts_with");
      fam.contains = str(f, "contains");
      fam.tile = str(f, "tile");
      fam.engine = str(f, "engine");
      fam.formula = str(f, "formula");
      fam.source = str(f, "source");
      fam.dtype_source = str(f, "dtype_source");
      if (f["k_sep"]) fam.k_sep = str(f, "k_sep");
      if (fam.tile.empty() || fam.cls.empty() || (fam.engine != "matrix" && fam.engine != "vector"))
        return make_error(
            ErrorKind::Malformed,
            fmt::format("tile_kernels.yaml: family '{}' needs class, tile and engine (matrix | vector)", fam.name),
            "data/tile_kernels.yaml");
      if (f["dtype_field"]) fam.dtype_field = f["dtype_field"].as<int>();
      for (const auto& l : f["dtype_letters"])
        fam.dtype_letters.push_back({str(l, "letter"), str(l, "dtype"), l["bytes"] ? l["bytes"].as<int>() : 0});
      for (const auto& l : f["dtype_tokens"])
        fam.dtype_tokens.push_back({str(l, "token"), str(l, "dtype"), l["bytes"] ? l["bytes"].as<int>() : 0});
      t.families.push_back(std::move(fam));
    }
  } catch (const YAML::Exception& e) {
    return make_error(ErrorKind::Malformed, fmt::format("tile_kernels.yaml: {}", e.what()), "data/tile_kernels.yaml",
                      -1, e.mark.line + 1);
  }
  return t;
}

Result<std::shared_ptr<const TileKernels>> tile_kernels() {
  static DataDirCache<TileKernels> cache;
  return cache.get([]() -> Result<TileKernels> {
    ASSIGN_OR_RETURN(auto text, load_data_file("tile_kernels.yaml"));
    return parse_tile_kernels(text);
  });
}

std::optional<Tile> parse_tile(std::string_view name, std::string_view token, std::string_view k_sep) {
  for (size_t at = name.find(token); at != std::string_view::npos; at = name.find(token, at + 1)) {
    std::string_view s = name.substr(at + token.size());
    Tile t;
    auto m = take_number(s);
    if (!m || s.empty() || s[0] != 'x') continue;
    s.remove_prefix(1);
    auto n = take_number(s);
    if (!n) continue;
    t.m = *m;
    t.n = *n;
    if (!k_sep.empty() && s.starts_with(k_sep)) {
      s.remove_prefix(k_sep.size());
      if (auto k = take_number(s)) t.k = *k;
    }
    return t;
  }
  return std::nullopt;
}

std::optional<ModelCost> model_tile_kernel(const TileKernels& t, const OpModels& m, std::string_view name, Dim3 grid) {
  const double wg = workgroups(grid);
  if (wg <= 0) return std::nullopt;
  for (const auto& f : t.families) {
    if (!name.starts_with(f.starts_with) || (!f.contains.empty() && name.find(f.contains) == std::string_view::npos))
      continue;
    const auto tile = parse_tile(name, f.tile, f.k_sep);
    if (!tile) continue;
    ModelCost c;
    c.cls = f.cls;
    c.engine = f.engine;
    c.estimate = "lower_bound";
    std::string dtype_basis;
    if (const auto* l = dtype_letter(f, name)) {
      c.dtype = l->dtype;
      c.dtype_bytes = l->bytes;
      dtype_basis = fmt::format("dtype {} from the name's type code", l->dtype);
    } else if (const auto* d = kernel_dtype(m, name)) {
      c.dtype = d->dtype;
      c.dtype_bytes = d->bytes;
      dtype_basis = fmt::format("dtype {} from the name", d->dtype);
    } else {
      c.dtype_bytes = 1;
      dtype_basis = "dtype not in the name: 1 byte";
    }
    c.flops = 2 * wg * tile->m * tile->n * tile->k;
    c.bytes = wg * (tile->m + tile->n) * tile->k * c.dtype_bytes;
    c.formula = fmt::format("{}; workgroups={} tile={}x{}x{} ({})", f.formula, format_sig(wg, 10), tile->m, tile->n,
                            tile->k, dtype_basis);
    c.source = t.cite(f.source);
    if (!f.dtype_source.empty()) c.source += "; " + t.cite(f.dtype_source);
    return c;
  }
  return std::nullopt;
}

}  // namespace goblin::hw
