#include "backend_sim/half_conversions.h"

#include <cstdint>
#include <cstring>

// Everything here works on bit patterns: a conversion written with _Float16 would call the
// function being defined.
namespace {

using cutwin::sim::bitsOfHalf;
using cutwin::sim::halfFromBits;

/// A NaN keeps its sign and the top of its payload, quietened (what the GPU's cvt and
/// libgcc do; the simulator's canonical-NaN step rewrites it where the GPU's differs).
uint16_t halfNaN(uint16_t sign, uint64_t topPayloadBits) {
  return uint16_t(sign | 0x7e00 | (topPayloadBits & 0x3ff));
}

/// sign · significand · 2^(exponent − 63), significand normalised (bit 63 set), rounded to
/// the nearest float16, ties to even; past the largest finite half it is infinity.
uint16_t roundToHalf(uint16_t sign, int exponent, uint64_t significand) {
  if (exponent > 15)
    return uint16_t(sign | 0x7c00);
  // The result counts units of 2^lsb: 2^(exponent-10) for a normal half, 2^-24 below.
  int lsb = exponent - 10 < -24 ? -24 : exponent - 10;
  int shift = 63 - (exponent - lsb); // significand >> shift = the result's units
  if (shift > 64)
    return sign; // below half the smallest subnormal
  uint64_t units = shift == 64 ? 0 : significand >> shift;
  uint64_t rest = shift == 64 ? significand : significand & ((uint64_t(1) << shift) - 1);
  uint64_t halfUnit = uint64_t(1) << (shift - 1);
  if (rest > halfUnit || (rest == halfUnit && (units & 1)))
    ++units; // may carry into the exponent, up to infinity: the encoding absorbs it
  // A normal half's units include its leading one, worth one step of the exponent field.
  uint32_t field = lsb == -24 ? 0 : uint32_t(exponent + 14) << 10;
  return uint16_t(sign | (field + units));
}

/// The significand of a normal or subnormal binary number with `fractionBits` stored bits,
/// normalised to bit 63, and its exponent.
void normalise(uint64_t fraction, int fractionBits, int biasedExponent, int bias, int &exponent,
               uint64_t &significand) {
  if (biasedExponent == 0) { // subnormal: no leading one, exponent of the smallest normal
    int leading = 63 - __builtin_clzll(fraction);
    exponent = 1 - bias - (fractionBits - leading);
    significand = fraction << (63 - leading);
  } else {
    exponent = biasedExponent - bias;
    significand = (fraction | (uint64_t(1) << fractionBits)) << (63 - fractionBits);
  }
}

/// Rounds a binary number with `fractionBits` stored fraction bits and an exponent field of
/// `exponentBits` bits to float16.
uint16_t narrow(uint64_t sign, uint64_t biasedExponent, uint64_t fraction, int fractionBits,
                int exponentBits) {
  uint16_t s = uint16_t(sign << 15);
  uint64_t allOnes = (uint64_t(1) << exponentBits) - 1;
  if (biasedExponent == allOnes)
    return fraction == 0 ? uint16_t(s | 0x7c00) : halfNaN(s, fraction >> (fractionBits - 10));
  if (biasedExponent == 0 && fraction == 0)
    return s;
  int exponent;
  uint64_t significand;
  normalise(fraction, fractionBits, int(biasedExponent), int(allOnes >> 1), exponent, significand);
  return roundToHalf(s, exponent, significand);
}

/// float16 as a wider binary number (exact): its fields for `fractionBits` fraction bits and
/// an exponent `bias`.
struct Widened {
  uint64_t sign, biasedExponent, fraction;
};

Widened widen(uint16_t h, int fractionBits, int bias, uint64_t allOnesExponent) {
  uint64_t sign = h >> 15;
  uint64_t field = (h >> 10) & 0x1f;
  uint64_t fraction = h & 0x3ff;
  if (field == 0x1f) // infinity, or a NaN quietened with its payload kept
    return {sign, allOnesExponent,
            fraction == 0 ? 0 : (fraction << (fractionBits - 10)) | (uint64_t(1) << (fractionBits - 1))};
  if (field == 0 && fraction == 0)
    return {sign, 0, 0};
  int exponent;
  uint64_t significand;
  normalise(fraction, 10, int(field), 15, exponent, significand);
  // Every half is a normal number in the wider formats.
  return {sign, uint64_t(exponent + bias), (significand << 1) >> (64 - fractionBits)};
}

} // namespace

extern "C" {

__attribute__((visibility("hidden"))) _Float16 __truncsfhf2(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return halfFromBits(narrow(bits >> 31, (bits >> 23) & 0xff, bits & 0x7fffff, 23, 8));
}

__attribute__((visibility("hidden"))) _Float16 __truncdfhf2(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return halfFromBits(narrow(bits >> 63, (bits >> 52) & 0x7ff, bits & ((uint64_t(1) << 52) - 1), 52, 11));
}

// x87's 80-bit format stores its leading bit: a normal number has it set. One with it clear
// and a nonzero exponent (an "unnormal") is invalid to the FPU, which gives a NaN.
__attribute__((visibility("hidden"))) _Float16 __truncxfhf2(long double value) {
  uint64_t significand;
  uint16_t signAndExponent;
  std::memcpy(&significand, &value, sizeof significand);
  std::memcpy(&signAndExponent, reinterpret_cast<const char *>(&value) + 8, sizeof signAndExponent);
  uint16_t sign = uint16_t((signAndExponent >> 15) << 15);
  int field = signAndExponent & 0x7fff;
  bool leadingOne = significand >> 63;
  uint64_t fraction = significand & ~(uint64_t(1) << 63);
  if (field == 0x7fff)
    return halfFromBits(fraction == 0 ? uint16_t(sign | 0x7c00) : halfNaN(sign, fraction >> 53));
  if (field != 0 && !leadingOne)
    return halfFromBits(halfNaN(sign, 0x200));
  if (significand == 0)
    return halfFromBits(sign);
  if (field == 0) // subnormal (or pseudo-denormal): far below float16's range
    return halfFromBits(sign);
  return halfFromBits(roundToHalf(sign, field - 16383, significand));
}

__attribute__((visibility("hidden"))) float __extendhfsf2(_Float16 value) {
  Widened w = widen(bitsOfHalf(value), 23, 127, 0xff);
  uint32_t bits = uint32_t((w.sign << 31) | (w.biasedExponent << 23) | w.fraction);
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

__attribute__((visibility("hidden"))) double __extendhfdf2(_Float16 value) {
  Widened w = widen(bitsOfHalf(value), 52, 1023, 0x7ff);
  uint64_t bits = (w.sign << 63) | (w.biasedExponent << 52) | w.fraction;
  double d;
  std::memcpy(&d, &bits, sizeof d);
  return d;
}

} // extern "C"

namespace cutwin::sim {

std::vector<std::pair<std::string, void *>> halfConversionSymbols() {
  return {
      {"__truncsfhf2", reinterpret_cast<void *>(&__truncsfhf2)},
      {"__truncdfhf2", reinterpret_cast<void *>(&__truncdfhf2)},
      {"__truncxfhf2", reinterpret_cast<void *>(&__truncxfhf2)},
      {"__extendhfsf2", reinterpret_cast<void *>(&__extendhfsf2)},
      {"__extendhfdf2", reinterpret_cast<void *>(&__extendhfdf2)},
  };
}

} // namespace cutwin::sim
