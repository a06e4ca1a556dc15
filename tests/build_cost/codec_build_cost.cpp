// The build cost of reflection (docs/codec.md, "Costs"): 20 structs of 10 to 40 members,
// each packed and unpacked, reflected (the default) or described with MPK_MAP
// (-DMPK_BUILD_COST_DESCRIBED). Built only on request:
//     cmake --build build/release --target codec_build_cost_reflected codec_build_cost_described
// and timed by hand (the times are in docs/codec.md); main() checks one round trip of each.
#include <mpk/codec.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

// Ten members of the common families, prefixed by p.
#define MPK_COST_MEMBERS(p)        \
  std::int64_t p##0 = 0;           \
  double p##1 = 0;                 \
  std::string p##2;                \
  bool p##3 = false;               \
  std::vector<int> p##4;           \
  std::optional<std::string> p##5; \
  std::int32_t p##6 = 0;           \
  float p##7 = 0;                  \
  std::string p##8;                \
  std::uint64_t p##9 = 0;
#define MPK_COST_NAMES(p) p##0, p##1, p##2, p##3, p##4, p##5, p##6, p##7, p##8, p##9

#define MPK_COST_STRUCT10(S) \
  struct S {                 \
    MPK_COST_MEMBERS(a)      \
  };
#define MPK_COST_STRUCT20(S) \
  struct S {                 \
    MPK_COST_MEMBERS(a)      \
    MPK_COST_MEMBERS(b)      \
  };
#define MPK_COST_STRUCT30(S) \
  struct S {                 \
    MPK_COST_MEMBERS(a)      \
    MPK_COST_MEMBERS(b)      \
    MPK_COST_MEMBERS(c)      \
  };
#define MPK_COST_STRUCT40(S) \
  struct S {                 \
    MPK_COST_MEMBERS(a)      \
    MPK_COST_MEMBERS(b)      \
    MPK_COST_MEMBERS(c)      \
    MPK_COST_MEMBERS(d)      \
  };

#ifdef MPK_BUILD_COST_DESCRIBED
#define MPK_COST_DESCRIBE10(S) MPK_MAP(S, MPK_COST_NAMES(a));
#define MPK_COST_DESCRIBE20(S) MPK_MAP(S, MPK_COST_NAMES(a), MPK_COST_NAMES(b));
#define MPK_COST_DESCRIBE30(S) MPK_MAP(S, MPK_COST_NAMES(a), MPK_COST_NAMES(b), MPK_COST_NAMES(c));
#define MPK_COST_DESCRIBE40(S) \
  MPK_MAP(S, MPK_COST_NAMES(a), MPK_COST_NAMES(b), MPK_COST_NAMES(c), MPK_COST_NAMES(d));
#else
#define MPK_COST_DESCRIBE10(S)
#define MPK_COST_DESCRIBE20(S)
#define MPK_COST_DESCRIBE30(S)
#define MPK_COST_DESCRIBE40(S)
#endif

#define MPK_COST_TYPE(S, n) MPK_COST_STRUCT##n(S) MPK_COST_DESCRIBE##n(S)

namespace cost {
MPK_COST_TYPE(s01, 10)
MPK_COST_TYPE(s02, 20)
MPK_COST_TYPE(s03, 30)
MPK_COST_TYPE(s04, 40)
MPK_COST_TYPE(s05, 10)
MPK_COST_TYPE(s06, 20)
MPK_COST_TYPE(s07, 30)
MPK_COST_TYPE(s08, 40)
MPK_COST_TYPE(s09, 10)
MPK_COST_TYPE(s10, 20)
MPK_COST_TYPE(s11, 30)
MPK_COST_TYPE(s12, 40)
MPK_COST_TYPE(s13, 10)
MPK_COST_TYPE(s14, 20)
MPK_COST_TYPE(s15, 30)
MPK_COST_TYPE(s16, 40)
MPK_COST_TYPE(s17, 10)
MPK_COST_TYPE(s18, 20)
MPK_COST_TYPE(s19, 30)
MPK_COST_TYPE(s20, 40)
}  // namespace cost

namespace {
template <class T>
bool round_trip() {
  T v{};
  v.a2 = "x";
  v.a4 = {1, 2};
  auto bytes = mpk::pack(v);
  if (!bytes) return false;
  auto back = mpk::unpack<T>(bytes->bytes());
  return back && back->a2 == "x" && back->a4.size() == 2;
}
}  // namespace

int main() {
  using namespace cost;
  const bool ok =
      round_trip<s01>() && round_trip<s02>() && round_trip<s03>() && round_trip<s04>() &&
      round_trip<s05>() && round_trip<s06>() && round_trip<s07>() && round_trip<s08>() &&
      round_trip<s09>() && round_trip<s10>() && round_trip<s11>() && round_trip<s12>() &&
      round_trip<s13>() && round_trip<s14>() && round_trip<s15>() && round_trip<s16>() &&
      round_trip<s17>() && round_trip<s18>() && round_trip<s19>() && round_trip<s20>();
  return ok ? 0 : 1;
}
