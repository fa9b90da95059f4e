// SPDX-License-Identifier: Apache-2.0
// The polynomial evaluators of every path: the float32 core and tail (gelu_f32_core-inl.h), the double path
// (gelu_in_double-inl.h) and float64 (src/cpu/gelu_f64-inl.h), written once against an operations policy `o`
// (Set, Mul, MulAdd) and a coefficient source `c`: c(Index<k>{}) is the coefficient of index k, a constant
// (Constants, Elements of a double array: the policy Sets it) or a vector already loaded (Elements of a table's
// rows). Each evaluator fixes its operations and their order, so a caller that keeps the evaluator keeps its bits.
// No include guard and no includes, on purpose: like the files above it is included inside a namespace (gelu::common,
// and per Highway target gelu::HWY_NAMESPACE and gelu::HWY_NAMESPACE::f64), so that each target compiles it with its
// own instruction set. Needs GELU_HD and <type_traits> in scope.

// A coefficient index as a type, so that a source can read a constexpr array in a constant expression.
template <int k>
struct Index {
  static constexpr int value = k;
};

// The constexpr array C: nvcc may not read a namespace-scope constexpr array from device code at a run-time index,
// only its elements in constant expressions (CUDA C++ Programming Guide, "constexpr variables"), so each coefficient
// is read into a constexpr local.
template <const auto& C>
struct Constants {
  template <class I>
  GELU_HD auto operator()(I) const {
    constexpr auto c = C[I::value];
    return c;
  }
};

// An array read at run time (host code, or values already in registers: a table's rows loaded by the policy).
template <class T>
struct Elements {
  const T* p;
  template <class I>
  GELU_HD T operator()(I) const {
    return p[I::value];
  }
};

// The coefficient of index k as a lane value: a number is Set, a vector (or the one-lane value itself) taken as is.
template <int k, class Ops, class C>
GELU_HD auto Coefficient(const Ops& o, const C& c) {
  const auto v = c(Index<k>{});
  if constexpr (std::is_arithmetic_v<decltype(v)>) {
    return o.Set(v);
  } else {
    return v;
  }
}

// c[kLo] + c[kLo + 1] x + ... + c[kHi] x^(kHi - kLo) by Horner's scheme: p = c[kHi], then p = fma(p, x, c[k]) for
// k = kHi - 1 down to kLo: kHi - kLo dependent FMAs, each rounding once. The shortest chain of operations, and the
// smallest evaluation error where the terms decrease (as in every table fitted here); the cost is latency.
template <int kLo, int kHi, class Ops, class V, class C>
GELU_HD V HornerSteps(const Ops& o, V x, const C& c) {
  static_assert(kLo <= kHi, "coefficient range");
  if constexpr (kLo == kHi) {
    return Coefficient<kHi>(o, c);
  } else {
    return o.MulAdd(HornerSteps<kLo + 1, kHi>(o, x, c), x, Coefficient<kLo>(o, c));
  }
}

// The same polynomial by Estrin's scheme: a tree of FMAs of depth ceil(log2(kHi - kLo + 1)) over the powers
// powers = {x, x^2, x^4, x^8, x^16} (only those the tree reads need be valid: x^(2^j) for 2^j < kHi - kLo + 1),
// instead of Horner's chain. Why: the double-lane and float64 kernels are latency-bound (one vector's chain is longer
// than the out-of-order window hides); a few more multiplications are cheaper than the wait. The split: the low
// m = the largest power of two below the count, plus x^m times the rest, each half the same way.
template <int kLo, int kHi, class Ops, class V, class C>
GELU_HD V EstrinTree(const Ops& o, const V (&powers)[5], const C& c) {
  constexpr int kCount = kHi - kLo + 1;
  static_assert(kCount >= 1 && kCount <= 32, "powers up to x^16");
  if constexpr (kCount == 1) {
    return Coefficient<kLo>(o, c);
  } else if constexpr (kCount == 2) {
    return o.MulAdd(Coefficient<kHi>(o, c), powers[0], Coefficient<kLo>(o, c));
  } else {
    constexpr int kLog = kCount > 16 ? 4 : kCount > 8 ? 3 : kCount > 4 ? 2 : 1;
    return o.MulAdd(EstrinTree<kLo + (1 << kLog), kHi>(o, powers, c), powers[kLog],
                    EstrinTree<kLo, kLo + (1 << kLog) - 1>(o, powers, c));
  }
}

// The powers EstrinTree reads for a polynomial of degree kDegree: x, x^2 = x x, x^4 = x^2 x^2, ..., up to the
// largest x^(2^j) with 2^j <= kDegree (the entries past it hold x and are never read).
template <int kDegree, class Ops, class V>
GELU_HD void EstrinPowers(const Ops& o, V x, V (&powers)[5]) {
  for (int k = 0; k < 5; ++k) powers[k] = x;
  for (int k = 1; k < 5 && (1 << k) <= kDegree; ++k) powers[k] = o.Mul(powers[k - 1], powers[k - 1]);
}

// C[0] + C[1] x + ... + C[kDegree] x^kDegree by Estrin's scheme, C a constexpr array (the double path's fits).
template <const auto& C, int kDegree, class Ops, class V>
GELU_HD V Polynomial(const Ops& o, V x) {
  V powers[5];
  EstrinPowers<kDegree>(o, x, powers);
  return EstrinTree<0, kDegree>(o, powers, Constants<C>{});
}
