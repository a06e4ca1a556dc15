// Must not compile: an aggregate with a base class (reflection cannot name its members).
#include <mpk/codec.hpp>

struct base {
  int a = 0;
};
struct derived : base {
  int b = 0;
};

int main() {
  return mpk::pack(derived{}) ? 0 : 1;
}
