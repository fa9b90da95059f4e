// SPDX-License-Identifier: Apache-2.0
// The accuracy claim of the float32 functions: every one of the 2^32 inputs, every Highway target it is asked for
// (below: by default every target this CPU supports and this build compiled except the one-lane fallbacks), every
// float32 function of the three forms in src/common/functions.h (forward, and backward with grad_out = 1; with
// grad_out = +-0 the sign of the zero), through the public dispatched entry points, against the double reference
// (src/reference/reference.h, itself checked against MPFR in reference_test.cc), with signed zeros told apart
// (src/reference/ulp.h). The test fails unless every target asked for was swept over all inputs, prints the list it
// swept, and compares its table of maxima with docs/exhaustive_maxima.md (tests/exhaustive_maxima.h).
//
// The reference dominates the cost, so it is evaluated once per input and function: the threads compute one
// 2^20-input chunk each for every target in turn (a std::barrier switches the dispatched target between
// turns, when no thread is inside the library), then every target's output is checked against the same
// reference values (targets with FMA give bit-identical results; the others differ in a few last bits).
//
// CTest label `exhaustive` (several minutes on 2 cores); CI runs it on every commit.
//
// Environment:
//   GELU_EXHAUSTIVE_TARGETS  the targets to sweep: "supported" (the default, what scripts/test.sh passes) or a
//                            comma-separated list of Highway target names, e.g. AVX3,AVX2,SSE4,SSSE3. A target
//                            named that this build did not compile or this CPU does not support fails the test.
//   GELU_WRITE_EXHAUSTIVE_MAXIMA=1  rewrite the rows of the swept targets in docs/exhaustive_maxima.md (keeping the
//                            other targets' rows) instead of comparing with them. A failed comparison writes
//                            the file it would have written to the test's temporary directory and says where.
//   GELU_EXHAUSTIVE_CHUNKS=N a developer aid: sweep only the first N of the 4096 chunks of 2^20 inputs. The test
//                            then fails (an incomplete sweep proves nothing) and neither compares nor writes the
//                            maxima; it exercises the machinery in seconds.
#include <algorithm>
#include <barrier>
#include <chrono>
#include <cmath>
#include <bit>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "gelu/gelu.h"
#include "gtest/gtest.h"
#include "hwy/targets.h"
#include "hwy/tests/hwy_gtest.h"
#include "src/common/functions.h"
#include "src/common/gelu_f32_math.h"
#include "src/reference/reference.h"
#include "src/reference/ulp.h"
#include "tests/exhaustive_maxima.h"
#include "cpu_source_stamp.h"  // GELU_CPU_SOURCE_STAMP, made by the build (tests/CMakeLists.txt)

namespace {

using gelu::reference::Worst;

using gelu::common::Function;
constexpr uint32_t kChunk = 1u << 20, kChunks = 4096;  // 4096 * 2^20 = 2^32 inputs

// The default: every compiled target this CPU supports, except the one-lane fallbacks (HWY_SCALAR, HWY_EMU128):
// they run only on CPUs without SSSE3/NEON, and evaluate one lane at a time through emulated vector code, which
// would take most of CI's time here. They get the fast per-target suite (gelu_f32_test.cc: specials, thresholds,
// a dense sweep, 4e5 random inputs), and the shared scalar path (src/common/gelu_scalar.h) is checked bit for bit
// against the FMA targets there. Naming one in GELU_EXHAUSTIVE_TARGETS sweeps it too.
struct TargetList {
  std::vector<int64_t> targets;
  std::string error;  // why the list cannot be swept here; "" if it can
};
TargetList ExhaustiveTargets(const char* request) {
  TargetList list;
  const std::string req = request == nullptr || *request == '\0' ? "supported" : request;
  if (req == "supported") {
    for (int64_t t : hwy::SupportedAndGeneratedTargets()) {
      if (t != HWY_SCALAR && t != HWY_EMU128) list.targets.push_back(t);
    }
    if (list.targets.empty()) list.error = "this CPU supports none of the compiled targets but the one-lane fallbacks";
    return list;
  }
  std::stringstream names(req);
  std::string name;
  while (std::getline(names, name, ',')) {
    int64_t target = 0;
    for (int bit = 0; bit < 63; ++bit) {
      if (name == hwy::TargetName(int64_t{1} << bit)) target = int64_t{1} << bit;
    }
    if (target == 0) {
      list.error += "'" + name + "' is not the name of a Highway target of this architecture; ";
    } else if ((target & HWY_TARGETS) == 0) {
      list.error += name + " was not compiled in this build; ";
    } else if ((target & hwy::SupportedTargets()) == 0) {
      list.error += name + " is not supported by this CPU; ";
    } else {
      list.targets.push_back(target);
    }
  }
  if (list.targets.empty() && list.error.empty()) list.error = "no target named";
  return list;
}

std::vector<std::string> TargetNames(int64_t mask) {
  std::vector<std::string> names;
  for (int bit = 0; bit < 63; ++bit) {
    if (mask & (int64_t{1} << bit)) names.push_back(hwy::TargetName(int64_t{1} << bit));
  }
  return names;
}

// The CPU the rows were produced on, for docs/exhaustive_maxima.md: /proc/cpuinfo's first "model name".
std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0 && line.find(':') != std::string::npos) {
      return line.substr(line.find_first_not_of(" \t", line.find(':') + 1));
    }
  }
  return "unknown CPU";
}

