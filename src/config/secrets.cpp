// Secret redaction for everything goblin prints about a user's config: by the shape of a value
// (tokens, bearer headers, credentials inside URLs, home paths, bucket URIs) and by the name of
// the key that holds it (wandb_api_key, aws_secret_access_key, password, hub_token, ...).
//
// Hand-written scanners, not std::regex: libstdc++'s regex recurses once per matched character,
// so a long value (a model-supplied string, a minified config) could overflow the stack; these
// are one linear pass per shape.
#include <algorithm>
#include <cctype>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "config/workload_config.h"
#include "core/text.h"

namespace goblin::config {

namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
bool token_char(char c) { return alnum(c); }
bool token_dash_char(char c) { return alnum(c) || c == '_' || c == '-'; }
bool token_us_char(char c) { return alnum(c) || c == '_'; }
bool bearer_char(char c) { return alnum(c) || std::strchr("._~+/=-", c) != nullptr; }
bool user_char(char c) { return alnum(c) || c == '.' || c == '_' || c == '-'; }
bool uri_char(char c) { return !std::isspace(static_cast<unsigned char>(c)) && std::strchr("\"',}]", c) == nullptr; }
bool jwt_char(char c) { return alnum(c) || c == '_' || c == '-' || c == '.'; }  // base64url segments
bool upper_alnum(char c) { return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

// A value shape: `prefix` then at least `min` bytes for which `body` holds (as many as there are),
// replaced by `repl`.
struct Shape {
  const char* kind;
  const char* prefix;
  bool (*body)(char);
  size_t min;
  const char* repl;
};

const Shape kShapes[] = {
    {"hf_token", "hf_", token_char, 20, "hf_<redacted>"},
    {"openai_key", "sk-", token_dash_char, 20, "sk-<redacted>"},
    {"github_token", "github_pat_", token_us_char, 20, "github_pat_<redacted>"},
    {"github_token", "ghp_", token_char, 20, "ghp_<redacted>"},
    {"github_token", "gho_", token_char, 20, "ghp_<redacted>"},
    {"github_token", "ghu_", token_char, 20, "ghp_<redacted>"},
    {"github_token", "ghs_", token_char, 20, "ghp_<redacted>"},
    {"github_token", "ghr_", token_char, 20, "ghp_<redacted>"},
    {"gitlab_token", "glpat-", token_dash_char, 20, "glpat-<redacted>"},
    {"slack_token", "xoxb-", token_dash_char, 10, "xox-<redacted>"},
    {"slack_token", "xoxp-", token_dash_char, 10, "xox-<redacted>"},
    {"slack_token", "xoxa-", token_dash_char, 10, "xox-<redacted>"},
    {"stripe_key", "sk_live_", token_char, 16, "sk_live_<redacted>"},
    {"stripe_key", "sk_test_", token_char, 16, "sk_test_<redacted>"},
    {"stripe_key", "rk_live_", token_char, 16, "rk_live_<redacted>"},
    {"stripe_key", "rk_test_", token_char, 16, "rk_test_<redacted>"},
    {"jwt", "eyJ", jwt_char, 30, "eyJ<redacted-jwt>"},
    {"google_api_key", "AIza", token_dash_char, 30, "AIza<redacted>"},
    {"pypi_token", "pypi-", token_dash_char, 16, "pypi-<redacted>"},
    {"npm_token", "npm_", token_char, 30, "npm_<redacted>"},
    {"aws_key_id", "AKIA", upper_alnum, 16, "AKIA<redacted>"},
    {"aws_key_id", "ASIA", upper_alnum, 16, "ASIA<redacted>"},
    {"sendgrid_key", "SG.", jwt_char, 40, "SG.<redacted>"},
    {"slack_webhook", "https://hooks.slack.com/services/", uri_char, 8, "https://hooks.slack.com/services/<redacted>"},
    {"slack_webhook", "https://hooks.slack.com/workflows/", uri_char, 8,
     "https://hooks.slack.com/workflows/<redacted>"},
    {"discord_webhook", "https://discord.com/api/webhooks/", uri_char, 8,
     "https://discord.com/api/webhooks/<redacted>"},
    {"home_path", "/home/", user_char, 1, "/home/<user>"},
    {"home_path", "/Users/", user_char, 1, "/Users/<user>"},
    {"s3_uri", "s3://", uri_char, 1, "s3://<redacted>"},
    {"ws_uri", "ws://", uri_char, 1, "ws://<redacted>"},
    {"ws_uri", "wss://", uri_char, 1, "ws://<redacted>"},
};

// One pass of one shape over `s`. A match whose body starts with '<' was redacted already.
std::string apply_shape(const std::string& s, const Shape& p, int64_t line, std::vector<Redaction>* out) {
  const size_t plen = std::strlen(p.prefix);
  size_t at = s.find(p.prefix);
  if (at == std::string::npos) return s;
  std::string r;
  r.reserve(s.size());
  size_t last = 0;
  while (at != std::string::npos) {
    size_t e = at + plen;
    while (e < s.size() && p.body(s[e])) ++e;
    if (e - at - plen >= p.min && s[at + plen] != '<') {
      r.append(s, last, at - last);
      r += p.repl;
      last = e;
      if (out) out->push_back({p.kind, line, p.repl});
    }
    at = s.find(p.prefix, std::max(e, at + 1));
  }
  r.append(s, last, std::string::npos);
  return r;
}

// Where a redaction runs: over config text (every shape, Authorization credentials of 8+ characters
// across blanks and line breaks) or over what a door outputs (credentials only: a path or bucket a
// user named is theirs to see in a result about their own files; an Authorization credential
// needs 12+ characters on the same line with a digit, so prose such as "Token throughput" stays).
enum class Scope { Config, Output };

// An HTTP Authorization scheme and its credentials: "Bearer <token>", "Basic <base64>", "Token <t>"
// (one or more blanks between).
std::string apply_auth_scheme(const std::string& s, const std::string& scheme, Scope scope, int64_t line,
                              std::vector<Redaction>* out) {
  const bool config = scope == Scope::Config;
  const std::string repl = scheme + " <redacted>";
  size_t at = s.find(scheme);
  if (at == std::string::npos) return s;
  std::string r;
  size_t last = 0;
  const size_t n = scheme.size();
  while (at != std::string::npos) {
    size_t b = at + n;
    while (b < s.size() && (config ? std::isspace(static_cast<unsigned char>(s[b])) != 0 : s[b] == ' ' || s[b] == '\t'))
      ++b;
    size_t e = b;
    bool digit = false;
    while (e < s.size() && bearer_char(s[e])) digit |= std::isdigit(static_cast<unsigned char>(s[e++])) != 0;
    const bool word_start = at == 0 || !alnum(s[at - 1]);
    const bool credential = config ? e - b >= 8 : e - b >= 12 && digit;
    if (word_start && b > at + n && credential && s[b] != '<') {
      r.append(s, last, at - last);
      r += repl;
      last = e;
      if (out) out->push_back({"auth_header", line, repl});
    }
    at = s.find(scheme, std::max(e, at + 1));
  }
  r.append(s, last, std::string::npos);
  return r;
}

// A credential in a URL's query: ?api_key=..., &access_token=..., &sig=... -> the value redacted.
// A query parameter whose value is a credential: a secret key name (config/workload_config.h), or
// one of the short names URLs use for them.
bool query_secret_name(std::string_view name) {
  static const char* const kShort[] = {
      "key",  "sig",  "signature", "token", "auth", "x-amz-signature", "x-amz-credential", "x-amz-security-token",
      "code", "pass", "pwd"};
  const std::string l = ascii_lower(name);
  return is_secret_key(name) ||
         std::any_of(std::begin(kShort), std::end(kShort), [&](const char* k) { return l == k; });
}

std::string apply_query_params(const std::string& s, int64_t line, std::vector<Redaction>* out) {
  std::string r;
  size_t last = 0;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '?' && s[i] != '&') continue;
    size_t e = i + 1;
    while (e < s.size() && (alnum(s[e]) || s[e] == '_' || s[e] == '-' || s[e] == '.')) ++e;
    if (e >= s.size() || s[e] != '=' || e == i + 1) continue;
    const std::string_view name(s.data() + i + 1, e - i - 1);
    size_t v = e + 1, ve = v;
    while (ve < s.size() && std::strchr("&# \t\n\"'<>)", s[ve]) == nullptr) ++ve;
    if (ve == v || s[v] == '<' || !query_secret_name(name)) continue;
    r.append(s, last, v - last);
    r += "<redacted>";
    last = ve;
    if (out) out->push_back({"url_query_secret", line, "<redacted>"});
    i = ve - 1;
  }
  if (last == 0) return s;
  r.append(s, last, std::string::npos);
  return r;
}

