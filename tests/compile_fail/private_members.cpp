// Must not compile: a class with private members and no description.
#include <mpk/codec.hpp>

class secret {
  int value_ = 0;

 public:
  int value() const { return value_; }
};

int main() {
  return mpk::pack(secret{}) ? 0 : 1;
}