constexpr const char* kMaximaPath = GELU_SOURCE_DIR "/docs/exhaustive_maxima.md";

// Compares rows[t] (target names[t]) with docs/exhaustive_maxima.md, or with GELU_WRITE_EXHAUSTIVE_MAXIMA=1
// replaces them there.
// docs/exhaustive_maxima.md as it is now ("" if absent).
std::string ReadMaxima() {
  std::ifstream in(kMaximaPath, std::ios::binary);
  std::stringstream s;
  if (in) s << in.rdbuf();
  return s.str();
}

// m with the swept targets' rows, this CPU and the stamp of the sources under test (GELU_CPU_SOURCE_STAMP).
void RecordSwept(gelu::exhaustive::Maxima* m, const std::vector<std::string>& names,
                 const std::vector<std::vector<std::string>>& rows) {
  const std::string cpu = CpuModel();
  for (size_t t = 0; t < names.size(); ++t) gelu::exhaustive::Replace(m, names[t], rows[t], cpu, GELU_CPU_SOURCE_STAMP);
}

void CheckOrWriteMaxima(const std::vector<std::string>& names, const std::vector<std::vector<std::string>>& rows) {
  namespace e = gelu::exhaustive;
  const std::string text = ReadMaxima();
  e::Maxima m = e::Parse(text);
  const char* write = std::getenv("GELU_WRITE_EXHAUSTIVE_MAXIMA");
  const bool rewrite = write != nullptr && std::strcmp(write, "1") == 0;
  bool same = true;
  for (size_t t = 0; t < names.size() && !rewrite; ++t) {
    const std::string d = e::Differences(m, names[t], rows[t]);
    same = same && d.empty();
    EXPECT_EQ(d, "") << kMaximaPath << " does not hold what this sweep measured on " << names[t] << ":\n" << d;
  }
  RecordSwept(&m, names, rows);
  if (same) {
    // Rewritten rows, or the same rows proven on these sources: the swept targets' CPU and Sources lines record
    // this run (scripts/proofs.py reads them).
    const std::string rendered = e::Render(m);
    if (rendered != text) {
      std::ofstream out(kMaximaPath, std::ios::binary | std::ios::trunc);
      out << rendered;
      out.close();
      ASSERT_TRUE(out) << "could not write " << kMaximaPath;
      std::printf("wrote %s: %zu targets proven on %s (%s)\n", kMaximaPath, names.size(), GELU_CPU_SOURCE_STAMP,
                  CpuModel().c_str());
    }
  } else {
    // What GELU_WRITE_EXHAUSTIVE_MAXIMA=1 would have written, so that a failed run need not be repeated.
    const std::string path = ::testing::TempDir() + "gelu_exhaustive_maxima.md";
    std::ofstream(path, std::ios::binary | std::ios::trunc) << e::Render(m);
    ADD_FAILURE() << "If the change is intended, regenerate the swept targets' rows and commit the file: run\n"
                  << "  GELU_WRITE_EXHAUSTIVE_MAXIMA=1 build/tests/gelu_exhaustive_test --gtest_filter='*AllTargets'\n"
                  << "or copy what this run would have written: cp " << path << " " << kMaximaPath;
  }
}

