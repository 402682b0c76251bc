// How imm and opim report their --verify Monte-Carlo check: the "Verification" JSON object, and
// the one line "verification: PASS|FAIL" with a non-zero exit on FAIL.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "wildfire/algorithms/spread_check.hpp"

namespace wildfire::cli {

/// The "Verification" object of a result: worlds, Monte-Carlo mean, error, interval, tolerance.
nlohmann::json spread_verification_json(const spread_check& check, std::uint64_t worlds);

/// Prints "verification: PASS|FAIL" on stderr; throws error naming the first mismatch on FAIL.
void report_spread_verification(const spread_check& check);

}  // namespace wildfire::cli
