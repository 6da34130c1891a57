// The pybind11 binding of the Python door (door.h): `goblin._goblin`, wrapped by the pure-Python
// package goblin/__init__.py (docs/python.md). Arrays are handed to numpy without a copy: each
// column's vector moves into a heap object a capsule owns. The GIL is released while goblin reads
// traces and runs statements, so other Python threads keep running.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "python/door.h"

namespace py = pybind11;

namespace goblin::python {

namespace {

template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(heap->size()), heap->data(), owner);
}

// goblin's Error as the tuple goblin.Error is built from: (kind, message, file, byte_offset,
// line, exit_code, the text `goblin: error:` shows).
py::tuple error_tuple(const Error& e) {
  return py::make_tuple(Error::kind_name(e.kind), e.message, e.file, e.byte_offset, e.line, e.exit_code(),
                        e.describe());
}

// A failed Result becomes _goblin.GoblinFailure(tuple); goblin/__init__.py turns it into
// goblin.Error.
PyObject* g_failure = nullptr;  // set once at import

[[noreturn]] void raise(const Error& e) {
  PyErr_SetObject(g_failure, error_tuple(e).ptr());
  throw py::error_already_set();
}

// Text codes in the width pandas.Categorical keeps for this many categories (int8 below 127,
// int16 below 32,767: pandas' coerce_indexer_dtype), so from_codes takes them without a copy
// and a 5 M-row column of a few hundred names is 10 MB, not 20.
py::array narrow_codes(std::vector<int32_t>&& codes, size_t categories) {
  auto narrowed = [&](auto zero) {
    std::vector<decltype(zero)> v(codes.begin(), codes.end());
    codes = {};
    return py::array(to_numpy(std::move(v)));
  };
  if (categories < 127) return narrowed(int8_t{0});
  if (categories < 32767) return narrowed(int16_t{0});
  return to_numpy(std::move(codes));
}

// What an all-NULL column's frame column should be, from its declared type where the reader
// knows it (whole tables): "int32", "int64", "float64", "text"; None for a statement's column.
py::object declared_type(const Column& c) {
  switch (c.declared) {
    case Column::Kind::Integer:
      return py::str(c.narrow ? "int32" : "int64");
    case Column::Kind::Real:
      return py::str("float64");
    case Column::Kind::Text:
      return py::str("text");
    case Column::Kind::Null:
      break;
  }
  return py::none();
}

// A statement's columns as [(name, kind, values, null mask or None, dictionary or None, declared
// type of an all-NULL column or None)].
py::list columns_to_python(Columns&& cols) {
  py::list out;
  for (Column& c : cols.columns) {
    if (c.kind == Column::Kind::Null) c.null = {};  // all 1: the frame column makes its own mask
    py::object mask = c.any_null && !c.null.empty() ? py::object(to_numpy(std::move(c.null))) : py::object(py::none());
    switch (c.kind) {
      case Column::Kind::Null:
        out.append(py::make_tuple(c.name, "null", py::int_(cols.rows), mask, py::none(), declared_type(c)));
        break;
      case Column::Kind::Integer:
        out.append(py::make_tuple(
            c.name, "integer",
            c.int32 ? py::object(to_numpy(std::move(c.ints32))) : py::object(to_numpy(std::move(c.ints))), mask,
            py::none(), py::none()));
        break;
      case Column::Kind::Real:
        out.append(py::make_tuple(c.name, "real", to_numpy(std::move(c.reals)), mask, py::none(), py::none()));
        break;
      case Column::Kind::Text: {
        py::list dict;
        for (const std::string& s : c.dict)  // invalid UTF-8 (a kernel name's bytes) is replaced, not fatal
          dict.append(py::reinterpret_steal<py::object>(
              PyUnicode_DecodeUTF8(s.data(), static_cast<py::ssize_t>(s.size()), "replace")));
        out.append(
            py::make_tuple(c.name, "text", narrow_codes(std::move(c.codes), c.dict.size()), mask, dict, py::none()));
        break;
      }
    }
  }
  return out;
}

}  // namespace

}  // namespace goblin::python

PYBIND11_MODULE(_goblin, m) {
  using namespace goblin::python;
  m.doc() = "goblin's Python door (use the goblin package, not this module)";
  g_failure = PyErr_NewException("goblin._goblin.GoblinFailure", nullptr, nullptr);
  m.attr("GoblinFailure") = py::handle(g_failure);
  // pybind11's numpy support keeps its state in function-local statics (the numpy API table, each
  // element type's dtype) whose first use imports numpy. Two threads' first sql() at once: one
  // waits on such a static's guard holding the GIL while the other, inside the initialiser, waits
  // for the GIL (the import gives it up): both for ever. Made here, once, while the import holds
  // the GIL and no other thread can be inside this module.
  (void)to_numpy(std::vector<int8_t>{});
  (void)to_numpy(std::vector<int16_t>{});
  (void)to_numpy(std::vector<int32_t>{});
  (void)to_numpy(std::vector<int64_t>{});
  (void)to_numpy(std::vector<uint8_t>{});
  (void)to_numpy(std::vector<double>{});
  (void)py::array(to_numpy(std::vector<int32_t>{}));

  m.def(
      "call_verb",
      [](const std::string& name, const std::string& args_json) {
        Outcome o;
        {
          py::gil_scoped_release release;
          o = call_verb(name, args_json);
        }
        return py::make_tuple(o.envelope, o.human);
      },
      py::arg("name"), py::arg("args_json"), "Runs a verb; returns (envelope JSON, readable text)");
  m.def("verbs_json", &verbs_json, "The verb registry as JSON (goblin verbs --json)");
  m.def("table_names", &table_names, "The query tables' names");

  py::class_<Trace>(m, "Trace")
      .def_static(
          "open",
          [](const std::vector<std::string>& paths) {
            goblin::Result<std::unique_ptr<Trace>> t = goblin::make_error(goblin::ErrorKind::Internal, "");
            {
              py::gil_scoped_release release;
              t = Trace::open(paths);
            }
            if (!t) raise(t.error());
            return std::move(t).value();
          },
          py::arg("paths"))
      .def(
          "sql",
          [](Trace& self, const std::string& text, double timeout_s) {
            goblin::Result<Columns> r = goblin::make_error(goblin::ErrorKind::Internal, "");
            {
              py::gil_scoped_release release;
              r = self.sql(text, timeout_s);
            }
            if (!r) raise(r.error());
            return columns_to_python(std::move(r).value());
          },
          py::arg("sql"), py::arg("timeout_s") = 0.0)
      .def(
          "table",
          [](Trace& self, const std::string& name) {
            goblin::Result<Columns> r = goblin::make_error(goblin::ErrorKind::Internal, "");
            {
              py::gil_scoped_release release;
              r = self.table(name);
            }
            if (!r) raise(r.error());
            return columns_to_python(std::move(r).value());
          },
          py::arg("name"))
      .def_property_readonly("paths", &Trace::paths)
      .def_property_readonly("ranks", &Trace::ranks)
      .def_property_readonly("damage", [](const Trace& self) -> py::object {
        if (!self.damage()) return py::none();
        return error_tuple(*self.damage());
      });
}