// grad_out = +-0: the result must be the zero IEEE gives grad_out * f'(x), of sign sign(grad_out) xor sign(f'(x)), and
// NaN for NaN x. The sign of f'(x) is the reference's (src/reference/reference.h), except where no claim fixes it:
// in the near-root window with |reference f'| <= the absolute bound fn.f32_abs (2^-24, src/common/functions.h), a
// kernel f' within that bound may have either sign, so there the zero must have the sign of the same kernel's
// grad_out = 1 result (it multiplies the f' it computed). Run stores the results' classes; Check, in the reference
// loop, compares each with the reference, which the sweep evaluates once per input.
struct ZeroGradOutSign {
  uint64_t errors = 0;
  float first_x = 0;
  std::vector<uint8_t> got;  // per input of the last Run: the class of the +0 result (bits 0-1), of the -0 one (2-3)
  static uint8_t Class(float v) { return std::isnan(v) ? 2 : v != 0 ? 3 : std::signbit(v) ? 1 : 0; }
  // zeros[0], zeros[1]: n times +0 and -0; scratch: n floats.
  void Run(const float* x, gelu_approximate a, size_t n, const std::vector<float> (&zeros)[2], float* scratch) {
    got.assign(n, 0);
    for (unsigned k = 0; k < 2; ++k) {
      EXPECT_EQ(gelu_backward_f32(zeros[k].data(), x, scratch, n, a), GELU_OK);
      for (size_t i = 0; i < n; ++i) got[i] |= static_cast<uint8_t>(Class(scratch[i]) << (2 * k));
    }
  }
  // Input i of the last Run: x, the reference f'(x), the kernel's grad_out = 1 result, the near-root bound.
  void Check(size_t i, float x, double ref, float y_one, double abs_bound) {
    uint8_t want = 2 | 2 << 2;  // NaN x: NaN for both
    if (!std::isnan(x)) {
      const bool tiny = gelu::common::InNearRootWindow(x, ref) && std::fabs(ref) <= abs_bound;
      const bool negative = tiny ? std::signbit(y_one) : std::signbit(ref);
      want = negative ? (1 | 0 << 2) : (0 | 1 << 2);  // +0 * f' has f''s sign, -0 * f' the other
    }
    if (got[i] != want && errors++ == 0) first_x = x;
  }
  void Merge(const ZeroGradOutSign& o) {
    if (errors == 0 && o.errors != 0) first_x = o.first_x;
    errors += o.errors;
  }
};

