// A struct's JSON form declared once, as a field list (the way model/timeline.h declares a table's
// columns once): from the list, fields::to_json writes the object and fields::read / from_json read
// it back, so a field cannot be written and forgotten by the reader, or the other way round.
//
//   template <> struct goblin::fields::List<TopKernel> {
//     static inline const auto fields = std::tuple{
//         field("name", &TopKernel::name),                // codec from the member's type
//         field("pct_time", &TopKernel::pct_time, Num{3}),  // rounded to 3 decimals when written
//         field("count", &TopKernel::count, Int{}, Required)};
//   };
//
// The generated JSON lists the keys in field-list order (Json is nlohmann::ordered_json). Reading:
// an absent Optional key leaves the member's default; an absent Required key, or a value of the
// wrong type, is a Malformed error naming the key's path ("steps[2].wall_s: expected number, got
// string"). Keys the list does not name are tolerated (every reader so far does), unless the list
// says `static constexpr bool strict = true`. A value that is null when written is kept as null,
// or left out with the Omit flag (the two outputs differ and both exist); Nullable reads a null
// as absent; std::optional<std::optional<V>> with Omit is the three-state "absent / null / value".
//
// A codec says how one C++ value is written and read:
//   Json write(const V&) const;   Status read(const Json&, V&, const std::string& at) const;
// Custom codecs (the rounding of a figure, "0 is unknown, written as null") are small structs of
// the same shape. A field that is not one member (a constant, two members behind one key) is a
// struct with write(const T&, Json& object), read(const Json& object, T&, at) and names(key) (the
// keys it owns, for strict lists): see Const.
#pragma once
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <vector>

#include "core/json.h"
#include "core/status.h"

