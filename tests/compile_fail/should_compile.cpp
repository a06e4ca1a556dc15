// Must compile: the control of the compile-fail tests (same command, a valid program), so that
// they fail for the reason their message says, not because the command is broken.
#include <mpk/codec.hpp>

#include <cstdint>
#include <string>

struct user {
  int id = 0;
  std::string name;
};
constexpr auto mpk_options(mpk::type_tag<user>) {
  return mpk::struct_options{}.skip("name");
}

int main() {
  mpk::untagged<std::int64_t, std::string> v = std::int64_t{1};
  return mpk::pack(user{}) && mpk::pack(v) ? 0 : 1;
}
