// The store pool (pool.h). Opening and the liveness check run outside the lock: a slow server
// delays only the caller that needs a connection, never the ones returning theirs.
#include "store/pool.h"

#include <fmt/format.h>

namespace goblin::store {

StorePool::StorePool(std::string url, size_t max_open) : url_(std::move(url)), max_(std::max<size_t>(1, max_open)) {}

StorePool::~StorePool() = default;

StorePool::Lease::~Lease() {
  if (pool_ && store_) pool_->give_back(std::move(store_));
}

Result<StorePool::Lease> StorePool::acquire(std::chrono::milliseconds wait) {
  const auto deadline = std::chrono::steady_clock::now() + wait;
  for (;;) {
    std::unique_ptr<Store> s;
    bool may_open = false;
    {
      std::unique_lock<std::mutex> lk(mu_);
      if (!cv_.wait_until(lk, deadline, [&] { return !idle_.empty() || open_ < max_; }))
        return make_error(ErrorKind::Environment,
                          fmt::format("store: all {} store connections are busy; try again", max_));
      if (!idle_.empty()) {
        s = std::move(idle_.back());
        idle_.pop_back();
      } else {
        may_open = true;
        ++open_;  // reserved; released below if the open fails
      }
    }
    if (s) {
      if (s->alive()) return Lease(this, std::move(s));
      // Broken while idle: drop it (closing the connection) and try again.
      s.reset();
      std::lock_guard<std::mutex> lk(mu_);
      --open_;
      ++replaced_;
      cv_.notify_one();
      continue;
    }
    if (may_open) {
      auto opened = Store::open(url_, /*create=*/false, /*migrate=*/false);
      if (!opened) {
        std::lock_guard<std::mutex> lk(mu_);
        --open_;
        cv_.notify_one();
        return opened.error();
      }
      return Lease(this, std::make_unique<Store>(std::move(*opened)));
    }
  }
}

void StorePool::give_back(std::unique_ptr<Store> s) {
  std::lock_guard<std::mutex> lk(mu_);
  idle_.push_back(std::move(s));
  cv_.notify_one();
}

size_t StorePool::open_count() const {
  std::lock_guard<std::mutex> lk(mu_);
  return open_;
}
size_t StorePool::idle_count() const {
  std::lock_guard<std::mutex> lk(mu_);
  return idle_.size();
}
size_t StorePool::replaced() const {
  std::lock_guard<std::mutex> lk(mu_);
  return replaced_;
}

}  // namespace goblin::store
