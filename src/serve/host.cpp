#include "serve/host.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>

namespace goblin::serve {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

// The name or address without a port or brackets; empty when malformed.
std::string host_part(const std::string& h) {
  if (!h.empty() && h.front() == '[') {
    const size_t close = h.find(']');
    if (close == std::string::npos) return "";
    const std::string rest = h.substr(close + 1);
    if (!rest.empty() && (rest.front() != ':' || rest.size() == 1)) return "";
    return h.substr(1, close - 1);
  }
  const size_t colon = h.find(':');
  if (colon == std::string::npos) return h;
  if (h.find(':', colon + 1) != std::string::npos) return "";  // an unbracketed v6 address is not a Host
  return h.substr(0, colon);
}

bool is_v4(const std::string& s) {
  in_addr a{};
  return inet_pton(AF_INET, s.c_str(), &a) == 1;
}
bool is_v6(const std::string& s) {
  in6_addr a{};
  return inet_pton(AF_INET6, s.c_str(), &a) == 1;
}
bool is_loopback_address(const std::string& s) {
  in_addr a{};
  if (inet_pton(AF_INET, s.c_str(), &a) == 1) return (ntohl(a.s_addr) >> 24) == 127;
  in6_addr b{};
  return inet_pton(AF_INET6, s.c_str(), &b) == 1 && IN6_IS_ADDR_LOOPBACK(&b);
}
// "localhost" and every name under .localhost: resolved to loopback by the browser itself
// (RFC 6761 § 6.3), so no DNS answer can re-point them.
bool is_localhost_name(const std::string& s) {
  const std::string n = !s.empty() && s.back() == '.' ? s.substr(0, s.size() - 1) : s;
  return n == "localhost" || (n.size() > 10 && n.ends_with(".localhost"));
}

}  // namespace

HostCheck::HostCheck(const std::string& bind, const std::vector<std::string>& also) : bind_(lower(bind)) {
  for (const auto& a : also) also_.push_back(lower(host_part(a)));
  if (!bind_.empty() && bind_.front() == '[') bind_ = host_part(bind_);
  any_ = bind_.empty() || bind_ == "0.0.0.0" || bind_ == "::" || bind_ == "*";
  loopback_ = is_loopback_address(bind_) || is_localhost_name(bind_);
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) == 0) hostname_ = lower(name);
}

bool HostCheck::allowed(const std::string& host) const {
  if (host.empty()) return true;
  const std::string h = lower(host_part(host));
  if (h.empty()) return false;
  if (h == bind_ || std::find(also_.begin(), also_.end(), h) != also_.end()) return true;
  if (loopback_) return is_localhost_name(h) || is_loopback_address(h);
  if (any_) return is_v4(h) || is_v6(h) || is_localhost_name(h) || (!hostname_.empty() && h == hostname_);
  return false;
}

}  // namespace goblin::serve
