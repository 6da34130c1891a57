// The run store as the audit's calibration source (audit/calibration.h): every audit round any
// teammate stored calibrates a new audit (docs/store.md § The audit), read straight from the store.
#pragma once
#include <string>
#include <vector>

#include "audit/calibration.h"
#include "core/status.h"

namespace goblin::store {

class StoreCalibrationSource : public audit::CalibrationSource {
 public:
  // Reads the store's audit rounds once. NotFound when there is no store at `url`.
  static Result<StoreCalibrationSource> open(const std::string& url);

  std::string where() const override { return url_; }
  Result<std::vector<audit::PastPrediction>> past_predictions() const override { return rounds_; }
  size_t size() const { return rounds_.size(); }

 private:
  std::string url_;
  std::vector<audit::PastPrediction> rounds_;
};

}  // namespace goblin::store
