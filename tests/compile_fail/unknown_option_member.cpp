// Must not compile: struct_options naming a member the struct does not have.
#include <mpk/codec.hpp>

struct user {
  int id = 0;
};
constexpr auto mpk_options(mpk::type_tag<user>) {
  return mpk::struct_options{}.skip("name");
}

int main() {
  return mpk::pack(user{}) ? 0 : 1;
}