TEST(GeluExhaustiveTest, F32AllInputsAllFunctionsAllTargets) {
  // The functions under test: the table's float32 functions of the three forms, with their bounds.
  const std::vector<Function> kFunctions = [] {
    std::vector<Function> fns;
    for (const Function& f : gelu::common::kFunctions) {
      if (gelu::common::IsFormFunctionIn(f, gelu::common::kF32)) fns.push_back(f);
    }
    return fns;
  }();
  const size_t kNumFunctions = kFunctions.size();
  const char* request = std::getenv("GELU_EXHAUSTIVE_TARGETS");
  const TargetList list = ExhaustiveTargets(request);
  ASSERT_EQ(list.error, "") << "GELU_EXHAUSTIVE_TARGETS=" << (request ? request : "(unset: supported)")
                            << " cannot be swept here; compiled: " << ::testing::PrintToString(TargetNames(HWY_TARGETS))
                            << ", supported by this CPU: "
                            << ::testing::PrintToString(TargetNames(hwy::SupportedTargets()));
  const std::vector<int64_t>& targets = list.targets;
  const size_t num_targets = targets.size();
  {
    // Loudly, in the CI log: the targets docs/exhaustive_maxima.md has rows for that this run will not sweep (a
    // runner without AVX-512, or a shorter GELU_EXHAUSTIVE_TARGETS): their rows stay, unproven by this run.
    const std::string missing = gelu::exhaustive::NotSwept(gelu::exhaustive::Parse(ReadMaxima()), TargetNames([&] {
      int64_t mask = 0;
      for (int64_t t : targets) mask |= t;
      return mask;
    }()));
    if (!missing.empty()) {
      std::fprintf(stderr, "\n==== NOT PROVEN BY THIS RUN ====\n%s================================\n\n", missing.c_str());
    }
  }
  const char* chunks_env = std::getenv("GELU_EXHAUSTIVE_CHUNKS");  // developer aid (above)
  const uint32_t num_chunks =
      chunks_env == nullptr ? kChunks : std::min<uint32_t>(kChunks, static_cast<uint32_t>(std::atoi(chunks_env)));
  gelu_set_num_threads(1);  // the test's own threads split the work; each library call stays on its thread
  const unsigned workers = std::max(1u, std::thread::hardware_concurrency());

  // Filled by worker w at the end of its sweep: worst[w][target][function], zero_sign_errors[w][target][function],
  // swept[w][target] (the chunks that worker w computed with the library dispatched to that target).
  std::vector<std::vector<std::vector<Worst>>> worst(workers);
  std::vector<std::vector<std::vector<ZeroGradOutSign>>> zero_sign_errors(workers);
  std::vector<std::vector<uint32_t>> swept(workers);

  const auto start = std::chrono::steady_clock::now();
  size_t turn = 0;
  hwy::SetSupportedTargetsForTest(targets[0]);
  std::barrier sync(workers, [&]() noexcept {  // runs once all threads arrived, before any is released
    turn = (turn + 1) % num_targets;
    hwy::SetSupportedTargetsForTest(targets[turn]);
  });
  {
    std::vector<std::jthread> pool;
    for (unsigned w = 0; w < workers; ++w) {
      pool.emplace_back([&, w] {
        // This thread's accumulators, updated for every input and function: allocated here, from this thread's
        // malloc arena, and moved into the shared tables after the sweep. Allocated by one thread next to each
        // other, the threads' counters share cache lines that then move between the cores on every update
        // (docs/EXPERIMENTS.md, "Test time").
        std::vector<std::vector<Worst>> my_worst(num_targets, std::vector<Worst>(kNumFunctions));
        std::vector<std::vector<ZeroGradOutSign>> my_zero_sign_errors(
            num_targets, std::vector<ZeroGradOutSign>(kNumFunctions));
        std::vector<uint32_t> my_swept(num_targets);
        std::vector<float> x(kChunk), ones(kChunk, 1.0f), y_zero(kChunk);
        const std::vector<float> zeros[2] = {std::vector<float>(kChunk, 0.0f), std::vector<float>(kChunk, -0.0f)};
        std::vector<std::vector<std::vector<float>>> y(
            num_targets, std::vector<std::vector<float>>(kNumFunctions, std::vector<float>(kChunk)));
        for (uint32_t batch = 0; batch * workers < num_chunks; ++batch) {
          const uint32_t c = batch * workers + w;
          const bool active = c < num_chunks;
          if (active) {
            for (uint32_t i = 0; i < kChunk; ++i) x[i] = std::bit_cast<float>(c * kChunk + i);
          }
          for (size_t t = 0; t < num_targets; ++t) {
            if (active) {
              my_swept[t] += std::strcmp(gelu_simd_target(), hwy::TargetName(targets[t])) == 0;
              for (size_t f = 0; f < kNumFunctions; ++f) {
                const Function& fn = kFunctions[f];
                float* out = y[t][f].data();
                const auto a = static_cast<gelu_approximate>(fn.form());
                const gelu_status s = fn.backward() ? gelu_backward_f32(ones.data(), x.data(), out, kChunk, a)
                                                    : gelu_forward_f32(x.data(), out, kChunk, a);
                EXPECT_EQ(s, GELU_OK);
                if (fn.backward()) my_zero_sign_errors[t][f].Run(x.data(), a, kChunk, zeros, y_zero.data());
              }
            }
            sync.arrive_and_wait();
          }
          if (!active) continue;
          if (w == 0 && batch % 128 == 0) {
            std::fprintf(stderr, "exhaustive: chunk %u of %u, %.0f s\n", c, num_chunks,
                         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
          }
          for (uint32_t i = 0; i < kChunk; ++i) {
            gelu::reference::ValueAndDerivative ref[gelu::common::kNumForms];
            for (const gelu::common::Form form : gelu::common::kForms) {
              ref[form] = gelu::reference::ForwardAndDerivative(x[i], static_cast<gelu::reference::Form>(form));
            }
            for (size_t f = 0; f < kNumFunctions; ++f) {
              const Function& fn = kFunctions[f];
              const bool derivative = fn.backward();
              const double r = derivative ? ref[fn.form()].derivative : ref[fn.form()].value;
              const float y0 = y[0][f][i];
              const double e0 = Worst::Error(x[i], y0, r, derivative);
              my_worst[0][f].AddError(x[i], y0, r, derivative, e0);
              for (size_t t = 1; t < num_targets; ++t) {
                const float yt = y[t][f][i];
                const bool same = std::bit_cast<uint32_t>(yt) == std::bit_cast<uint32_t>(y0);
                my_worst[t][f].AddError(x[i], yt, r, derivative, same ? e0 : Worst::Error(x[i], yt, r, derivative));
              }
              if (derivative) {
                for (size_t t = 0; t < num_targets; ++t) {
                  my_zero_sign_errors[t][f].Check(i, x[i], r, y[t][f][i], fn.f32_abs);
                }
              }
            }
          }
        }
        worst[w] = std::move(my_worst);
        zero_sign_errors[w] = std::move(my_zero_sign_errors);
        swept[w] = std::move(my_swept);
      });
    }
  }  // jthreads join here
  hwy::SetSupportedTargetsForTest(0);
  gelu_set_num_threads(0);

  std::vector<std::string> names, swept_names;
  std::vector<std::vector<std::string>> rows(num_targets);
  std::printf("%s", gelu::exhaustive::kTableHead);
  for (size_t t = 0; t < num_targets; ++t) {
    const char* name = hwy::TargetName(targets[t]);
    names.push_back(name);
    uint32_t chunks = 0;
    for (const auto& per_worker : swept) chunks += per_worker[t];
    EXPECT_EQ(chunks, kChunks) << name << " was not swept: " << chunks << " of the " << kChunks
                               << " chunks of 2^20 inputs ran on it (the others on another target, or not at all)";
    if (chunks == kChunks) swept_names.push_back(name);
    for (size_t f = 0; f < kNumFunctions; ++f) {
      Worst w;
      for (auto& per_worker : worst) w.Merge(per_worker[t][f]);
      const Function& fn = kFunctions[f];
      rows[t].push_back(gelu::exhaustive::FormatRow(name, fn.name, w.ulp, w.x, fn.backward(), w.abs24, w.abs_x));
      std::printf("%s\n", rows[t].back().c_str());
      EXPECT_LE(w.ulp, fn.f32_ulp) << name << " " << fn.name << std::hexfloat << " x=" << w.x << " y=" << w.y
                                   << " ref=" << w.r;
      EXPECT_EQ(w.nan_mismatches, 0u) << name << " " << fn.name << std::hexfloat << " first at x=" << w.nan_x;
      if (fn.backward()) EXPECT_LE(w.abs24 * 0x1p-24, fn.f32_abs) << fn.name << std::hexfloat << " x=" << w.abs_x;
      if (fn.backward()) {
        ZeroGradOutSign z;
        for (auto& per_worker : zero_sign_errors) z.Merge(per_worker[t][f]);
        EXPECT_EQ(z.errors, 0u) << name << " " << fn.name << ": grad_out = +-0 gave a zero of the "
                                << "wrong sign, first at x=" << std::hexfloat << z.first_x;
      }
    }
  }
  std::string swept_list;
  for (const std::string& n : swept_names) swept_list += (swept_list.empty() ? "" : ", ") + n;
  std::printf("swept all 2^32 inputs on: %s (%zu of the %zu targets asked for)\n",
              swept_list.empty() ? "none" : swept_list.c_str(), swept_names.size(), num_targets);
  ASSERT_EQ(swept_names.size(), num_targets) << "an incomplete sweep: the maxima are neither compared nor written";
  CheckOrWriteMaxima(names, rows);
}

// The premise of the kernels' identity lanes (common::TailIdentity): from kTailIdentityFrom<Function> up, the float
// tail gives exactly x (forward) or grad_out (backward), so a kernel may return those without evaluating it. Every
// float from there to kTailTMax<Function> is checked through the shared scalar TailF32 (the vector targets compute the
// same bits); beyond kTailTMax TailF32 uses kTailTMax's tables and E, so a few points stand for the rest. Backward:
// grad_out = 1 and 0x1.fffffep0 (the largest significand) bound |f'(-t)| by 2^-25 and so cover every grad_out.
template <gelu::common::Form kForm, bool kDerivative>
void CheckTailIdentity(float from, float tmax) {
  const gelu::common::ScalarOps o;
  const auto check_range = [&](uint32_t begin, uint32_t end, uint64_t* bad, float* first_bad) {
    for (uint32_t b = begin; b < end; ++b) {
      const float x = std::bit_cast<float>(b);
      for (float g : {1.0f, 0x1.fffffep0f}) {
        bool valid;
        const float t = gelu::common::TailF32<kForm, kDerivative>(o, x, g, valid);
        const float want = kDerivative ? g : x;
        if (!valid || std::bit_cast<uint32_t>(t) != std::bit_cast<uint32_t>(want)) {
          if ((*bad)++ == 0) *first_bad = x;
        }
        if (!kDerivative) break;
      }
    }
  };
  const uint32_t begin = std::bit_cast<uint32_t>(from), end = std::bit_cast<uint32_t>(tmax) + 1;
  const uint32_t mid = begin + (end - begin) / 2;
  uint64_t bad[2] = {0, 0};
  float first_bad[2] = {0, 0};
  {
    std::jthread half(check_range, begin, mid, &bad[0], &first_bad[0]);
    check_range(mid, end, &bad[1], &first_bad[1]);
  }
  EXPECT_EQ(bad[0] + bad[1], 0u) << "form " << kForm << (kDerivative ? " backward" : " forward") << std::hexfloat
                                 << ", first at x=" << (bad[0] ? first_bad[0] : first_bad[1]);
  const float inf = std::numeric_limits<float>::infinity();
  for (float x : {2 * tmax, 1e30f, std::numeric_limits<float>::max(), inf}) {
    check_range(std::bit_cast<uint32_t>(x), std::bit_cast<uint32_t>(x) + 1, &bad[0], &first_bad[0]);
  }
  EXPECT_EQ(bad[0] + bad[1], 0u) << "form " << kForm << " beyond kTailTMax";
  const auto identity = [&](float x) { return gelu::common::TailIdentity<kForm, kDerivative>(o, x); };
  EXPECT_TRUE(identity(from));
  EXPECT_FALSE(identity(std::nextafter(from, 0.0f)));
  EXPECT_FALSE(identity(std::numeric_limits<float>::quiet_NaN()));
}

TEST(GeluExhaustiveTest, TailIdentityLanesMatchTheTail) {
  namespace c = gelu::common;
  for (const c::Form form : c::kForms) {
    c::VisitForm(form, [](auto k) {
      constexpr c::Form kForm = decltype(k)::value;
      using Form = c::F32Form<kForm>;
      CheckTailIdentity<kForm, false>(Form::TailIdentityFrom(false), Form::TailTMax(false));
      CheckTailIdentity<kForm, true>(Form::TailIdentityFrom(true), Form::TailTMax(true));
    });
  }
}

}  // namespace
