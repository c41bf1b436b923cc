#pragma once
// Units are explicit: sizes in bytes, rates in bytes/s or FLOP/s, times in seconds.
// Binary (GiB, what torch and nvidia-smi report) and decimal (GB, what datasheets use)
// prefixes are never mixed: convert only through these constants.
#include <cstdint>

namespace meshplan {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;    ///< decimal gigabyte (datasheets, link speeds)
inline constexpr double kTFLOPS = 1e12;

inline constexpr double bytes_to_gib(double bytes) { return bytes / kGiB; }
inline constexpr double gib_to_bytes(double gib) { return gib * kGiB; }

}  // namespace meshplan
