// Which Host names goblin serve answers (serve/host.h): DNS rebinding needs a name the attacker
// controls, which is never one of these.
#include "serve/host.h"

#include <gtest/gtest.h>
#include <unistd.h>

namespace goblin::serve {
namespace {

TEST(HostCheck, LoopbackBindAnswersOnlyLoopbackNames) {
  const HostCheck h("127.0.0.1");
  for (const char* ok : {"127.0.0.1", "127.0.0.1:8080", "localhost", "LOCALHOST:8080", "localhost.", "[::1]:8080",
                         "app.localhost:9", "127.1.2.3", ""})
    EXPECT_TRUE(h.allowed(ok)) << ok;
  for (const char* bad : {"evil.example", "evil.example:8080", "localhost.evil.example", "127.0.0.1.nip.io", "10.0.0.1",
                          "[::1", "::1", "a:b:c", "[::1]x"})
    EXPECT_FALSE(h.allowed(bad)) << bad;
}

TEST(HostCheck, NamedOrAddressBindAnswersThatOnly) {
  const HostCheck name("dash.internal");
  EXPECT_TRUE(name.allowed("dash.internal:8080"));
  EXPECT_TRUE(name.allowed("DASH.internal"));
  EXPECT_FALSE(name.allowed("evil.example"));
  EXPECT_FALSE(name.allowed("localhost"));
  const HostCheck aliased("0.0.0.0", {"gpu-box.corp.example", "Dash.Example:443"});
  EXPECT_TRUE(aliased.allowed("gpu-box.corp.example:8080"));
  EXPECT_TRUE(aliased.allowed("dash.example"));
  EXPECT_FALSE(aliased.allowed("gpu-box.corp.example.evil.test"));
  const HostCheck addr("10.1.2.3");
  EXPECT_TRUE(addr.allowed("10.1.2.3:8080"));
  EXPECT_FALSE(addr.allowed("10.1.2.4"));
  EXPECT_FALSE(addr.allowed("rebind.example"));
}

TEST(HostCheck, EveryInterfaceAnswersAddressesAndThisHost) {
  const HostCheck any("0.0.0.0");
  EXPECT_TRUE(any.allowed("192.168.1.20:8080"));
  EXPECT_TRUE(any.allowed("[fe80::1]:8080"));
  EXPECT_TRUE(any.allowed("localhost"));
  char name[256] = {0};
  if (gethostname(name, sizeof name - 1) == 0 && name[0]) {
    EXPECT_TRUE(any.allowed(name));
  }
  EXPECT_FALSE(any.allowed("rebind.attacker.test"));
}

}  // namespace
}  // namespace goblin::serve