// Credentials inside a URL: scheme://user:password@host -> scheme://<redacted>@host. The
// userinfo is what lies between "://" and the first '@' before any '/' (libpq and URL parsers read
// it so), whatever it holds: a password may carry ; ' , " < # ? or a space, and each of those
// must not end the scan early and leave the rest of the password in clear. A line break ends it.
std::string apply_url_credentials(const std::string& s, int64_t line, std::vector<Redaction>* out) {
  size_t at = s.find("://");
  if (at == std::string::npos) return s;
  std::string r;
  size_t last = 0;
  while (at != std::string::npos) {
    const size_t b = at + 3;
    size_t e = b, colon = std::string::npos;
    while (e < s.size() && s[e] != '@' && s[e] != '/' && s[e] != '\n' && s[e] != '\r') {
      if (s[e] == ':' && colon == std::string::npos) colon = e;
      ++e;
    }
    if (e < s.size() && s[e] == '@' && colon != std::string::npos && colon > b && e > colon + 1) {
      r.append(s, last, b - last);
      r += "<redacted>";
      last = e;
      if (out) out->push_back({"url_credentials", line, "<redacted>@"});
    }
    at = s.find("://", std::max(e, b));
  }
  r.append(s, last, std::string::npos);
  return r;
}

// A PEM private key block, whole.
std::string apply_private_key(const std::string& s, int64_t line, std::vector<Redaction>* out) {
  static const std::string kBegin = "-----BEGIN ", kEnd = "-----END ";
  size_t at = s.find(kBegin);
  if (at == std::string::npos) return s;
  std::string r;
  size_t last = 0;
  while (at != std::string::npos) {
    const size_t hdr_end = s.find("-----", at + kBegin.size());
    if (hdr_end == std::string::npos) break;
    const std::string_view hdr(s.data() + at, hdr_end - at);
    if (hdr.find("PRIVATE KEY") == std::string_view::npos) {
      at = s.find(kBegin, hdr_end);
      continue;
    }
    size_t end = s.find(kEnd, hdr_end);
    end = end == std::string::npos ? s.size() : s.find("-----", end + kEnd.size());
    end = end == std::string::npos ? s.size() : end + 5;
    r.append(s, last, at - last);
    r += "<redacted private key>";
    last = end;
    if (out) out->push_back({"private_key", line, "<redacted private key>"});
    at = s.find(kBegin, end);
  }
  r.append(s, last, std::string::npos);
  return r;
}

