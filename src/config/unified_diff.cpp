#include "config/unified_diff.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <vector>

namespace goblin::config {

static std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> v;
  size_t b = 0;
  while (b < s.size()) {
    size_t e = s.find('\n', b);
    if (e == std::string::npos) {
      v.push_back(s.substr(b));
      break;
    }
    v.push_back(s.substr(b, e - b));
    b = e + 1;
  }
  return v;
}

struct Op {
  char k;
  size_t ai, bi;
};

// The shortest edit script between A[off, off+n) and B[off, off+m) (Myers, O((n+m)·D) time and
// O(D²) memory for D edits): a patch changes a few lines, so D is small even in a large file. Past
// kMaxEdits the middle is shown as removed and re-added whole, which is still a correct diff.
std::vector<char> edit_script(const std::vector<std::string>& A, const std::vector<std::string>& B, size_t off,
                              size_t n, size_t m) {
  constexpr int64_t kMaxEdits = 2000;
  std::vector<char> out;
  const auto N = static_cast<int64_t>(n), M = static_cast<int64_t>(m);
  const int64_t dmax = std::min<int64_t>(N + M, kMaxEdits);
  std::vector<int64_t> V(2 * dmax + 3, 0);
  const int64_t mid = dmax + 1;             // V[mid + k]
  std::vector<std::vector<int64_t>> trace;  // trace[d][k + d]: furthest x on diagonal k after d edits
  int64_t found = -1;
  for (int64_t d = 0; d <= dmax && found < 0; ++d) {
    for (int64_t k = -d; k <= d; k += 2) {
      int64_t x = (k == -d || (k != d && V[mid + k - 1] < V[mid + k + 1])) ? V[mid + k + 1] : V[mid + k - 1] + 1;
      int64_t y = x - k;
      while (x < N && y < M && A[off + x] == B[off + y]) ++x, ++y;
      V[mid + k] = x;
      if (x >= N && y >= M) found = d;
    }
    trace.emplace_back(V.begin() + mid - d, V.begin() + mid + d + 1);
  }
  if (found < 0) {
    out.assign(n, '-');
    out.insert(out.end(), m, '+');
    return out;
  }
  int64_t x = N, y = M;
  for (int64_t d = found; d > 0; --d) {
    const auto& prev = trace[d - 1];  // index k + (d - 1)
    const int64_t k = x - y;
    const bool down = k == -d || (k != d && prev[k - 1 + d - 1] < prev[k + 1 + d - 1]);
    const int64_t pk = down ? k + 1 : k - 1;
    const int64_t px = prev[pk + d - 1], py = px - pk;
    const int64_t mx = down ? px : px + 1, my = down ? py + 1 : py;
    while (x > mx && y > my) out.push_back(' '), --x, --y;
    out.push_back(down ? '+' : '-');
    x = px, y = py;
  }
  while (x > 0 && y > 0) out.push_back(' '), --x, --y;
  std::reverse(out.begin(), out.end());
  return out;
}

std::string unified_diff(const std::string& a, const std::string& b, const std::string& a_name,
                         const std::string& b_name, int context) {
  if (a == b) return "";
  auto A = split_lines(a), B = split_lines(b);
  // Trim common prefix/suffix, LCS on the middle.
  size_t pre = 0;
  while (pre < A.size() && pre < B.size() && A[pre] == B[pre]) ++pre;
  size_t suf = 0;
  while (suf < A.size() - pre && suf < B.size() - pre && A[A.size() - 1 - suf] == B[B.size() - 1 - suf]) ++suf;
  size_t n = A.size() - pre - suf, m = B.size() - pre - suf;
  // ops: ' ' keep, '-' delete, '+' insert, with indices into A / B
  std::vector<Op> ops;
  for (size_t i = 0; i < pre; ++i) ops.push_back({' ', i, i});
  for (char k : edit_script(A, B, pre, n, m)) {
    const size_t ai = ops.empty() ? 0 : ops.back().ai + (ops.back().k != '+');
    const size_t bi = ops.empty() ? 0 : ops.back().bi + (ops.back().k != '-');
    ops.push_back({k, ai, bi});
  }
  for (size_t k = 0; k < suf; ++k) ops.push_back({' ', A.size() - suf + k, B.size() - suf + k});
  std::string os = fmt::format("--- {}\n+++ {}\n", a_name, b_name);
  auto out = std::back_inserter(os);
  size_t k = 0;
  while (k < ops.size()) {
    while (k < ops.size() && ops[k].k == ' ') ++k;
    if (k >= ops.size()) break;
    size_t start = k >= static_cast<size_t>(context) ? k - context : 0;
    size_t end = k;
    // extend the hunk while changes are within 2*context of each other
    size_t last_change = k;
    while (end < ops.size()) {
      if (ops[end].k != ' ') last_change = end;
      if (end - last_change > static_cast<size_t>(2 * context)) break;
      ++end;
    }
    end = std::min(ops.size(), last_change + context + 1);
    size_t a0 = ops[start].ai, b0 = ops[start].bi, ac = 0, bc = 0;
    for (size_t x = start; x < end; ++x) {
      if (ops[x].k != '+') ++ac;
      if (ops[x].k != '-') ++bc;
    }
    fmt::format_to(out, "@@ -{},{} +{},{} @@\n", ac ? a0 + 1 : a0, ac, bc ? b0 + 1 : b0, bc);
    for (size_t x = start; x < end; ++x) {
      const std::string& line = ops[x].k == '+' ? B[ops[x].bi] : A[ops[x].ai];
      fmt::format_to(out, "{}{}\n", ops[x].k, line);
    }
    k = end;
  }
  return os;
}

}  // namespace goblin::config
