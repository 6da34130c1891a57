#include "app/path_roots.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "app/verb.h"
#include "config/workload_config.h"
#include "core/confine.h"

namespace fs = std::filesystem;

namespace goblin::app {

Result<Roots> Roots::make(const std::vector<std::string>& dirs) {
  Roots r;
  std::vector<std::string> in = dirs;
  if (in.empty()) in.push_back(".");
  for (const auto& d : in) {
    std::error_code ec;
    fs::path c = fs::canonical(d, ec);
    if (ec || !fs::is_directory(c, ec))
      return make_error(ErrorKind::Usage, "--root " + d + " is not an existing directory", d);
    r.dirs_.push_back(c.string());
  }
  return r;
}

Result<std::string> Roots::resolve(const std::string& arg, const std::string& what) const {
  if (arg.empty()) return make_error(ErrorKind::Usage, what + " is empty");
  if (arg.find('\0') != std::string::npos) return make_error(ErrorKind::Usage, what + " contains a NUL byte");
  std::vector<fs::path> cands;
  fs::path p(arg);
  if (p.is_absolute())
    cands.push_back(p);
  else
    for (const auto& d : dirs_) cands.push_back(fs::path(d) / p);
  bool existed = false;
  for (const auto& c : cands) {
    std::error_code ec;
    fs::path real = fs::canonical(c, ec);  // follows every symlink
    if (ec) continue;
    existed = true;
    for (const auto& d : dirs_) {
      if (!path_beneath(real.string(), d)) continue;
      // A FIFO, socket or device would block the server (a read that never ends) or stream without
      // bound: only regular files and directories are inputs over MCP.
      const auto type = fs::status(real, ec).type();
      if (type != fs::file_type::regular && type != fs::file_type::directory)
        return make_error(
            ErrorKind::Usage,
            what + " '" + arg + "' is not a regular file or a directory (a FIFO, socket or device); refused", arg);
      return real.string();
    }
  }
  std::string roots;
  for (const auto& d : dirs_) roots += (roots.empty() ? "" : ", ") + display(d);
  if (!existed) return make_error(ErrorKind::Io, what + " '" + arg + "' does not exist under the server's roots", arg);
  return make_error(ErrorKind::Usage,
                    what + " '" + arg +
                        "' resolves (after symlinks) outside the directories this server may read (its roots: " +
                        roots + "); refused: pass a path inside them",
                    arg);
}

std::string Roots::display(const std::string& abs) const {
  for (const auto& d : dirs_) {
    if (abs == d) return ".";
    if (path_beneath(abs, d) && d != "/") return abs.substr(d.size() + 1);
  }
  return abs;
}

namespace {

// A byte of a file name: a root found next to one is part of a longer path ("/data" inside
// "/mnt/data/x", or "/data2"), not the root.
bool path_byte(char c) {
  const unsigned char u = static_cast<unsigned char>(c);
  return std::isalnum(u) || u >= 0x80 || c == '.' || c == '_' || c == '-' || c == '~' || c == '+' || c == '@';
}

// Every root in `out` made relative: "ROOT/x" becomes "x", the root itself "." (`info .` would
// otherwise show the absolute root).
void relativise(std::string& out, const std::string& d) {
  for (size_t at = out.find(d); at != std::string::npos; at = out.find(d, at)) {
    const size_t end = at + d.size();
    if (at > 0 && (path_byte(out[at - 1]) || out[at - 1] == '/')) {
      at = end;  // inside a longer path
    } else if (end < out.size() && out[end] == '/') {
      out.erase(at, d.size() + 1);
    } else if (end < out.size() && path_byte(out[end])) {
      at = end;  // "/data2": another directory
    } else {
      out.replace(at, d.size(), ".");
      at += 1;
    }
  }
}

}  // namespace

std::string scrub_text(const std::string& s, const Roots& roots) {
  std::string out = s;
  for (const auto& d : roots.dirs())
    if (d != "/") relativise(out, d);
  // Lines of file text (a diff, a patched file) carry secrets by key name too. The redactor is
  // one linear pass per shape (no std::regex), so long model-supplied text is not cut up.
  if (out.find('\n') != std::string::npos) out = config::redact_secret_assignments(out);
  return config::redact(out, -1, nullptr);
}

void scrub(Json& j, const Roots& roots) {
  // Iterative, so a deep document costs no recursion.
  std::vector<Json*> stack{&j};
  while (!stack.empty()) {
    Json* x = stack.back();
    stack.pop_back();
    if (x->is_string()) {
      *x = scrub_text(x->get_ref<const std::string&>(), roots);
    } else if (x->is_object()) {
      for (auto& [k, v] : x->items()) {
        // By key name as well (wandb_api_key, password, ...: any shape of value).
        if (v.is_string() && config::is_secret_key(k) &&
            config::is_redactable_secret_value(v.get_ref<const std::string&>()))
          v = "<redacted>";
        else
          stack.push_back(&v);
      }
    } else if (x->is_array()) {
      for (auto& e : *x) stack.push_back(&e);
    }
  }
}

namespace {

Result<std::string> confine_workdir(const std::string& arg, const std::string& what, const Roots& roots,
                                    const std::string& work_root) {
  ASSIGN_OR_RETURN(auto out, Roots::make({work_root}));
  auto p = out.resolve(arg, what);
  if (!p.ok()) p = roots.resolve(arg, what);
  if (p.ok() && path_beneath(*p, out.dirs().front())) return *p;
  return make_error(ErrorKind::Usage,
                    what + " '" + arg +
                        "' is not a workspace this server made (create one with kernel_init and pass the `workspace` "
                        "it returns)",
                    arg);
}

}  // namespace

Result<Json> confine_path_args(const Verb& v, const Json& args, const Roots& roots, const std::string& work_root) {
  Json a = args;
  for (const Field& f : v.request) {
    if (!a.contains(f.name) || a[f.name].is_null()) continue;
    Json& x = a[f.name];
    if (f.kind == FieldKind::WorkDir && x.is_string()) {
      ASSIGN_OR_RETURN(auto p, confine_workdir(x.get<std::string>(), f.name, roots, work_root));
      x = p;
      continue;
    }
    const bool path_kind = f.kind == FieldKind::InputPath || f.kind == FieldKind::InputPaths ||
                           (f.kind == FieldKind::InputJson && x.is_string());
    if (!path_kind) continue;
    if (x.is_string()) {
      ASSIGN_OR_RETURN(auto p, roots.resolve(x.get<std::string>(), f.name));
      x = p;
    } else if (x.is_array()) {
      for (auto& e : x) {
        if (!e.is_string()) continue;  // make_request names the wrong type
        ASSIGN_OR_RETURN(auto p, roots.resolve(e.get<std::string>(), f.name));
        e = p;
      }
    }
  }
  return a;
}

}  // namespace goblin::app
