#pragma once

// Whether this test binary is instrumented by AddressSanitizer or ThreadSanitizer (the analysis
// builds, clang at -O0). Tests of size limits scale their inputs down there: the checks look for
// memory and thread errors in the code paths, which a tenth of the bytes reaches as well as all of
// them, at a tenth of a pass that otherwise spent 200 s on one test.

namespace pdctl::testing {

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#elif defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif

}  // namespace pdctl::testing
