// SPDX-License-Identifier: Apache-2.0
// Coefficient tables and thresholds shared by the CPU kernels (src/cpu/gelu-inl.h), the scalar path
// (src/common/gelu_scalar.h) and the CUDA kernels. Every value was printed by the script named beside it.
#ifndef GELU_SRC_COMMON_COEFFICIENTS_H_
#define GELU_SRC_COMMON_COEFFICIENTS_H_

namespace gelu::common {

// G(tau), tau = 4/(4+t): Phi(-t) = exp(-t^2/2) * tau * G(tau) for t in [0, 15.5] (tau in [0x1.a41a4p-3, 1]).
// Degree-12 polynomial, Horner, coefficients from lowest degree up.
// Derivation: scripts/fit/mills_tau.sollya (fpminimax, relative, double coefficients, domain above);
//             relative approximation error 0x1.b8a8p-36 = 2^-35.2 (dirtyinfnorm over the domain).
// Why this form: Phi(-t) e^{t^2/2} (the Mills ratio over sqrt(2 pi)) is smooth on [0, inf) and behaves like
// 1/t for large t, so in tau it is tau times a function with a finite limit (4/sqrt(2 pi)) at tau -> 0, which a
// single polynomial fits over the whole range where float GELU is nonzero, with one division for tau.
inline constexpr int kMillsDegree = 12;
inline constexpr double kMillsTau[kMillsDegree + 1] = {
    0x1.98856b2306644p-4,  0x1.9863c27c55df2p-4,  0x1.80af985f0ebb7p-4, 0x1.3e6786802d6bcp-4,
    0x1.4b2ab5aa7ea14p-4,  -0x1.4d6588877f458p-6, 0x1.850e198543bdbp-3, -0x1.3982cc371d187p-2,
    0x1.a86e599e2f9b2p-2,  -0x1.8a4cd0d48c40fp-2, 0x1.a977466fd7e9fp-3, -0x1.e99acfeda4619p-5,
    0x1.d7615ba6e4becp-8};
inline constexpr double kMillsScale = 4.0;  // p in tau = p/(p+t)

// exp(r) for |r| <= ln(2)/2, degree 9, Horner, lowest degree first (the constant term is exactly 1).
// Derivation: scripts/fit/exp_reduced.sollya (fpminimax, relative, [1, D...]); relative error 2^-45.7.
inline constexpr int kExpDegree = 9;
inline constexpr double kExpPoly[kExpDegree + 1] = {
    0x1p0,                 0x1.ffffffffffb56p-1, 0x1.ffffffffee837p-2, 0x1.55555555d4488p-3,
    0x1.5555558195146p-5,  0x1.1111102c86c18p-7, 0x1.6c1636025f6d8p-10, 0x1.a01c44dae43e9p-13,
    0x1.a17426cd9d608p-16, 0x1.706323ba3c611p-19};
// Cody-Waite split of ln 2: kLn2Hi has 32 significant bits, so k * kLn2Hi is exact for |k| < 2^21.
inline constexpr double kLn2Hi = 0x1.62e42fefa0000p-1;
inline constexpr double kLn2Lo = 0x1.cf79abc9e3b3ap-40;
inline constexpr double kLog2e = 0x1.71547652b82fep0;
// 0x1.8p52 + 1023: adding it to a value v in [-2^50, 2^50] rounds v to an integer k held in the low mantissa
// bits as k + 1023 (exponent bias included), so shifting the bits left by 52 builds 2^k directly.
inline constexpr double kRoundShifter = 0x1.8p52 + 1023.0;

// Cutoffs, in double. t = |x| for the exact form; |z| for the sigmoid forms, f(x) = x * sigmoid(z).
// kExactTMax = 15.5: Phi(-15.5) * 15.5 < 2^-170 and |f'(-15.5)| < 2^-170, so for x < -15.5 both round to
// (-)0 in float32 (smallest subnormal 2^-149); for x > 15.5, Phi(x) = 1 - Phi(-x) rounds to 1 in double.
// The last nonzero float32 GELU is at x = -0x1.cb64e8p+3 (~-14.356), inside the fitted domain.
inline constexpr double kExactTMax = 15.5;
// kSigmoidZMax = 120: e^-120 < 2^-173; beyond it |x| e^z and |x z'| e^z stay below 2^-150 for every float x
// (|x| <= 71 at z = -120 for the sigmoid form, |x| <= 12 for the tanh form), so the results are (-)0, and
// for z > 120, sigmoid(z) = 1 in double.
inline constexpr double kSigmoidZMax = 120.0;

// The forms' constants, as written in their formulas.
inline constexpr double kInvSqrt2Pi = 0x1.9884533d43651p-2;  // 1/sqrt(2 pi), correctly rounded
inline constexpr double kTanhZ1 = 2.0 * 0x1.9884533d43651p-1;  // 2*sqrt(2/pi) (exact doubling)
inline constexpr double kTanhCubic = 0.044715;
inline constexpr double kTanhZ3 = kTanhZ1 * kTanhCubic;        // 2*sqrt(2/pi)*0.044715, one rounding
inline constexpr double kSigmoidScale = 1.702;

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_COEFFICIENTS_H_
