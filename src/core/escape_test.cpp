#include "core/escape.h"

#include <gtest/gtest.h>

namespace goblin {
namespace {

TEST(Escape, MarkdownTextCannotCarryHtmlLinksOrTableBreaks) {
  const std::string hostile = "<script>alert(1)</script> ![x](http://evil/i.png) | **b** \n# h";
  const std::string m = md_text(hostile);
  EXPECT_EQ(m.find("<script"), std::string::npos);
  EXPECT_EQ(m.find("![x]("), std::string::npos);  // no image or link syntax survives
  EXPECT_NE(m.find("!\\[x\\](http"), std::string::npos) << m;
  EXPECT_EQ(m.find(" | "), std::string::npos);
  EXPECT_EQ(m.find('\n'), std::string::npos);
  EXPECT_NE(m.find("&lt;script&gt;"), std::string::npos);
  EXPECT_EQ(md_text("precision_path _x_"), "precision_path \\_x\\_");
  EXPECT_EQ(md_text("abc\xC3\xA9"
                    "def",
                    4),
            "abc...");  // cut before a character, not inside it
}

TEST(Escape, PlainTextKeepsNamesAsRecordedAndMasksControls) {
  // A terminal is not Markdown: a template kernel and an ATen op print as they were recorded.
  EXPECT_EQ(plain_text("cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"),
            "cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>");
  EXPECT_EQ(plain_text("aten::_softmax"), "aten::_softmax");
  EXPECT_EQ(plain_text("40,092 -> 237,572"), "40,092 -> 237,572");
  // ... but nothing in a recorded name moves the cursor or starts an escape sequence.
  EXPECT_EQ(plain_text("a\x1b[2Jb\x07"
                       "c\x7f"),
            "a?[2Jb?c?");
  EXPECT_EQ(plain_text("x\xC2\x9B"
                       "31m"),
            "x?31m");  // C1 CSI
  EXPECT_EQ(plain_text("l1\nl2\tz"), "l1 l2 z");
  EXPECT_EQ(plain_text("abc\xC3\xA9"
                       "def",
                       4),
            "abc...");
}

TEST(Escape, FencesOutgrowTheBackticksInside) {
  const std::string body = "a: 1\n```\nb: 2\n";
  const std::string f = md_fence(body, "diff");
  EXPECT_EQ(f.rfind("````diff\n", 0), 0u) << f;
  EXPECT_EQ(f.substr(f.size() - 5), "````\n");
  EXPECT_EQ(md_code("a``b"), "```a``b```");
  EXPECT_EQ(md_code("`x"), "`` `x ``");
}

TEST(Escape, OnlyWebLinksAreLinks) {
  EXPECT_TRUE(is_web_link("https://pytorch.org/docs/stable/optim.html#algorithms"));
  EXPECT_FALSE(is_web_link("javascript:alert(1)"));
  EXPECT_FALSE(is_web_link("JAVASCRIPT:alert(1)"));
  EXPECT_FALSE(is_web_link("data:text/html;base64,PHNjcmlwdD4="));
  EXPECT_FALSE(is_web_link("https://x.org/\" onmouseover=\"alert(1)"));
  EXPECT_EQ(md_link("source", "javascript:alert(1)"), "javascript:alert(1)");
  EXPECT_EQ(md_link("source", "https://a.org/x"), "[source](https://a.org/x)");
  EXPECT_EQ(html_link("source", "data:text/html,x"), "data:text/html,x");
  EXPECT_EQ(html_link("s", "https://a.org/?a=1&b=2"),
            "<a href=\"https://a.org/?a=1&amp;b=2\" rel=\"noopener noreferrer\">s</a>");
}

}  // namespace
}  // namespace goblin