namespace goblin::fields {

// Specialise for a struct: `static inline const auto fields = std::tuple{field(...), ...};`.
template <class T>
struct List;

template <class T>
concept HasFields = requires {
  List<T>::fields;
};

// "a.b" / "a[3]": where a value sits, for error messages.
inline std::string at_key(const std::string& at, std::string_view key) {
  return at.empty() ? std::string(key) : at + "." + std::string(key);
}
inline std::string at_index(const std::string& at, size_t i) { return fmt::format("{}[{}]", at, i); }

inline Error type_error(const std::string& at, const char* expected, const Json& got) {
  return make_error(ErrorKind::Malformed, (at.empty() ? std::string("value") : at) + ": expected " + expected +
                                              ", got " + json_type_name(got));
}

template <class V>
inline constexpr bool is_optional_v = false;
template <class V>
inline constexpr bool is_optional_v<std::optional<V>> = true;

// ---- codecs -----------------------------------------------------------------------------------

struct Str {
  Json write(const std::string& v) const { return v; }
  Status read(const Json& j, std::string& v, const std::string& at) const {
    if (!j.is_string()) return type_error(at, "string", j);
    v = j.get<std::string>();
    return Status::Ok();
  }
};

struct Bool {
  Json write(bool v) const { return v; }
  Status read(const Json& j, bool& v, const std::string& at) const {
    if (!j.is_boolean()) return type_error(at, "boolean", j);
    v = j.get<bool>();
    return Status::Ok();
  }
};

// An integer of any width; a JSON number with a fraction is refused (it is not a count).
struct Int {
  template <class I>
  Json write(I v) const {
    return v;
  }
  template <class I>
  Status read(const Json& j, I& v, const std::string& at) const {
    static_assert(std::is_integral_v<I> && !std::is_same_v<I, bool>, "fields::Int reads integers");
    using L = std::numeric_limits<I>;
    if (j.is_number_unsigned()) {
      const uint64_t u = j.get<uint64_t>();
      if (u > static_cast<uint64_t>(L::max())) return type_error(at, "integer in range", j);
      v = static_cast<I>(u);
      return Status::Ok();
    }
    if (j.is_number_integer()) {
      const int64_t s = j.get<int64_t>();
      if (s < 0 ? (!L::is_signed || s < static_cast<int64_t>(L::min()))
                : static_cast<uint64_t>(s) > static_cast<uint64_t>(L::max()))
        return type_error(at, "integer in range", j);
      v = static_cast<I>(s);
      return Status::Ok();
    }
    // 3.0 is a count written by a tool that prints every number as a float; 1.5 is not, and a
    // float beyond the type's range (4.5e75) has no integer value: converting it is undefined.
    if (!j.is_number_float()) return type_error(at, "integer", j);
    const double d = j.get<double>();
    if (!std::isfinite(d) || d != std::floor(d)) return type_error(at, "integer", j);
    if (d < static_cast<double>(L::min()) || d >= std::ldexp(1.0, L::digits))
      return type_error(at, "integer in range", j);
    v = static_cast<I>(d);
    return Status::Ok();
  }
};

// A double, written rounded to `digits` decimals (round_to: non-finite is 0) or as is (-1).
struct Num {
  int digits = -1;
  Json write(double v) const { return digits >= 0 ? round_to(v, digits) : v; }
  Status read(const Json& j, double& v, const std::string& at) const {
    if (!j.is_number()) return type_error(at, "number", j);
    v = j.get<double>();
    return Status::Ok();
  }
};

// A free-form JSON value, kept as is (say at the field why it has no struct).
struct Any {
  Json write(const Json& v) const { return v; }
  Status read(const Json& j, Json& v, const std::string&) const {
    v = j;
    return Status::Ok();
  }
};

// std::optional<V>: nullopt is written null and read from null.
template <class C>
struct Opt {
  C inner{};
  template <class V>
  Json write(const std::optional<V>& v) const {
    return v ? inner.write(*v) : Json(nullptr);
  }
  template <class V>
  Status read(const Json& j, std::optional<V>& v, const std::string& at) const {
    // An Any keeps a null it was given, and so does an inner optional: optional<optional<V>> is
    // "key absent" / null / a value.
    if (j.is_null() && !std::is_same_v<C, Any> && !is_optional_v<V>) {
      v.reset();
      return Status::Ok();
    }
    V x{};
    RETURN_IF_ERROR(inner.read(j, x, at));
    v = std::move(x);
    return Status::Ok();
  }
};

// std::vector<V> as a JSON array.
template <class C>
struct Vec {
  C inner{};
  template <class V>
  Json write(const std::vector<V>& v) const {
    Json a = Json::array();
    for (const V& x : v) a.push_back(inner.write(x));
    return a;
  }
  template <class V>
  Status read(const Json& j, std::vector<V>& v, const std::string& at) const {
    if (!j.is_array()) return type_error(at, "array", j);
    v.clear();
    v.reserve(j.size());
    for (size_t i = 0; i < j.size(); ++i) {
      V x{};
      RETURN_IF_ERROR(inner.read(j[i], x, at_index(at, i)));
      v.push_back(std::move(x));
    }
    return Status::Ok();
  }
};

// std::map<std::string, std::string> as an object; a value that is not a string is kept as its
// JSON text (a version written as a number, 12.4, reads "12.4").
struct StrMap {
  Json write(const std::map<std::string, std::string>& v) const { return v; }
  Status read(const Json& j, std::map<std::string, std::string>& v, const std::string& at) const {
    if (!j.is_object()) return type_error(at, "object", j);
    v.clear();
    for (auto it = j.begin(); it != j.end(); ++it)
      v[it.key()] = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    return Status::Ok();
  }
};

// std::map<std::string, V> as an object, keys in the map's (sorted) order.
template <class C>
struct Map {
  C inner{};
  template <class V>
  Json write(const std::map<std::string, V>& v) const {
    Json o = Json::object();
    for (const auto& [k, x] : v) o[k] = inner.write(x);
    return o;
  }
  template <class V>
  Status read(const Json& j, std::map<std::string, V>& v, const std::string& at) const {
    if (!j.is_object()) return type_error(at, "object", j);
    v.clear();
    for (auto it = j.begin(); it != j.end(); ++it)
      RETURN_IF_ERROR(inner.read(it.value(), v[it.key()], at_key(at, it.key())));
    return Status::Ok();
  }
};

// A struct with its own field list.
struct Obj;

// The codec a member's type gets when the field names none.
template <class V>
struct DefaultCodec;
template <>
struct DefaultCodec<std::string> {
  using type = Str;
};
template <>
struct DefaultCodec<bool> {
  using type = Bool;
};
template <class V>
requires(std::is_integral_v<V> && !std::is_same_v<V, bool>) struct DefaultCodec<V> {
  using type = Int;
};
template <>
struct DefaultCodec<double> {
  using type = Num;
};
template <>
struct DefaultCodec<Json> {
  using type = Any;
};
template <>
struct DefaultCodec<std::map<std::string, std::string>> {
  using type = StrMap;
};
template <class V>
struct DefaultCodec<std::optional<V>> {
  using type = Opt<typename DefaultCodec<V>::type>;
};
template <class V>
struct DefaultCodec<std::map<std::string, V>> {
  using type = Map<typename DefaultCodec<V>::type>;
};
template <class V>
struct DefaultCodec<std::vector<V>> {
  using type = Vec<typename DefaultCodec<V>::type>;
};
template <HasFields V>
struct DefaultCodec<V> {
  using type = Obj;
};

// ---- fields -----------------------------------------------------------------------------------

enum Flags : unsigned {
  Optional = 0,  // reading: an absent key leaves the member's default
  Required = 1,  // reading: an absent key is an error
  Omit = 2,      // writing: an empty std::optional (else a null value) leaves the key out, no "key": null
  Nullable = 4,  // reading: null is read as absent (a producer writes null for "not computed")
};

template <class T, class V, class C>
struct Member {
  std::string_view key;
  V T::*member;
  C codec;
  unsigned flags;
  void write(const T& t, Json& o) const {
    if constexpr (is_optional_v<V>) {
      if (!(t.*member) && (flags & Omit)) return;
    }
    Json v = codec.write(t.*member);
    if (!is_optional_v<V> && v.is_null() && (flags & Omit)) return;
    o[std::string(key)] = std::move(v);
  }
  Status read(const Json& o, T& t, const std::string& at) const {
    auto it = o.find(std::string(key));
    if (it == o.end())
      return (flags & Required) ? make_error(ErrorKind::Malformed, "missing required key " + at_key(at, key))
                                : Status::Ok();
    if (it->is_null() && (flags & Nullable)) return Status::Ok();
    return codec.read(*it, t.*member, at_key(at, key));
  }
  bool names(std::string_view k) const { return k == key; }
};

template <class T, class V, class C>
requires std::is_class_v<C> Member<T, V, C> field(std::string_view key, V T::*member, C codec,
                                                  unsigned flags = Optional) {
  return {key, member, codec, flags};
}
template <class T, class V>
auto field(std::string_view key, V T::*member, unsigned flags = Optional) {
  return Member<T, V, typename DefaultCodec<V>::type>{key, member, {}, flags};
}

// A key whose value is fixed (e.g. a unit): written always, not read back.
template <class T>
struct Const {
  std::string_view key;
  const char* value;
  void write(const T&, Json& o) const { o[std::string(key)] = value; }
  Status read(const Json&, T&, const std::string&) const { return Status::Ok(); }
  bool names(std::string_view k) const { return k == key; }
};

// ---- the generated writer and reader ----------------------------------------------------------

template <HasFields T>
Json to_json(const T& t) {
  Json o = Json::object();
  std::apply([&](const auto&... f) { (f.write(t, o), ...); }, List<T>::fields);
  return o;
}

template <HasFields T>
Status read(const Json& j, T& t, const std::string& at = {}) {
  if (!j.is_object()) return type_error(at, "object", j);
  if constexpr (requires { List<T>::strict; }) {
    if (List<T>::strict)
      for (auto it = j.begin(); it != j.end(); ++it) {
        bool known = false;
        std::apply([&](const auto&... f) { ((known = known || f.names(it.key())), ...); }, List<T>::fields);
        if (!known) return make_error(ErrorKind::Malformed, "unknown key " + at_key(at, it.key()));
      }
  }
  Status st = Status::Ok();
  std::apply([&](const auto&... f) { ((st.ok() ? (void)(st = f.read(j, t, at)) : void()), ...); }, List<T>::fields);
  return st;
}

// Reads a whole T; errors are prefixed with `what` ("run metrics: steps[2].wall_s: expected ...").
template <HasFields T>
Result<T> from_json(const Json& j, std::string_view what) {
  T t{};
  if (Status st = read(j, t); !st.ok()) {
    Error e = st.error();
    e.message = std::string(what) + ": " + e.message;
    return e;
  }
  return t;
}

struct Obj {
  template <HasFields V>
  Json write(const V& v) const {
    return to_json(v);
  }
  template <HasFields V>
  Status read(const Json& j, V& v, const std::string& at) const {
    return fields::read(j, v, at);
  }
};

}  // namespace goblin::fields
