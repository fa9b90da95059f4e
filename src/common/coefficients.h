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
// The Mills ratio's asymptotic series R(t) t = 1 - u + 3u^2 - 15u^3 + 105u^4, u = 1/t^2 (coefficients
// (-1)^k (2k-1)!!, lowest degree first; error and domain: ExactDeepDerivative, src/common/gelu_in_double.inc).
inline constexpr int kMillsAsymptoticDegree = 4;
inline constexpr double kMillsAsymptotic[kMillsAsymptoticDegree + 1] = {1.0, -1.0, 3.0, -15.0, 105.0};

// exp(r) for |r| <= ln(2)/2, degree 9, Horner, lowest degree first (the constant term is exactly 1).
// Derivation: scripts/fit/exp_reduced.sollya (fpminimax, relative, [1, D...]); relative error 2^-45.7.
inline constexpr int kExpDegree = 9;
inline constexpr double kExpPoly[kExpDegree + 1] = {
    0x1p0,                 0x1.ffffffffffb56p-1, 0x1.ffffffffee837p-2, 0x1.55555555d4488p-3,
    0x1.5555558195146p-5,  0x1.1111102c86c18p-7, 0x1.6c1636025f6d8p-10, 0x1.a01c44dae43e9p-13,
    0x1.a17426cd9d608p-16, 0x1.706323ba3c611p-19};
// The reduction constants of ExpNegBounded (src/common/gelu_in_double.inc), the float32 path's exp; the float64
// exponent (src/cpu/gelu_f64-inl.h, ExpNeg) has its own, other values: kLn2HiF64, kLn2LoF64, kRoundShifterF64.
// Cody-Waite split of ln 2: kLn2Hi = ln 2 rounded to 36 significant bits, so k * kLn2Hi is exact for |k| < 2^17
// (here |k| <= 419: |z| <= 290); kLn2Lo = ln 2 - kLn2Hi rounded to a double. kLog2e = 1/ln 2 rounded to a double
// (ExpNeg uses it too).
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
// The derivative's deep tail, kExactTMax < t <= kExactDerivativeTMax, x = -t: there |f'(x)| < 2^-170, which rounds
// to -0 in float32 by itself but not once multiplied by a large grad_out (up to 2^128), or by GEGLU's grad_out * b
// (two float32 factors: up to 2^256), so f' is computed there by the Mills ratio's asymptotic series
// (ExactDeepDerivative). Beyond it |f'(x)| < |f'(-24)| < 2^-412 (mpmath), so |grad_out f'| < 2^-156 for every such
// multiplier: (-)0. (A cutoff at 20.5, |f'| < 2^-300, is enough for grad_out alone, not for GEGLU.)
inline constexpr double kExactDerivativeTMax = 24.0;
// kSigmoidZMax = 120: e^-120 < 2^-173; beyond it |x| e^z and |x z'| e^z stay below 2^-150 for every float x
// (|x| <= 71 at z = -120 for the sigmoid form, |x| <= 12 for the tanh form), so the results are (-)0, and
// for z > 120, sigmoid(z) = 1 in double.
inline constexpr double kSigmoidZMax = 120.0;
// The derivatives' cutoff: up to |z| = 290 f' is computed (e^-290 < 2^-418, a normal double), so that a large
// multiplier (grad_out up to 2^128; GEGLU's grad_out * b up to 2^256) times a deep-tail f' (|f'| >= 2^-406 can make
// a nonzero float32 product) is right; past it |x z'| e^-|z| < 2^-408 (mpmath; |x z'| <= 821 there: 290 for the
// sigmoid form, 820.6 for the tanh form at x = -15.49), and the product is (-)0 for every such multiplier.
// (A cutoff at 205, |f'| < 2^-286, is enough for grad_out alone, not for GEGLU.)
// For z > 120, sigmoid(z) = 1 and f' = 1 in double either way.
inline constexpr double kSigmoidDerivativeZMax = 290.0;

