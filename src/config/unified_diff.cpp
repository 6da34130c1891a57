#include "config/unified_diff.h"

#include <algorithm>
#include <sstream>
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
  std::vector<std::vector<uint32_t>> L(n + 1, std::vector<uint32_t>(m + 1, 0));
  for (size_t i = n; i-- > 0;)
    for (size_t j = m; j-- > 0;)
      L[i][j] = A[pre + i] == B[pre + j] ? L[i + 1][j + 1] + 1 : std::max(L[i + 1][j], L[i][j + 1]);
  // ops: ' ' keep, '-' delete, '+' insert, with indices into A / B
  struct Op {
    char k;
    size_t ai, bi;
  };
  std::vector<Op> ops;
  for (size_t i = 0; i < pre; ++i) ops.push_back({' ', i, i});
  size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && A[pre + i] == B[pre + j]) {
      ops.push_back({' ', pre + i, pre + j});
      ++i, ++j;
    } else if (j < m && (i == n || L[i][j + 1] > L[i + 1][j])) {
      ops.push_back({'+', pre + i, pre + j});
      ++j;
    } else {
      ops.push_back({'-', pre + i, pre + j});
      ++i;
    }
  }
  for (size_t k = 0; k < suf; ++k) ops.push_back({' ', A.size() - suf + k, B.size() - suf + k});
  std::ostringstream os;
  os << "--- " << a_name << "\n+++ " << b_name << "\n";
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
    os << "@@ -" << (ac ? a0 + 1 : a0) << "," << ac << " +" << (bc ? b0 + 1 : b0) << "," << bc << " @@\n";
    for (size_t x = start; x < end; ++x) {
      const std::string& line = ops[x].k == '+' ? B[ops[x].bi] : A[ops[x].ai];
      os << ops[x].k << line << "\n";
    }
    k = end;
  }
  return os.str();
}

}  // namespace goblin::config
