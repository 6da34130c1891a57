// Which Host header values goblin serve answers (DNS rebinding: a web page on a name the attacker
// controls re-points that name at 127.0.0.1, and the browser then lets the page read the server's
// answers as its own; the Host header still carries the attacker's name, so checking it closes
// the hole). A name is answered only when it can only mean this server: the bound name or
// address, loopback names and addresses when bound to loopback, and, bound to every interface,
// any address literal and this machine's own host name.
#pragma once
#include <string>
#include <vector>

namespace goblin::serve {

class HostCheck {
 public:
  // `also`: more names the server answers for (goblin serve --allow-host: a proxy's or an alias's).
  explicit HostCheck(const std::string& bind, const std::vector<std::string>& also = {});
  // `host` as the request sent it (name or [v6] address, with or without :port); empty (an
  // HTTP/1.0 client, which no browser is) is allowed.
  bool allowed(const std::string& host) const;

 private:
  std::string bind_;
  bool loopback_ = false, any_ = false;
  std::string hostname_;
  std::vector<std::string> also_;
};

}  // namespace goblin::serve