// Lower-case words of a key: split at non-alphanumerics and at camelCase boundaries.
std::vector<std::string> key_words(std::string_view key) {
  std::vector<std::string> w;
  std::string cur;
  for (size_t i = 0; i < key.size(); ++i) {
    const char c = key[i];
    if (!alnum(c)) {
      if (!cur.empty()) w.push_back(cur), cur.clear();
      continue;
    }
    const bool upper = c >= 'A' && c <= 'Z';
    if (upper && !cur.empty() && i > 0 && key[i - 1] >= 'a' && key[i - 1] <= 'z') w.push_back(cur), cur.clear();
    cur += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  if (!cur.empty()) w.push_back(cur);
  return w;
}

bool one_of(const std::string& w, std::initializer_list<const char*> set) {
  return std::any_of(set.begin(), set.end(), [&](const char* s) { return w == s; });
}

}  // namespace

bool is_secret_key(std::string_view key) {
  const auto w = key_words(key);
  if (w.empty()) return false;
  for (size_t i = 0; i < w.size(); ++i) {
    if (one_of(w[i], {"password", "passwd", "passphrase", "secret", "secrets", "credential", "credentials", "apikey",
                      "privatekey", "accesskey", "secretkey", "authtoken", "accesstoken"}))
      return true;
    // One word that ends in one (PGPASSWORD, MYSQL_PWD's cousins DBPASSWORD, CLIENTSECRET).
    for (const char* tail : {"password", "passwd", "secret", "apikey", "accesskey", "secretkey"})
      if (w[i].size() > std::strlen(tail) &&
          w[i].compare(w[i].size() - std::strlen(tail), std::string::npos, tail) == 0)
        return true;
    if (i + 1 < w.size() && w[i + 1] == "key" &&
        one_of(w[i], {"api",    "access",       "private",  "auth",    "signing", "encryption", "master", "account",
                      "client", "subscription", "storage",  "service", "license", "session",    "ssh",    "deploy",
                      "gpg",    "pgp",          "sendgrid", "stripe",  "twilio",  "mailgun"}))
      return true;
    // A webhook's URL is its credential (Slack, Discord, Teams: whoever holds it can post).
    if (w[i] == "webhook" || w[i] == "webhooks") return true;
  }
  // The last word: mysql_pwd / MYSQL_PWD, auth (requests' auth=, a registry's "auth"),
  // cookie / cookies (a session cookie is a login), an ssh_key / ssh_private_key file's text.
  // PWD alone is the shell's working directory, not a password.
  if (w.back() == "pwd" && w.size() > 1) return true;
  if (one_of(w.back(), {"auth", "cookie", "cookies", "sessionid", "csrftoken"})) return true;
  // `token` as the last word names a credential (hf_token, hub_token, GITHUB_TOKEN, access_token),
  // unless it is a tokenizer's special token (pad_token, eos_token, ...).
  if (w.back() == "token") {
    if (w.size() == 1) return true;
    return !one_of(w[w.size() - 2],
                   {"pad",     "eos",    "bos",    "unk",       "sep",    "cls",   "mask",        "start", "end",
                    "special", "image",  "video",  "audio",     "vision", "eot",   "decoder",     "begin", "stop",
                    "default", "chat",   "system", "assistant", "tool",   "im",    "placeholder", "new",   "fill",
                    "prefix",  "suffix", "middle", "max",       "num",    "first", "last",        "think"});
  }
  return false;
}

