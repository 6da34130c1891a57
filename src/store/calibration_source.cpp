#include "store/calibration_source.h"

#include "store/store.h"

namespace goblin::store {

Result<StoreCalibrationSource> StoreCalibrationSource::open(const std::string& url) {
  ASSIGN_OR_RETURN(auto s, Store::open(url));
  ASSIGN_OR_RETURN(auto rounds, s.audit_rounds());
  StoreCalibrationSource src;
  src.url_ = s.url();
  src.rounds_.reserve(rounds.size());
  for (auto& p : rounds) {
    AuditRoundRow& r = p.round;
    src.rounds_.push_back(
        {std::move(r.gpu), std::move(r.rules), r.predicted_low, r.predicted_high, r.measured, std::move(r.held)});
  }
  return src;
}

}  // namespace goblin::store
