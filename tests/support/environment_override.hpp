// Sets an environment variable for the lifetime of the object (the samplers and selectors made
// meanwhile read it at construction) and unsets it afterwards.
#pragma once

#include <cstdlib>

namespace wildfire::test {

class environment_override {
 public:
  environment_override(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~environment_override() { unsetenv(name_); }
  environment_override(const environment_override&) = delete;
  environment_override& operator=(const environment_override&) = delete;

 private:
  const char* name_;
};

}  // namespace wildfire::test