bool is_redactable_secret_value(std::string_view v) {
  v = trim_blanks(v);
  if (v.empty()) return false;
  const std::string l = ascii_lower(v);
  if (one_of(l, {"true", "false", "yes", "no", "on", "off", "none", "null", "~", "''", "\"\"", "***"})) return false;
  if (v.find("<redacted") != std::string_view::npos) return false;  // redacted already (by shape)
  if (v.front() == '<' && v.back() == '>') return false;            // a placeholder such as <your-key>
  // A reference to where the secret lives, not the secret: ${VAR}, $VAR, os.environ[...].
  if (v.front() == '$') return false;
  if (l.rfind("os.environ", 0) == 0 || l.rfind("os.getenv", 0) == 0) return false;
  return true;
}

namespace {

bool privacy_shape(const Shape& p) {
  return std::strcmp(p.kind, "home_path") == 0 || std::strcmp(p.kind, "s3_uri") == 0 ||
         std::strcmp(p.kind, "ws_uri") == 0;
}

// Every redaction by value shape, in order, for `scope`.
std::string redact_shapes(const std::string& s, Scope scope, int64_t line, std::vector<Redaction>* out) {
  std::string cur = apply_private_key(s, line, out);
  cur = apply_url_credentials(cur, line, out);
  for (const auto& p : kShapes)
    if (scope == Scope::Config || !privacy_shape(p)) cur = apply_shape(cur, p, line, out);
  for (const char* scheme : {"Bearer", "Basic", "Token"}) cur = apply_auth_scheme(cur, scheme, scope, line, out);
  return apply_query_params(cur, line, out);
}

}  // namespace

std::string redact(const std::string& s, int64_t line, std::vector<Redaction>* out) {
  return redact_shapes(s, Scope::Config, line, out);
}

