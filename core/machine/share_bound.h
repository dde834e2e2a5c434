#pragma once
// A division-free test the fill uses on every (frozen flow, resource) pair: whether a
// resource's fair share, left / flows as the fill computes it, is at least `key`.

namespace moe {

// True only if left / flows, correctly rounded, is at least `key` (left, key >= 0, flows
// >= 1, and key x flows a normal double: rates are far above the subnormal range). Each
// product below is rounded once, so (key x flows x bound) is off by at most about 2^-52 of
// itself; with bound = 1 + 2^-50 it stays above key x flows exactly, so a `left` at or
// above it gives a quotient above `key`, which rounds to `key` or more. False says
// nothing: the caller divides.
inline bool shareIsAtLeast(double left, double flows, double key) {
  constexpr double kAboveRounding = 1 + 0x1p-50;
  return left >= key * flows * kAboveRounding;
}

}  // namespace moe
