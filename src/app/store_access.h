// How the store verbs (verbs_store.cpp, verbs_store_web.cpp) reach the run store: the door's own
// store when it serves one (Context::store_url / store_pool: goblin serve), else the request's
// `store` field, else $GOBLIN_STORE. A pooled connection goes back to the pool when the StoreRef
// ends.
#pragma once
#include <optional>
#include <string>

#include "app/verb.h"
#include "core/json.h"
#include "store/pool.h"
#include "store/store.h"

namespace goblin::app {

class StoreRef {
 public:
  explicit StoreRef(store::Store s) : own_(std::move(s)) {}
  explicit StoreRef(store::StorePool::Lease l) : lease_(std::move(l)) {}
  store::Store& operator*() { return own_ ? *own_ : **lease_; }
  store::Store* operator->() { return &**this; }

 private:
  std::optional<store::Store> own_;
  std::optional<store::StorePool::Lease> lease_;
};

// The `store` field of the store verbs: the CLI and Python name a store; the JSON doors that offer
// store verbs (goblin serve) serve their own, so the field is not theirs to give.
Field store_field();

// A run id as the store verbs take it: 1-18 decimal digits (no sign, no spaces: it always fits an
// int64), positive; a Usage error otherwise.
Result<int64_t> parse_run_id(const std::string& s);

// The store URL a verb call uses (see above); empty when none is named anywhere.
std::string store_url_of(const Request& rq, const Context& ctx);

// Opens the call's store. `create`/`migrate` as for store::Store::open; a read (no create) borrows
// a pooled connection when the door has a pool.
Result<StoreRef> open_store(const Request& rq, const Context& ctx, bool create = false, bool migrate = true);

// The artifact of a stored run (run_to_json with tables) that holds a Perfetto-readable trace as
// text: {artifact, sha256}, or null.
Json trace_link(const Json& run);

// The trust check of two runs (docs/dashboard.md § Comparison): the fields that differ among
// base_image, resource_class, gpu_device_ids, server_flags, benchmark_config_hash, GPU, driver,
// CUDA, ROCm and PyTorch, each {field, a, b}; a comparison with any of them is untrusted.
Json trust_differences(const Json& run_a, const Json& run_b);
// The same fields that are unknown on either side, each {field, a, b}: not checked, so never
// reported as the same.
Json trust_not_checked(const Json& run_a, const Json& run_b);

}  // namespace goblin::app