namespace {

bool key_char(char c) { return alnum(c) || c == '_' || c == '-' || c == '.'; }

// Value text of a `key <sep> value` at `v` in `line`: a quoted string's inside, or the unquoted run
// (to the end of the line when the key began the line, else to the next , ) } ] or blank).
// Returns [b, e) of the text to replace, or b == e when there is none.
std::pair<size_t, size_t> value_span(const std::string& line, size_t v, bool key_led_line) {
  if (v >= line.size()) return {v, v};
  const char q = line[v];
  if (q == '"' || q == '\'') {
    size_t e = v + 1;
    while (e < line.size() && line[e] != q) e += line[e] == '\\' ? 2 : 1;
    return {v + 1, std::min(e, line.size())};
  }
  size_t e = v;
  if (key_led_line) {
    e = line.size();
    const size_t hash = line.find(" #", v);
    if (hash != std::string::npos) e = hash;
    while (e > v && (line[e - 1] == ' ' || line[e - 1] == '\t' || line[e - 1] == '\r' || line[e - 1] == ',')) --e;
  } else {
    while (e < line.size() && std::strchr(",)}] \t\r\"'", line[e]) == nullptr) ++e;
  }
  return {v, e};
}

std::string redact_line(std::string line) {
  // Where the first key may start: after a diff's +/- /space prefix, indentation, `export `, `- `.
  size_t lead = 0;
  while (lead < line.size() && std::strchr("+- \t", line[lead]) != nullptr) ++lead;
  if (line.compare(lead, 7, "export ") == 0) lead += 7;
  size_t i = 0;
  while (i < line.size()) {
    if (!key_char(line[i]) || (i > 0 && key_char(line[i - 1]))) {
      ++i;
      continue;
    }
    size_t k_end = i;
    while (k_end < line.size() && key_char(line[k_end])) ++k_end;
    const size_t key_begin = i;
    const std::string key = line.substr(i, k_end - i);
    i = k_end;
    if (!is_secret_key(key)) continue;
    // Separator: quotes, a closing bracket and blanks may sit between key and ':' / '=' / ','.
    size_t s = k_end;
    while (s < line.size() && std::strchr("\"'] \t", line[s]) != nullptr) ++s;
    if (s >= line.size()) continue;
    const char sep = line[s];
    if (key[0] == '-' && s > k_end && std::strchr(":=,-\"'", sep) == nullptr) {
      // A command-line flag and its value: `--aws_secret_access_key VALUE`.
      size_t e = s;
      while (e < line.size() && line[e] != ' ' && line[e] != '\t') ++e;
      if (!is_redactable_secret_value(std::string_view(line).substr(s, e - s))) continue;
      line.replace(s, e - s, "<redacted>");
      i = s + 10;
      continue;
    }
    if (sep == ',') {
      // setdefault("KEY", "value") / environ.get("KEY", "value"): only a quoted value.
      if (key_begin == 0 || (line[key_begin - 1] != '"' && line[key_begin - 1] != '\'')) continue;
    } else if (sep == '=') {
      if (s + 1 < line.size() && line[s + 1] == '=') continue;  // comparison
    } else if (sep != ':') {
      continue;
    }
    size_t v = s + 1;
    while (v < line.size() && (line[v] == ' ' || line[v] == '\t')) ++v;
    const bool key_led = key_begin <= lead + 1 && sep != ',';
    auto [b, e] = value_span(line, v, key_led);
    if (sep == ',' && (v >= line.size() || (line[v] != '"' && line[v] != '\''))) continue;
    if (e <= b || !is_redactable_secret_value(std::string_view(line).substr(b, e - b))) continue;
    line.replace(b, e - b, "<redacted>");
    i = b + 10;
  }
  return line;
}

}  // namespace

std::string redact_secret_assignments(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  size_t at = 0;
  while (at < text.size()) {
    size_t nl = text.find('\n', at);
    size_t end = nl == std::string::npos ? text.size() : nl;
    out += redact_line(text.substr(at, end - at));
    if (nl != std::string::npos) out += '\n';
    at = end + 1;
  }
  return out;
}

std::string redact_text(const std::string& text) { return redact_secret_assignments(redact(text, -1, nullptr)); }

std::string redact_credentials(const std::string& text) {
  const std::string cur = redact_shapes(text, Scope::Output, -1, nullptr);
  // Assignments only where a line could hold one: skips the line walk for the many short strings
  // of a result (names, units) that hold no separator.
  if (cur.find_first_of("=: ") == std::string::npos) return cur;
  return redact_secret_assignments(cur);
}

namespace {

// A command-line flag that names a credential: "--hf-token", "-password", "--aws_secret_access_key"
// (no value attached; "--flag=value" is an assignment and redact_line's).
bool secret_flag(const std::string& arg) {
  if (arg.size() < 2 || arg[0] != '-' || arg.find('=') != std::string::npos) return false;
  return is_secret_key(std::string_view(arg).substr(arg.find_first_not_of('-')));
}

void redact_json_at(Json& j, int depth) {
  if (depth > 256) return;  // results are built by goblin, far shallower; a bound, not a limit users meet
  if (j.is_string()) {
    const std::string& s = j.get_ref<const std::string&>();
    std::string r = redact_credentials(s);
    if (r != s) j = std::move(r);
  } else if (j.is_object()) {
    for (auto& [k, v] : j.items()) {
      if (v.is_string() && is_secret_key(k) && is_redactable_secret_value(v.get_ref<const std::string&>()))
        v = "<redacted>";
      else
        redact_json_at(v, depth + 1);
    }
  } else if (j.is_array()) {
    // argv-style lists: the element after a credential flag is its value.
    bool next_is_secret = false;
    for (auto& v : j) {
      if (next_is_secret && v.is_string() && is_redactable_secret_value(v.get_ref<const std::string&>())) {
        v = "<redacted>";
        next_is_secret = false;
        continue;
      }
      next_is_secret = v.is_string() && secret_flag(v.get_ref<const std::string&>());
      redact_json_at(v, depth + 1);
    }
  }
}

}  // namespace

void redact_json(Json& j) { redact_json_at(j, 0); }

}  // namespace goblin::config
