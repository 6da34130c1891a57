// A bounded pool of open stores for a long-running door (goblin serve; docs/store.md § Pool).
// Opening a store per request costs a PostgreSQL connection each time (a new server backend,
// authentication, the schema check); the pool keeps up to `max_open` stores open and lends one per
// request. A lent store is checked alive first (store/engine.h: a round trip on PostgreSQL), so a
// connection broken while idle (server restart, terminated backend) is dropped and replaced by a
// fresh one instead of failing the request.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "store/store.h"

namespace goblin::store {

class StorePool {
 public:
  // `url` as for Store::open; stores are opened without creating or migrating (a pool serves an
  // existing store).
  StorePool(std::string url, size_t max_open);
  ~StorePool();
  StorePool(const StorePool&) = delete;
  StorePool& operator=(const StorePool&) = delete;

  // One store for one caller, returned to the pool when the lease ends.
  class Lease {
   public:
    Lease(Lease&& o) noexcept : pool_(o.pool_), store_(std::move(o.store_)) { o.pool_ = nullptr; }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    Store& operator*() const { return *store_; }
    Store* operator->() const { return store_.get(); }

   private:
    friend class StorePool;
    Lease(StorePool* p, std::unique_ptr<Store> s) : pool_(p), store_(std::move(s)) {}
    StorePool* pool_;
    std::unique_ptr<Store> store_;
  };

  // An idle store that is still alive, else a newly opened one while fewer than `max_open` are
  // open, else waits up to `wait` for one to come back (then an Environment error: every
  // connection busy). The error of opening (NotFound: no store yet, Malformed: refused) is passed on.
  Result<Lease> acquire(std::chrono::milliseconds wait = std::chrono::seconds(10));

  size_t open_count() const;  // stores open (lent + idle)
  size_t idle_count() const;
  size_t replaced() const;  // idle connections found dead and dropped

 private:
  void give_back(std::unique_ptr<Store> s);
  std::string url_;
  size_t max_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::unique_ptr<Store>> idle_;
  size_t open_ = 0, replaced_ = 0;
};

}  // namespace goblin::store