// Common range |x| <= kCommonRangeMax: f(x) = x * (1/2 + x * A(x^2)), f'(x) = 1/2 + x * C(x^2), Horner in s = x^2.
// Derivation: scripts/fit/common_range.sollya (fpminimax, absolute error, s in [2^-40, 9], double coefficients);
// each table's absolute approximation error is on its first line. These keep the double-side relative error
// below 2^-30 for f on [-3, 3] (1/2 + x A >= Phi(-3) = 1.3e-3) and for f' wherever |f'| >= 2^-8 (absolute 2^-38
// near its root), so the float32 bounds of the general path hold here too (checked exhaustively).
// The exact form and the tanh form only; see the script for why not the sigmoid form.
inline constexpr double kCommonRangeMax = 3.0;
// A exact degree 13 absolute error 2^ -42
inline constexpr int kCommonExactForwardDegree = 13;
inline constexpr double kCommonExactForward[kCommonExactForwardDegree + 1] = {
    0x1.9884533d426f3p-2, -0x1.1058377d82163p-4, 0x1.46d0427005d81p-7, -0x1.37403bd70b5eep-10,
    0x1.e42ab634827bp-14, -0x1.3ce67e14b7279p-17, 0x1.65727a99ca1b7p-21, -0x1.6188c34f3b045p-25,
    0x1.35ba5f0f51e2p-29, -0x1.df18350cdae62p-34, 0x1.3d9675e2e59d5p-38, -0x1.4f975612de73cp-43,
    0x1.ea7a8b4dc9917p-49, -0x1.690c3e6fd2de1p-55,
};
// C exact degree 14 absolute error 2^ -41
inline constexpr int kCommonExactDerivativeDegree = 14;
inline constexpr double kCommonExactDerivative[kCommonExactDerivativeDegree + 1] = {
    0x1.9884533d42762p-1, -0x1.1058377dcdc14p-2, 0x1.ea3863c9f13c8p-5, -0x1.37403e1afad29p-7,
    0x1.2e9ad5e14f815p-10, -0x1.db5c3fd86e6ep-14, 0x1.38d21a5d69976p-17, -0x1.61eec873ad9b4p-21,
    0x1.5e6f5531d2dedp-25, -0x1.3253d9b7980b3p-29, 0x1.d5c06f527fcbfp-34, -0x1.3198b823f3e95p-38,
    0x1.39300f5f1526dp-43, -0x1.b7823963a13bp-49, 0x1.34b953059058cp-55,
};
// A tanh degree 16 absolute error 2^ -41.75
inline constexpr int kCommonTanhForwardDegree = 16;
inline constexpr double kCommonTanhForward[kCommonTanhForwardDegree + 1] = {
    0x1.9884533d44a1ap-2, -0x1.11b14cd4ab82ep-4, 0x1.4e48dd7ece5eep-7, -0x1.45da5163a8a0ep-10,
    0x1.ee06da6a7cf94p-14, -0x1.d5cd58985ac9bp-18, -0x1.1aed4cd9390ccp-22, 0x1.687fe615f2a26p-23,
    -0x1.1e5b3014630cep-25, 0x1.4a380719b3ba4p-28, -0x1.310db9a8e0c74p-31, 0x1.c7a7b8b262977p-35,
    -0x1.0cfec74ae4d45p-38, 0x1.e103f84b0d087p-43, -0x1.3033fb96b4ffbp-47, 0x1.e2627cc26f16dp-53,
    -0x1.67023d1bf5165p-59,
};
// C tanh degree 17 absolute error 2^ -40
inline constexpr int kCommonTanhDerivativeDegree = 17;
inline constexpr double kCommonTanhDerivative[kCommonTanhDerivativeDegree + 1] = {
    0x1.9884533d4588bp-1, -0x1.11b14cd49992cp-2, 0x1.f56d4c0b10369p-5, -0x1.45da4afffd2dcp-7,
    0x1.34c3a0b9c4bbdp-10, -0x1.6047426c16c48p-14, -0x1.f1b9042563b35p-19, 0x1.6a6dafc3bd318p-19,
    -0x1.462822cbb0a3p-21, 0x1.a8c3ecc456695p-24, -0x1.bdc2835aa536ep-27, 0x1.805bf97eee462p-30,
    -0x1.0d6751c9a284ep-33, 0x1.2aa1e878195e9p-37, -0x1.f5584a78ee998p-42, 0x1.29edfdca806bdp-46,
    -0x1.bcc4bc52fd91fp-52, 0x1.386f39ddbca94p-58,
};

// The forms' constants, as written in their formulas.
inline constexpr double kInvSqrt2Pi = 0x1.9884533d43651p-2;  // 1/sqrt(2 pi), correctly rounded
inline constexpr double kTanhZ1 = 2.0 * 0x1.9884533d43651p-1;  // 2*sqrt(2/pi) (exact doubling)
inline constexpr double kTanhCubic = 0.044715;
inline constexpr double kTanhZ3 = kTanhZ1 * kTanhCubic;        // 2*sqrt(2/pi)*0.044715, one rounding
inline constexpr double kSigmoidScale = 1.702;

}  // namespace gelu::common

#endif  // GELU_SRC_COMMON_COEFFICIENTS_H_
