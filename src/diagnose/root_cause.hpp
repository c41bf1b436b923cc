#pragma once
// From scanned events to diagnoses: events ordered in time across files and ranks (their stamps
// when every event has one, else file order), grouped by category, the earliest failure that can
// be a root cause named first, and the echoes of it (watchdog timeouts on the ranks that waited,
// "actor died" after the OOM killer, Ray wrappers) marked as consequences. Fixes are rendered for
// the user's config when it is known.
#include "diagnose/diagnosis.hpp"
#include "diagnose/fix_renderer.hpp"
#include "diagnose/log_scanner.hpp"

namespace meshplan {

/// `context.config` comes from --config; the Hydra overrides found in the logs fill the keys it
/// lacks. Without any failure, the slow-run findings of the step metrics are reported instead.
DiagnosisReport build_report(const ScanOutput& scan, FixContext context);

}  // namespace meshplan
